// What the benchmarks share: the environment their children run in, medians, peak memory, and
// the lines that say whether each target is met.
import {readFileSync} from 'node:fs'

/**
 * The environment for what a benchmark spawns: a user's normal machine. NODE_EXTRA_CA_CERTS
 * (set on some build machines) makes every Node process read and parse a certificate bundle at
 * start-up, which hides the start-up cost being measured; NODE_ENV and PAYTX_PROFILE change
 * what the CLI does.
 */
export function benchEnv(extra = {}) {
  const env = {...process.env, ...extra}
  for (const name of ['NODE_EXTRA_CA_CERTS', 'NODE_ENV', 'PAYTX_PROFILE']) delete env[name]
  return env
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** A field of /proc/<pid>/status in MB (VmRSS now, VmHWM the peak so far); undefined once the process is gone. */
export function procStatusMb(pid, field) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]
    return kb === undefined ? undefined : Number(kb) / 1024
  } catch {
    return undefined
  }
}

/**
 * Follows a child's peak resident memory (VmHWM) until it exits: read every few milliseconds,
 * since /proc forgets the process when it ends; the peak only grows, so the last reading is at
 * most a few milliseconds short of the end.
 */
export function followPeakRss(child, everyMs = 5) {
  let peak = 0
  const read = () => {
    const now = procStatusMb(child.pid, 'VmHWM')
    if (now !== undefined) peak = Math.max(peak, now)
  }
  const timer = setInterval(read, everyMs)
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code) => {
      clearInterval(timer)
      resolve({code, peakMb: peak})
    })
  })
}

/** "12.3" with a fixed number of decimals, padded for a column. */
export function fixed(value, decimals = 1, width = 7) {
  return value.toFixed(decimals).padStart(width)
}

/**
 * Prints each check as one line, `ok  ` or `MISS`, saying the measured figure and its target,
 * and exits 0 when every one is met, else 1. bench/run.js repeats these lines in its summary.
 */
export function finish(checks) {
  for (const [text, ok] of checks) console.log(`${ok ? 'ok  ' : 'MISS'}  ${text}`)
  process.exit(checks.every(([, ok]) => ok) ? 0 : 1)
}
