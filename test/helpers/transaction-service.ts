/**
 * A stand-in for the service's transaction start, for the `transaction start` tests (in-process
 * and spawned alike): it echoes the request as the service does, amount as a string, details plus
 * the approval_url.
 */
import {TX_ID} from './fixtures.js'
import {type RecordingServer, startRecordingServer} from './recording-server.js'

export async function startTransactionService(): Promise<RecordingServer> {
  const server: RecordingServer = await startRecordingServer((req) =>
    req.method === 'POST' && req.path === '/v1/transaction/start'
      ? {
          json: {
            id: TX_ID,
            ...req.body,
            amount: String(req.body.amount),
            payment_product_type: req.body.payment_product,
            processor: req.body.payment_product,
            details: {...req.body.details, approval_url: `${server.url}/v1/transaction/${TX_ID}/authorize`},
            status: 'INITIATED',
            created_at: '2026-11-20T10:00:00.000Z',
            last_status_update: '2026-11-20T10:00:00.000Z',
          },
        }
      : undefined,
  )
  return server
}
