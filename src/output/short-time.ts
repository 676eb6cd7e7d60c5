/**
 * Times as a table on a terminal shows them, in the reader's time zone: only the time when the
 * date adds nothing (today), as `ls -l` does otherwise. Pipes, CSV and --json keep the exact
 * timestamp the service gave.
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const HALF_A_YEAR_MS = 183 * 86_400_000

const two = (value: number) => String(value).padStart(2, '0')

/** `10:00:03` today, `Nov 20 10:00` within half a year of `now`, `Nov 20 2025` further; text that is no time as it is. */
export function shortTime(timestamp: string, now: number): string {
  const time = Date.parse(timestamp)
  if (Number.isNaN(time)) return timestamp
  const at = new Date(time)
  const today = new Date(now)
  if (at.getFullYear() === today.getFullYear() && at.getMonth() === today.getMonth() && at.getDate() === today.getDate()) {
    return `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}`
  }
  const day = `${MONTHS[at.getMonth()]} ${at.getDate()}`
  return Math.abs(now - time) < HALF_A_YEAR_MS ? `${day} ${two(at.getHours())}:${two(at.getMinutes())}` : `${day} ${at.getFullYear()}`
}
