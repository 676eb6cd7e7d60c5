/**
 * The admin room: trigger, resend and reset under /_emulator/, their routes, and the client the
 * CLI uses to call them.
 */
export {guardAdminHost} from './admin-host.js'
export {EmulatorAdminClient, requireLocalProfile} from './admin-client.js'
export {adminRoutes} from './admin-routes.js'
export {triggerRoutes} from './trigger-routes.js'
export {ALLOWED_MOVES, movesMarkdownTable, resendWebhooks, triggerStatus} from './trigger.js'
