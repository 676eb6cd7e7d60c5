/** A 404 for a path the service does not have says so, instead of "check the id". */
import {describe, expect, it} from 'vitest'

import {explainUnknownPath} from '../../src/api/routes.js'
import {ServiceError} from '../../src/errors.js'
import {runCli} from '../helpers/cli.js'
import {startRecordingServer} from '../helpers/recording-server.js'

const notFound = (hint = 'Check the id') => new ServiceError({status: 404, method: 'GET', url: 'x', message: 'm', hint})

describe('explainUnknownPath', () => {
  it.each([
    ['POST', '/v1/transaction/tx-1/refund', 'api', 'The service has no POST /v1/transaction/tx-1/refund: the 404 is about the path, not an id. The paths it documents: POST /v1/customer'],
    ['GET', '/v1/refunds', 'api', 'The service has no GET /v1/refunds'],
    ['POST', '/v1/transaction/tx-1', 'api', 'The service takes GET /v1/transaction/<id>, not POST: pass -X GET.'],
    ['GET', '/h2h/tokenize/proxy/123', 'h2h', 'The service takes POST /tokenize/proxy/<proxy id>, not GET: pass -X POST.'],
    ['GET', '/v1/transaction/tx-1', 'api', 'Check the id'],
    ['GET', '/api/v1/transaction/tx-1/checkoutsuccess', 'api', 'Check the id'],
  ] as const)('%s %s (%s): %s', (method, path, target, hint) => {
    expect(explainUnknownPath(notFound(), method, path, target).hint).toContain(hint)
  })

  it('leaves other statuses alone', () => {
    const error = new ServiceError({status: 400, method: 'POST', url: 'x', message: 'm', hint: 'as it was'})
    expect(explainUnknownPath(error, 'POST', '/v1/nothing', 'api').hint).toBe('as it was')
  })

  it('paytx api -X POST .../refund answered 404: exit 1, says the service has no such path', async () => {
    const server = await startRecordingServer(() => ({status: 404, json: {code: '404', message: 'Not found'}}))
    try {
      const result = await runCli(['api', '-X', 'POST', '/v1/transaction/tx-1/refund'], {env: {PAYTX_BASE_URL: `${server.url}/v1`, PAYTX_API_KEY: 'sk_test_routes_0123456789'}})
      expect(result.code).toBe(1)
      expect(result.stderr).toContain('Hint: The service has no POST /v1/transaction/tx-1/refund: the 404 is about the path, not an id.')
      expect(result.stderr).not.toContain('Check the id')
    } finally {
      await server.close()
    }
  })
})
