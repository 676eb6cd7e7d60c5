/**
 * The dashboard room: its routes and pages (transactions, their history and webhooks).
 */
export {dashboardRoutes} from './dashboard-routes.js'
