/**
 * Times as events and saved records show them (ISO 8601, to the millisecond), for a server that
 * stamps thousands of requests a second: each text is made once per millisecond, since most
 * requests share their millisecond with the one before.
 */
export function isoTimes(): (ms: number) => string {
  let lastMs = Number.NaN
  let lastIso = ''
  return (ms) => {
    if (ms !== lastMs) {
      lastMs = ms
      lastIso = new Date(ms).toISOString()
    }
    return lastIso
  }
}
