/**
 * A stand-in for a production service and two profiles on it (acme-live: production, acme-test:
 * sandbox), for the production-line tests, in-process and spawned alike.
 */
import {CUSTOMER_RESPONSE} from './fixtures.js'
import {type RecordingServer, startRecordingServer} from './recording-server.js'

export const API_KEY = 'sk_live_banner_0123456789abcd'
export const PROXY_KEY = 'pk_live_banner_fedcba987654'
export const TX_ID = '9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c'
export const TX = {id: TX_ID, status: 'SETTLEMENT_COMPLETED', amount: '1499', payment_product: 'dummy', details: {}, created_at: '2026-11-20T10:00:00.000Z', last_status_update: '2026-11-20T10:00:03.123Z'}

/** Answers customer create, tokenize, start (tx-live-1, IN_PROGRESS) and the lookups of TX_ID. */
export async function startProductionService(): Promise<RecordingServer> {
  const server: RecordingServer = await startRecordingServer((req) => {
    if (req.method === 'POST' && req.path === '/v1/customer') return {json: CUSTOMER_RESPONSE}
    if (req.method === 'POST' && req.path.startsWith('/h2h/tokenize/')) return {json: {id: 'card-live-1', brand: 'VISA', last4: '3153'}}
    if (req.method === 'POST' && req.path === '/v1/transaction/start') {
      return {json: {...TX, id: 'tx-live-1', status: 'INITIATED', details: {approval_url: `${server.url}/v1/transaction/tx-live-1/authorize`}}}
    }
    if (req.path === `/v1/transaction/${TX_ID}/checkoutsuccess`) return {json: {status: 'SETTLEMENT_COMPLETED', status_reason: '', success: true}}
    if (req.path === `/v1/transaction/${TX_ID}`) return {json: TX}
    if (req.path === '/v1/transaction/tx-live-1/checkoutsuccess') return {json: {status: 'IN_PROGRESS', status_reason: '', success: false}}
    if (req.path === '/v1/transaction/tx-live-1') return {json: {...TX, id: 'tx-live-1', status: 'IN_PROGRESS'}}
    return undefined
  })
  return server
}

/** The two profiles, each as `profile add` arguments with its keys for stdin. */
export function bannerProfiles(serviceUrl: string): {argv: string[]; input: string}[] {
  return [['acme-live', 'production'], ['acme-test', 'sandbox']].map(([name, env]) => ({
    argv: ['profile', 'add', name, '--env', env, '--base-url', `${serviceUrl}/v1`, '--h2h-url', `${serviceUrl}/h2h`, '--proxy-id', '1234567890123456', '--organisation', 'org-1', '--payment-profile', 'pp-1', '--api-key-stdin', '--proxy-key-stdin', '--insecure-storage'],
    input: `${API_KEY}\n${PROXY_KEY}\n`,
  }))
}
