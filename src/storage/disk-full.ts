/**
 * A full disk (or a used-up quota) is a passing condition, not a broken store: writes fail, reads
 * go on, and writing resumes by itself once space is freed. Whoever was refused a write is told
 * to come back later (503 with Retry-After), never that a permission is missing.
 */

/** The codes a full disk shows up as: from the file system, and from SQLite. */
const DISK_FULL_CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL'])

/** Seconds a sender refused for a full disk is asked to wait (Retry-After). */
export const DISK_FULL_RETRY_AFTER_SECONDS = 10

/** Whether the error (or the error it wraps) says the disk is full. */
export function isDiskFull(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; current = (current as {cause?: unknown}).cause, depth++) {
    const {code, message} = current as {code?: unknown; message?: unknown}
    if (typeof code === 'string' && DISK_FULL_CODES.has(code.split(':')[0])) return true
    // libsql reports SQLite's own code in the message: "SQLITE_FULL: database or disk is full".
    if (typeof message === 'string' && /\bSQLITE_FULL\b|database or disk is full|no space left on device/i.test(message)) return true
  }
  return false
}
