/**
 * What the two sides did beside answering (webhooks, a retry after a 500, the header the key
 * travels in) as differences, and, for every listed assumption, whether this run checked it and
 * how, or why it could not.
 */
import {ASSUMPTIONS} from '../emulator/index.js'
import {formatExactDuration} from '../duration.js'
import {type Difference, compareAnswers, makeDifference} from './compare.js'
import type {WebhookSighting} from './webhooks.js'

export interface AssumptionCheck {
  /** The id `paytx emulator assumptions` prints. */
  assumption: string
  checked: 'yes' | 'partly' | 'no'
  /** How it was checked, or why it was not. */
  how: string
}

interface Sightings {
  real: WebhookSighting
  emulator: WebhookSighting
}

function webhookDifferences(sightings: Sightings, waitMs: number): Difference[] {
  const {real, emulator} = sightings
  const wait = formatExactDuration(waitMs)
  if (real.attempts === 0 || emulator.attempts === 0) {
    if (real.attempts === emulator.attempts) return []
    const none = `no webhook within ${wait} of creation`
    const one = 'a webhook at creation (INITIATED)'
    return [makeDifference('webhook', '', 'behaviour', real.attempts === 0 ? none : one, emulator.attempts === 0 ? none : one, ['webhook-statuses'])]
  }
  const differences = compareAnswers('webhook', {status: 0, body: real.body}, {status: 0, body: emulator.body})
  if (real.retried !== emulator.retried) {
    const said = (retried: boolean) => (retried ? 'sent again after a 500' : `not sent again within ${wait} after a 500`)
    differences.push(makeDifference('webhook-retry', '', 'behaviour', said(real.retried), said(emulator.retried), ['webhook-retries']))
  }
  return differences
}

export function sideDifferences(seen: {realHeader: string; emulatorHeader: string; sightings?: Sightings; waitMs: number; statuses?: {real?: string; emulator?: string}}): Difference[] {
  const differences: Difference[] = []
  const {statuses} = seen
  if (statuses && statuses.real !== statuses.emulator) {
    const said = (status?: string) => (status === 'INITIATED' ? 'left it INITIATED' : `moved it to ${status}`)
    differences.push(makeDifference('status-moves', '', 'behaviour', `${said(statuses.real)} by the end`, `${said(statuses.emulator)}`, ['status-moves']))
  }
  if (seen.realHeader.toLowerCase() !== seen.emulatorHeader.toLowerCase()) {
    differences.push(makeDifference('api-key', '', 'behaviour', `takes the key in ${seen.realHeader}`, `takes it in ${seen.emulatorHeader}`, ['api-key-header']))
  }
  return [...differences, ...(seen.sightings ? webhookDifferences(seen.sightings, seen.waitMs) : [])]
}

const NO_LISTENER = "not checked: the service is not on this machine and cannot reach verify's webhook listener; pass --tunnel, or --webhook-url with --webhook-port"


function how(id: string, sent: (probe: string) => boolean, sightings: Sightings | undefined, webhooks: boolean): Omit<AssumptionCheck, 'assumption'> {
  const webhookSeen = sightings !== undefined && sightings.real.attempts > 0 && sightings.emulator.attempts > 0
  const webhookWhy = webhooks ? 'not checked: no webhook came from one side in the time allowed' : NO_LISTENER
  switch (id) {
    case 'webhook-body':
      return webhookSeen ? {checked: 'yes', how: "the dummy transaction's first webhook body, field by field"} : {checked: 'no', how: webhookWhy}
    case 'id-keys':
      if (sent('card')) return {checked: webhookSeen ? 'yes' : 'partly', how: webhookSeen ? 'the card record and the webhook body' : `the card record only; webhook body ${webhookWhy}`}
      return webhookSeen ? {checked: 'partly', how: 'the webhook body only (no card proxy in the profile)'} : {checked: 'no', how: 'no card proxy in the profile and no webhook'}
    case 'card-record':
      return sent('card') ? {checked: 'yes', how: 'the test card through the card proxy'} : {checked: 'no', how: 'not checked: the profile has no card proxy'}
    case 'customer-optional-fields':
      return sent('customer') ? {checked: 'yes', how: 'the sample customer: house_number_suffix and fax_number sent, kept as sent'} : {checked: 'no', how: 'the customer was not sent'}
    case 'customer-status-reason':
      return sent('customer') ? {checked: 'yes', how: 'the sample customer\'s status_reason'} : {checked: 'no', how: 'the customer was not sent'}
    case 'sofort-sender':
      return sent('transaction-start-sofort') ? {checked: 'yes', how: 'a sofort transaction: every sender field a string'} : {checked: 'no', how: 'the sofort transaction was not sent'}
    case 'webhook-statuses':
      return webhookSeen || sightings ? {checked: 'partly', how: 'creation (INITIATED) sends one; later moves need an approval verify cannot give on the service'} : {checked: 'no', how: webhookWhy}
    case 'webhook-retries':
      return webhookSeen
        ? {checked: 'yes', how: 'the first delivery answered 500: sent again or not, and after how long (read as --webhook-backoff); verify accepts the retry, so how many attempts the service makes is not seen (only "at least 2")'}
        : {checked: 'no', how: webhookWhy}
    case 'status-moves':
      return {
        checked: 'partly',
        how: "the dummy transaction's status on creation and again at the end (after --webhook-wait): a move without the payer, such as an early abandonment, timed by the service's own times (read as --abandon-after); moves after an approval, and so --settle-after and --pending-for, need the payer on the service's page: not read",
      }
    case 'error-statuses':
      return sent('invalid-amount') ? {checked: 'yes', how: 'four refused requests: status codes and `code`'} : {checked: 'no', how: 'the refused requests were not sent'}
    case 'api-key-header':
      return {checked: 'yes', how: "the profile's header was accepted; compared with the emulator's"}
    default:
      return {checked: 'no', how: 'verify has no check for it yet'}
  }
}

export function assumptionChecks(seen: {probes: {probe: string; skipped?: string}[]; sightings?: Sightings; webhooks: boolean; refused: boolean}): AssumptionCheck[] {
  const sent = (name: string) => seen.probes.some((probe) => probe.probe === name && !probe.skipped)
  return ASSUMPTIONS.map(({id}) => (seen.refused ? {assumption: id, checked: 'no', how: 'the service refused the key'} : {assumption: id, ...how(id, sent, seen.sightings, seen.webhooks)}))
}
