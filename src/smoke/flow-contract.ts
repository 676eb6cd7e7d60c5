// TEMPORARY until the flow lands: the agreed interface of src/flow/run-flow.ts.
import type {CustomerRequest, Product, Transaction} from '../api/contract.js'
export interface FlowOptions {
  product: Product
  amount: number
  customer?: {id: string} | {data: CustomerRequest}
  card?: {id: string} | {pan: string; expiryMonth?: string; expiryYear?: string; holderName?: string}
  cvv?: string
  descriptor?: string
  merchantReference?: string
  extraFields?: Record<string, unknown>
  approve?: string
  openBrowser: boolean
  webhook: {mode: 'local'} | {mode: 'url'; url: string} | {mode: 'none'}
  listenerPort?: number
  waitTimeoutMs: number
  untilSettled: boolean
  signal?: AbortSignal
}
export interface FlowResult {
  exitCode: 0 | 3 | 4
  profile: string
  environment: string
  customerId: string
  cardId?: string
  cardLast4?: string
  transactionId: string
  product: Product
  amount: number
  status: string
  final: boolean
  success: boolean
  statusReason: string
  redirect: {received: boolean; transactionId?: string; error?: string}
  webhooks: {type: string; transactionId?: string; status?: string; receivedAt: string; duplicate: boolean}[]
  steps: {name: string; durationMs: number}[]
  durationMs: number
  transaction: Transaction
}
export interface FlowReporter {
  start(step: string, text: string): void
  succeed(step: string, text: string): void
  fail(step: string, text: string): void
  info(text: string): void
}
