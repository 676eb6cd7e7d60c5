/**
 * What the emulator assumes where the spec (service-api.md) is silent, as one table: the choice,
 * why (the spec's line or the source), and the switch where another reading is plausible. The
 * one rule behind every row: code that works against the emulator must not break on any answer
 * the spec allows, so where the spec is silent the emulator takes the narrowest reading.
 *
 * `paytx emulator assumptions`, the section "What the emulator assumes" of docs/emulator.md and the settings
 * the emulator runs with all come from here.
 */

export const ASSUMPTION_RULE =
  'Code that works against the emulator must not break on any answer the spec allows: where the spec is silent, the emulator takes the narrowest reading.'

export const WEBHOOK_PAYLOADS = ['minimal', 'full'] as const
export type WebhookPayload = (typeof WEBHOOK_PAYLOADS)[number]

export const ID_KEY_CHOICES = ['both', 'id', '_id'] as const
export type IdKeyChoice = (typeof ID_KEY_CHOICES)[number]

export const CARD_RECORDS = ['earlier', 'request-names'] as const
export type CardRecordShape = (typeof CARD_RECORDS)[number]

/** The switchable readings an emulator runs with. */
export interface AssumptionSettings {
  webhookPayload: WebhookPayload
  idKeys: IdKeyChoice
  cardRecord: CardRecordShape
}

export const DEFAULT_ASSUMPTIONS: AssumptionSettings = {webhookPayload: 'minimal', idKeys: 'both', cardRecord: 'earlier'}

export interface Assumption {
  /** A short stable name (for --json and tests). */
  id: string
  /** What the spec leaves open, or states. */
  topic: string
  /** What the emulator does by default. */
  choice: string
  /** The spec's line or the source the choice rests on. */
  why: string
  /** The `paytx emulator start` flag that picks another reading, when one is plausible. */
  switch?: string
}

export const ASSUMPTIONS: readonly Assumption[] = [
  {
    id: 'webhook-body',
    topic: 'Webhook body',
    choice: '`type` and the transaction id only; no `status`, no amount. Receivers re-fetch the transaction.',
    why: 'service-api.md Events 3: "Payload shape ... not shown"; api-notes.md: clients relied only on `type` and `_id` and re-fetch, never trusting the body.',
    switch: '`--webhook-payload full`: also `status` and the whole transaction (paytx 0.1\'s body)',
  },
  {
    id: 'id-keys',
    topic: 'Id key where the spec shows no record (webhook body, card record)',
    choice: 'Both `id` and `_id`, same value.',
    why: 'service-api.md names every id `id`; api-notes.md: the earlier generation and its clients used `_id` ("Read `id`, fall back to `_id`"). Each known reader finds its key; a reader of one key alone may break on the real service.',
    switch: '`--id-keys id` or `--id-keys _id`: send only that key, to check a handler reads either',
  },
  {
    id: 'card-record',
    topic: 'Card record returned by the card proxy',
    choice: 'The earlier generation\'s names for what the emulator knows: the id, `brand`, `card_holder_name`, `expiry_month`, `expiry_year`, `last_four`, `organisation`. Nothing no source shows (no `customer`, `created_at`).',
    why: 'service-api.md Card: "Not shown: the fields of the card record"; api-notes.md Cards lists the earlier card object (`card_holder_name`, `last_four`, ...), "real answers lacked some of them".',
    switch: '`--card-record request-names`: the request\'s names plus `last4`, `customer`, `created_at` (paytx 0.1\'s record)',
  },
  {
    id: 'customer-optional-fields',
    topic: 'Customer `fax_number`, `house_number_suffix`, `social_security_number`, `segment`',
    choice: 'Kept as sent (a string); `""` only when not sent.',
    why: 'service-api.md Customer response: each is "empty string when not set".',
  },
  {
    id: 'customer-status-reason',
    topic: 'Customer `status_reason`',
    choice: '`""` (a new customer is `unverified` with no reason).',
    why: 'service-api.md Customer response: "empty string when not set"; status `unverified`.',
  },
  {
    id: 'sofort-sender',
    topic: 'sofort `details.sender`',
    choice: 'Every field a non-empty string from the start except `bank_name`, which stays `""` until the payer picks a bank on the bank page.',
    why: 'service-api.md Response details: sender fields are "all strings; bank_name may be an empty string".',
  },
  {
    id: 'webhook-statuses',
    topic: 'Which status changes send a webhook',
    choice: 'Every change, creation (`INITIATED`) included; the same status may come more than once (resend, retries).',
    why: 'service-api.md Events 3: "trigger statuses ... not shown"; api-notes.md: "The same status can be delivered more than once: receivers de-duplicate".',
  },
  {
    id: 'webhook-retries',
    topic: 'Webhook retries and signing',
    choice: 'Retried on a non-2xx answer or no answer, with exponential back-off; never signed.',
    why: 'service-api.md Events 3: retries and signing "not shown"; api-notes.md: "No signature".',
    switch: '`--webhook-attempts 1`: no retries',
  },
  {
    id: 'status-moves',
    topic: 'Moves between statuses',
    choice: 'Only the moves in "Status over time" (and `paytx emulator trigger`, which refuses others without `--force`).',
    why: 'service-api.md States: transitions "not shown beyond the creation row"; api-notes.md: final states, UNKNOWN not final, abandonment after about 7 minutes.',
    switch: '`--settle-after`, `--pending-for`, `--abandon-after`',
  },
  {
    id: 'error-statuses',
    topic: 'HTTP statuses and `code` of errors',
    choice: '400 validation, 401 keys, 404 unknown ids and paths; `code` is the status as three digits.',
    why: 'service-api.md Errors 4-5: codes and statuses "not shown"; api-notes.md: validation is 400 with `details` keyed `body.<field>`, unknown ids and bad keys "likely 404 / 401".',
  },
  {
    id: 'api-key-header',
    topic: 'API key header',
    choice: '`X-APIKEY: <key>`, no scheme word.',
    why: 'service-api.md Authentication 3: "not shown"; api-notes.md Authentication.',
    switch: '`--api-key-header`',
  },
]

/** The table of docs/emulator.md, written from `ASSUMPTIONS` (a test checks the page holds exactly this). */
export function assumptionsMarkdownTable(): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|')
  const rows = ASSUMPTIONS.map((row) => `| ${cell(row.topic)} | ${cell(row.choice)} | ${cell(row.why)} | ${row.switch ? cell(row.switch) : 'none'} |`)
  return ['| where | the emulator\'s choice | why | another reading |', '|---|---|---|---|', ...rows].join('\n')
}
