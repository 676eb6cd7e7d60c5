/**
 * The time room: the clock (real or injected), the transaction lifecycle's timed moves and the
 * scheduler that wakes for due work.
 */
export {systemClock} from './clock.js'
export type {Clock, TimerHandle} from './clock.js'
export {STATUS_REASONS, TransactionLifecycle, isAwaitingApproval, nextMoveDueAt} from './lifecycle.js'
export type {LifecycleSettings} from './lifecycle.js'
export {DueWorkScheduler} from './scheduler.js'
