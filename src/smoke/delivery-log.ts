/**
 * The emulator's webhook delivery log of one transaction, read over the service's own client
 * (GET /_emulator/webhooks?transaction=<id>, with the API key so that addresses come whole): the
 * source of `expect.delivered`. A server that answers without a log is not a paytx emulator.
 */
import {joinUrl} from '../api/http-client.js'
import type {PaymentService} from '../api/service.js'
import {ResponseError} from '../errors.js'
import type {LoggedDelivery} from './merchant-checks.js'
import type {CaseServices} from './runner.js'

export function deliveryLogOf(service: PaymentService): CaseServices['deliveries'] {
  return async (transactionId) => {
    const {profile} = service.target
    const url = joinUrl(new URL(profile.base_url).origin, `/_emulator/webhooks?transaction=${encodeURIComponent(transactionId)}`)
    const response = await service.http.request<{deliveries?: unknown}>({
      method: 'GET',
      url,
      headers: profile.api_key ? {[profile.api_key_header]: profile.api_key} : {},
    })
    const deliveries = response.body?.deliveries
    if (!Array.isArray(deliveries)) {
      throw new ResponseError(`${new URL(url).origin}/_emulator/webhooks answered ${response.status} without a delivery log.`, "The profile's address does not look like a paytx emulator.")
    }
    return deliveries as LoggedDelivery[]
  }
}
