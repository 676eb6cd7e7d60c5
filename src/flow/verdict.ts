/**
 * The one place a flow's conclusion becomes an exit code: 0 success, 3 final (or conclusive) and
 * not a success, 4 not conclusive in time. The `flow` command and the JSON result both use it.
 */
import {EXIT} from '../errors.js'

export interface FlowVerdict {
  /** Conclusive for the wait: final, or SETTLEMENT_REQUESTED when waiting `until` final. */
  conclusive: boolean
  success: boolean
}

export type FlowExitCode = typeof EXIT.ok | typeof EXIT.notSuccess | typeof EXIT.notFinal

export function flowExitCode(verdict: FlowVerdict): FlowExitCode {
  if (!verdict.conclusive) return EXIT.notFinal
  return verdict.success ? EXIT.ok : EXIT.notSuccess
}
