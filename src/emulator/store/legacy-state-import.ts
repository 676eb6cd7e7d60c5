/**
 * paytx 0.1 kept the emulator's state in a JSON file (`--state-file`). Given to `--store`, such a
 * file is imported once: its data goes into a new store at the same path, and the JSON file is
 * kept beside it as `<file>.v0.1.json`. A JSON file that is not 0.1 state is refused, untouched.
 */
import {existsSync, readFileSync, renameSync, rmSync} from 'node:fs'

import type {Customer} from '../../api/schemas.js'
import {StoreError} from './store-error.js'
import {EmulatorStore, type PaymentProfile, type StoredCard, type StoredTransaction, type WebhookDelivery} from './store.js'

const LEGACY_MARKER = 'paytx_emulator_state'

interface LegacyStateDocument {
  payment_profiles: PaymentProfile[]
  customers: Customer[]
  cards: StoredCard[]
  transactions: StoredTransaction[]
  webhook_deliveries: WebhookDelivery[]
}

/** The document, or a description of why it is not paytx 0.1 emulator state. */
function readLegacyDocument(text: string): LegacyStateDocument | string {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return `is not valid JSON (${(error as Error).message})`
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return 'is not a JSON object'
  const doc = value as Record<string, unknown>
  if (doc[LEGACY_MARKER] !== 1) return `has no "${LEGACY_MARKER}": 1 marker (not a paytx 0.1 emulator state file)`
  const hasId = (item: unknown) => !!item && typeof item === 'object' && typeof (item as {id?: unknown}).id === 'string'
  for (const key of ['payment_profiles', 'customers', 'cards', 'webhook_deliveries'] as const) {
    const items = doc[key]
    if (!Array.isArray(items)) return `"${key}" is not a list`
    const bad = items.findIndex((item) => !hasId(item))
    if (bad !== -1) return `"${key}"[${bad}] is not a valid entry`
  }
  const transactions = doc.transactions
  if (!Array.isArray(transactions)) return '"transactions" is not a list'
  const bad = transactions.findIndex((entry) => !entry || typeof entry !== 'object' || !hasId(entry.transaction) || !entry.transaction.details)
  if (bad !== -1) return `"transactions"[${bad}] is not a valid entry`
  return doc as unknown as LegacyStateDocument
}

/** When a stored transaction's next move is due, counted from `since` (the lifecycle's rule, passed in so that the store does not depend on it). */
export type DueAtRule = (entry: StoredTransaction, since: number) => number | undefined

/** Imports the 0.1 state file at `path` into a store at the same path; returns where the JSON file was kept. */
export function importLegacyStateFile(path: string, dueAtRule: DueAtRule, now: number): string {
  const doc = readLegacyDocument(readFileSync(path, 'utf8'))
  if (typeof doc === 'string') {
    throw new StoreError(path, `is a JSON file, not an emulator store: it ${doc}.`, 'It was left untouched: pass another --store (a new file is created), or move it away.')
  }
  const kept = `${path}.v0.1.json`
  if (existsSync(kept)) {
    throw new StoreError(path, `is a paytx 0.1 state file, but ${kept} already exists, so it cannot be kept there while importing.`, `Move ${kept} away, then run the command again.`)
  }
  const importing = `${path}.importing-${process.pid}`
  for (const leftover of ['', '-wal', '-shm']) rmSync(`${importing}${leftover}`, {force: true})
  const store = EmulatorStore.open(importing)
  try {
    store.write(() => {
      for (const profile of doc.payment_profiles) {
        store.addOrganisation(profile.organisation, profile.created_at)
        store.putPaymentProfile(profile, {replaceWebhook: true})
      }
      for (const customer of doc.customers) store.insertCustomer(customer)
      for (const card of doc.cards) store.insertCard(card)
      for (const entry of doc.transactions) {
        const dueAt = dueAtRule(entry, Date.parse(entry.transaction.last_status_update))
        store.insertTransaction({...entry, ...(dueAt === undefined ? {} : {dueAt})})
      }
      // 0.1 kept no body for a pending delivery, so it cannot be sent again: it is logged as failed.
      for (const delivery of doc.webhook_deliveries) {
        store.enqueueDelivery({...delivery, payload: ''}, now)
        store.recordAttempt({...delivery, state: delivery.state === 'pending' ? 'failed' : delivery.state}, undefined)
      }
    })
  } catch (error) {
    store.close()
    for (const leftover of ['', '-wal', '-shm']) rmSync(`${importing}${leftover}`, {force: true})
    throw new StoreError(path, `is a paytx 0.1 state file that could not be imported (${(error as Error).message}).`)
  }
  store.closeForMove()
  renameSync(path, kept)
  renameSync(importing, path)
  return kept
}
