/**
 * The time room: the clock (real or injected), the transaction lifecycle's timed moves, the
 * scheduler that wakes for due work, and the catch-up thread that takes a backlog of due moves
 * off the thread answering requests.
 */
export {systemClock} from './clock.js'
export type {Clock, TimerHandle} from './clock.js'
export {STATUS_REASONS, TransactionLifecycle, isAwaitingApproval, nextMoveDueAt} from './lifecycle.js'
export type {LifecycleSettings} from './lifecycle.js'
export {CatchUpThread} from './catch-up.js'
export {OrderedStatusReport} from './ordered-status-report.js'
export {DueWorkScheduler} from './scheduler.js'
