/**
 * What `paytx doctor` finds: one check a line, each ✔ (ok), ⚠ (warn: works, but look) or ✖
 * (fail: something will not work), with what to do for the last two. Checks never hold a key.
 */
export type CheckStatus = 'ok' | 'warn' | 'fail'

export interface DoctorCheck {
  /** Stable name for --json readers: node, build, profile, api-key, service, card-proxy, … */
  id: string
  /** What was checked, as a person reads it. */
  label: string
  status: CheckStatus
  detail: string
  /** What to do; set for warn and fail. */
  remedy?: string
}

export interface DoctorReport {
  profile: string
  checks: DoctorCheck[]
  /** False when any check failed (exit 1). */
  ok: boolean
}

export function ok(id: string, label: string, detail: string): DoctorCheck {
  return {id, label, status: 'ok', detail}
}

export function warn(id: string, label: string, detail: string, remedy: string): DoctorCheck {
  return {id, label, status: 'warn', detail, remedy}
}

export function fail(id: string, label: string, detail: string, remedy: string): DoctorCheck {
  return {id, label, status: 'fail', detail, remedy}
}

/** A file or folder mode as ls shows it in octal: 0600. */
export function octalMode(mode: number): string {
  return `0${(mode & 0o777).toString(8).padStart(3, '0')}`
}
