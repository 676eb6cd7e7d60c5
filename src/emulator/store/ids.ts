/**
 * The ids the emulator's store accepts besides its defaults: organisation and payment profile
 * UUIDs, as given on the command line (`<uuid>`, `<uuid>=<webhook url>`) or to the admin routes;
 * and the ids it gives webhook deliveries.
 */
import {randomFillSync} from 'node:crypto'

import {isAbsoluteHttpUrl} from '../../http/url.js'

/** An organisation, or a payment profile of one, that the store accepts besides the defaults. */
export interface PaymentProfileSetting {
  id: string
  /** Its webhook_transaction_update; kept as stored when not given. */
  webhookUrl?: string
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export function isUuid(value: string): boolean {
  return UUID.test(value)
}

/** `<uuid>` or `<uuid>=<webhook url>`; a description of the problem when it is neither. */
export function parsePaymentProfileSetting(text: string): PaymentProfileSetting | string {
  const equals = text.indexOf('=')
  const id = (equals === -1 ? text : text.slice(0, equals)).trim()
  const webhookUrl = equals === -1 ? undefined : text.slice(equals + 1).trim()
  if (!isUuid(id)) return `"${id}" is not a UUID`
  if (webhookUrl !== undefined && !isAbsoluteHttpUrl(webhookUrl)) return `"${webhookUrl}" is not an absolute http(s) URL`
  return {id: id.toLowerCase(), ...(webhookUrl === undefined ? {} : {webhookUrl})}
}

/** Random bytes for 256 ids, filled at once (as node:crypto's randomUUID does). */
const randomPool = Buffer.alloc(16 * 256)
let poolOffset = randomPool.length

/**
 * A webhook delivery's id: a UUID of version 7 (RFC 9562), whose first 48 bits are `at` in
 * milliseconds and the rest random. Deliveries' ids follow the order they were queued in, so
 * that the index of ids grows at its end: a catch-up queueing 100,000 of them writes a few pages
 * of it per commit instead of a page for almost every delivery.
 */
export function timeOrderedUuid(at: number): string {
  if (poolOffset === randomPool.length) {
    randomFillSync(randomPool)
    poolOffset = 0
  }
  const bytes = randomPool.subarray(poolOffset, poolOffset + 16)
  poolOffset += 16
  bytes.writeUIntBE(Math.max(0, Math.floor(at)) % 2 ** 48, 0, 6)
  bytes[6] = 0x70 | (bytes[6] & 0x0f)
  bytes[8] = 0x80 | (bytes[8] & 0x3f)
  const hex = bytes.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
