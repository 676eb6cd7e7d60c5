/**
 * Errors are values with an exit code. This is the one mapping from kind of failure to exit
 * code (product.md), used by every command through the base command's `catch`.
 */
import type {Remedy} from './remedy.js'

export const EXIT = {
  ok: 0,
  service: 1,
  input: 2,
  notSuccess: 3,
  notFinal: 4,
  interrupted: 130,
} as const
export type ExitCode = (typeof EXIT)[keyof typeof EXIT]

/** How a payment ended, as read from the service. */
export interface OutcomeVerdict {
  /** Final, or conclusive for the wait (SETTLEMENT_REQUESTED when waiting until final). */
  conclusive: boolean
  success: boolean
}

export type OutcomeExitCode = typeof EXIT.ok | typeof EXIT.notSuccess | typeof EXIT.notFinal

/**
 * The one place a payment's outcome becomes an exit code (flow, status --wait, checkoutsuccess):
 * 0 success, 3 conclusive and not a success, 4 not conclusive in time.
 */
export function outcomeExitCode(verdict: OutcomeVerdict): OutcomeExitCode {
  if (!verdict.conclusive) return EXIT.notFinal
  return verdict.success ? EXIT.ok : EXIT.notSuccess
}

export type ErrorKind = 'input' | 'service' | 'network' | 'response' | 'environment' | 'interrupted' | 'internal'

export interface ErrorJson {
  kind: ErrorKind
  exitCode: number
  message: string
  hint?: string
  flag?: string
  status?: number
  code?: string
  serviceMessage?: string
  details?: Record<string, string | string[]>
  mayHaveReachedService?: boolean
  /** What would help, as data (remedy.ts); `hint` says it in words where the CLI wrote the JSON. */
  remedies?: Remedy[]
  [extra: string]: unknown
}

export class PaytxError extends Error {
  readonly kind: ErrorKind
  readonly exitCode: number
  /** Words that name no command (a diagnosis, a flag to pass); commands to run go in `remedies`. */
  hint?: string
  /** What would help, in order; the CLI layer says them in words after the hint. */
  readonly remedies: Remedy[] = []

  constructor(kind: ErrorKind, exitCode: number, message: string, hint?: string, remedy?: Remedy) {
    super(message)
    this.name = 'PaytxError'
    this.kind = kind
    this.exitCode = exitCode
    this.hint = hint
    if (remedy) this.remedies.push(remedy)
  }

  /** Adds a remedy after those the error has (a flow that failed after starting a transaction). */
  withRemedy(remedy: Remedy): this {
    this.remedies.push(remedy)
    return this
  }

  toJSON(): ErrorJson {
    return {
      kind: this.kind,
      exitCode: this.exitCode,
      message: this.message,
      ...(this.hint ? {hint: this.hint} : {}),
      ...(this.remedies.length > 0 ? {remedies: [...this.remedies]} : {}),
    }
  }
}

/** The user's input was wrong; nothing was sent. */
export class InputError extends PaytxError {
  readonly flag?: string

  constructor(message: string, options: {flag?: string; hint?: string; remedy?: Remedy} = {}) {
    super('input', EXIT.input, message, options.hint, options.remedy)
    this.name = 'InputError'
    this.flag = options.flag
  }

  override toJSON(): ErrorJson {
    return {...super.toJSON(), ...(this.flag ? {flag: this.flag} : {})}
  }
}

/** Several input problems at once, each naming its flag or field. */
export class InputErrors extends InputError {
  readonly problems: {flag?: string; field?: string; message: string}[]

  constructor(problems: {flag?: string; field?: string; message: string}[], hint?: string, remedy?: Remedy) {
    const lines = problems.map((p) => `  ${p.flag ?? p.field ?? 'input'}: ${p.message}`)
    super(problems.length === 1 ? `${problems[0].flag ?? problems[0].field}: ${problems[0].message}` : `The input has ${problems.length} problems:\n${lines.join('\n')}`, {
      flag: problems[0]?.flag,
      hint,
      remedy,
    })
    this.name = 'InputErrors'
    this.problems = problems
  }

  override toJSON(): ErrorJson {
    return {...super.toJSON(), problems: this.problems}
  }
}

/** The service answered with a non-2xx status. */
export class ServiceError extends PaytxError {
  readonly status: number
  readonly code?: string
  readonly serviceMessage?: string
  readonly details?: Record<string, string | string[]>
  readonly method: string
  readonly url: string
  /** The answer's body, already scrubbed, for commands that show it (`paytx api`). */
  readonly body?: unknown

  constructor(init: {
    status: number
    method: string
    url: string
    code?: string
    serviceMessage?: string
    details?: Record<string, string | string[]>
    message: string
    hint?: string
    remedy?: Remedy
    body?: unknown
  }) {
    super('service', EXIT.service, init.message, init.hint, init.remedy)
    this.name = 'ServiceError'
    this.status = init.status
    this.code = init.code
    this.serviceMessage = init.serviceMessage
    this.details = init.details
    this.method = init.method
    this.url = init.url
    this.body = init.body
  }

  override toJSON(): ErrorJson {
    return {
      ...super.toJSON(),
      status: this.status,
      ...(this.code === undefined ? {} : {code: this.code}),
      ...(this.serviceMessage === undefined ? {} : {serviceMessage: this.serviceMessage}),
      ...(this.details === undefined ? {} : {details: this.details}),
      ...(this.body === undefined ? {} : {body: this.body}),
    }
  }
}

/** The network failed: refused, unreachable, timed out, or the connection broke. */
export class NetworkError extends PaytxError {
  /** True when a POST may have reached the service, so it must not be repeated blindly. */
  readonly mayHaveReachedService: boolean
  override readonly cause?: unknown

  constructor(message: string, options: {hint?: string; remedy?: Remedy; mayHaveReachedService?: boolean; cause?: unknown} = {}) {
    super('network', EXIT.service, message, options.hint, options.remedy)
    this.name = 'NetworkError'
    this.mayHaveReachedService = options.mayHaveReachedService ?? false
    this.cause = options.cause
  }

  override toJSON(): ErrorJson {
    return {...super.toJSON(), mayHaveReachedService: this.mayHaveReachedService}
  }
}

/** The service answered 2xx but the body was not what the contract says (e.g. not JSON). */
export class ResponseError extends PaytxError {
  constructor(message: string, hint?: string, remedy?: Remedy) {
    super('response', EXIT.service, message, hint, remedy)
    this.name = 'ResponseError'
  }
}

/** Something this machine lacks or refuses (a program not installed, a tunnel that did not start): exit 1, with what to do. */
export class EnvironmentError extends PaytxError {
  constructor(message: string, hint?: string) {
    super('environment', EXIT.service, message, hint)
    this.name = 'EnvironmentError'
  }
}

/** Ctrl-C: raised after cleaning up, so the command exits 130. */
export class InterruptedError extends PaytxError {
  constructor(message = 'Interrupted.', hint?: string, remedy?: Remedy) {
    super('interrupted', EXIT.interrupted, message, hint, remedy)
    this.name = 'InterruptedError'
  }
}

/** Service error details keyed like `body.amount`, shown without the `body.` prefix. */
export function detailField(key: string): string {
  return key.replace(/^body\./, '')
}
