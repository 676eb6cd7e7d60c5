/**
 * `paytx/contract`: the service's contract as paytx reads it, for a merchant's own code and tests:
 * products, statuses with the final and success sets, paths and headers, the request and answer
 * types (inferred from the zod schemas the CLI validates with), and the OpenAPI document. A
 * facade: it only re-exports src/api/.
 */
export {
  API_PATHS,
  DEFAULT_API_KEY_HEADER,
  FINAL_STATUSES,
  PRODUCTS,
  PROXY_KEY_HEADER,
  STATUSES,
  SUCCESS_STATUSES,
  isFinalStatus,
  isKnownStatus,
  isSuccessStatus,
} from '../api/contract.js'
export type {Product, TransactionStatus} from '../api/contract.js'
export type {Card, CardRequest, CheckoutSuccess, Customer, CustomerRequest, ServiceErrorBody, Transaction, TransactionStartRequest, TransactionWebhook} from '../api/schemas.js'
export {openApiDocument} from '../api/openapi.js'
