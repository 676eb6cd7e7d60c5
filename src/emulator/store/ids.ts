/**
 * The ids the emulator's store accepts besides its defaults: organisation and payment profile
 * UUIDs, as given on the command line (`<uuid>`, `<uuid>=<webhook url>`) or to the admin routes.
 */
import {isAbsoluteHttpUrl} from '../../http/url.js'
import type {PaymentProfileSetting} from '../options.js'

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
