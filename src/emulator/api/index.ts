/**
 * The service's API room: the routes for customers, transactions and the card proxy, and the
 * resources behind them. The key checks every room's routes share are in ../auth.ts.
 */
export {apiRoutes} from './api-routes.js'
export {EmulatorResources} from './resources.js'
export {ANSWER_REQUESTS, withAnswerExtras} from './answer-extras.js'
export type {AnswerExtra, AnswerRequest} from './answer-extras.js'
