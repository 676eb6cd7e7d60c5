/**
 * The service's API room: the routes for customers, transactions and the card proxy, the
 * resources behind them, and the key checks the other rooms' routes share.
 */
export {apiRoutes} from './api-routes.js'
export {hasApiKey, requireApiKey} from './auth.js'
export type {EmulatorKeys} from './auth.js'
export {EmulatorResources} from './resources.js'
