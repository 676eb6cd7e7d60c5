/**
 * Which listed assumption (`paytx emulator assumptions`) a difference touches: only the one whose
 * reading the difference is about. A 201 for a card, an error wrapped in `{error: {...}}` or a
 * renamed transaction field touches none: then the emulator's contract may be wrong there.
 */
import {CUSTOMER_OPTIONAL_FIELDS} from '../api/contract.js'
import type {DifferenceKind} from './compare.js'

export const ERROR_PROBES = new Set(['invalid-amount', 'invalid-customer', 'unknown-transaction', 'wrong-key'])
const ID_KEYS = new Set(['id', '_id'])
const FIELD_KINDS = new Set<DifferenceKind>(['only-real', 'only-emulator', 'type'])

export function attribute(probe: string, path: string, kind: DifferenceKind): string[] {
  const found: string[] = []
  const field = FIELD_KINDS.has(kind)
  // The spec shows no card record and no webhook body: there, which id key is sent is an assumption.
  if ((probe === 'card' || probe === 'webhook') && field && ID_KEYS.has(path)) found.push('id-keys')
  if (probe === 'card' && path !== '' && field) found.push('card-record')
  if (probe === 'webhook' && path !== '' && !ID_KEYS.has(path)) found.push('webhook-body')
  if (probe === 'customer' && (CUSTOMER_OPTIONAL_FIELDS as readonly string[]).includes(path)) found.push('customer-optional-fields')
  if (probe === 'customer' && path === 'status_reason') found.push('customer-status-reason')
  if (path.startsWith('details.sender')) found.push('sofort-sender')
  if (ERROR_PROBES.has(probe) && (kind === 'http-status' || (path === 'code' && (kind === 'value' || kind === 'type')))) found.push('error-statuses')
  return found
}

/** The words for a difference that touches no listed assumption. */
export const NO_ASSUMPTION = "no listed assumption: the emulator's contract may be wrong here"
