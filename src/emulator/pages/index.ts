/**
 * The pages room: the approval page (card, Sofort bank, dummy) and its form's routes.
 */
export {approvalRoutes} from './approval-routes.js'
export {DUMMY_OUTCOME_CHOICES, decideApproval, renderApprovalPage, renderErrorPage} from './pages.js'
export type {ApprovalDecision, ApprovalPageContext} from './pages.js'
