/**
 * Readings: what the service showed for each switchable assumption, written by
 * `emulator verify --save` and adopted by `emulator start --readings`, the local profile's
 * embedded emulator (`emulator_readings`) and `emulator verify --readings`. Each reading maps onto
 * an existing switch of the emulator (its options); a reading the service did not show is null and
 * leaves the emulator's default. The additive fields the service sends are kept with their forms
 * (and the status of the answer they came in): the emulator adds them to the same answers, with a
 * value of that form. The timings verify could observe (abandonment, the first webhook retry) map
 * onto the timing switches; those it cannot (moves after an approval) say why.
 */
import * as z from 'zod'

import {InputError} from '../errors.js'
import {readRegularFileSync} from '../input/input-file.js'

import {CARD_RECORDS, ID_KEY_CHOICES, WEBHOOK_PAYLOADS} from '../emulator/index.js'
import type {AnswerExtra, EmulatorOptions} from '../emulator/index.js'

export const READINGS_VERSION = 1

const timingReading = z
  .object({
    seen: z.enum(['observed', 'at-least', 'not-seen']).describe('observed: the value was seen; at-least: it is no less than value; not-seen: verify could not see it (how says why).'),
    value: z.number().nonnegative().nullable().describe('Milliseconds (a count for webhook-attempts); null when not seen.'),
    tolerance: z.number().nonnegative().nullable().describe('How far off value may be, in its unit; null when not observed.'),
    how: z.string().describe('How it was seen, or why it could not be.'),
  })
  .strict()

export const readingsSchema = z
  .object({
    version: z.literal(READINGS_VERSION).describe('The version of this file\'s shape.'),
    profile: z.string().describe('The profile verify ran against.'),
    taken_at: z.string().describe('When verify ran (ISO 8601).'),
    assumptions: z
      .object({
        'id-keys': z.enum(ID_KEY_CHOICES).nullable().describe('Id keys of the card record and the webhook body (emulator start --id-keys).'),
        'card-record': z.enum(CARD_RECORDS).nullable().describe('Names of the card record (emulator start --card-record).'),
        'webhook-body': z.enum(WEBHOOK_PAYLOADS).nullable().describe('Webhook body (emulator start --webhook-payload).'),
        'webhook-retries': z.enum(['retried', 'not-retried']).nullable().describe('Whether a webhook answered 500 was sent again (not-retried: emulator start --webhook-attempts 1).'),
        'api-key-header': z
          .string()
          .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/)
          .nullable()
          .describe('The header the service took the API key in (emulator start --api-key-header).'),
      })
      .strict()
      .describe('The reading of each switchable assumption, by the ids of `paytx emulator assumptions`; null: not seen.'),
    additive: z
      .array(
        z
          .object({
            request: z.string().describe('The request of verify whose answer had the field (customer, card, transaction-start, transaction, checkoutsuccess, transaction-start-sofort, invalid-amount, invalid-customer, unknown-transaction, wrong-key, webhook).'),
            status: z.number().int().optional().describe("The HTTP status of the service's answer (absent for a webhook body)."),
            path: z.string().describe('The field, dotted; `name[]` is an array\'s items.'),
            form: z.string().describe('Its JSON type, and for a string its shape: string (UUID), string (ISO 8601 time), string (digits).'),
          })
          .strict(),
      )
      .describe('Fields only the service sent, with their forms: harmless to readers; the emulator adds them to the same answers (not to webhook bodies) with a value of that form.'),
    timing: z
      .object({
        'abandon-after': timingReading.describe('Time after which an unfinished transaction became ABANDONED (emulator start --abandon-after).'),
        'settle-after': timingReading.describe('Time from SETTLEMENT_REQUESTED to SETTLEMENT_COMPLETED (emulator start --settle-after).'),
        'pending-for': timingReading.describe('Time a PENDING payment waited (emulator start --pending-for).'),
        'webhook-backoff': timingReading.describe('Wait before the first retry of a webhook answered 500 (emulator start --webhook-backoff).'),
        'webhook-attempts': timingReading.describe('Delivery attempts of a webhook answered 500 (emulator start --webhook-attempts); value: a count.'),
      })
      .strict()
      .optional()
      .describe('What verify observed of the timings; an observed one is adopted, one seen only as a lower bound (at-least) or not seen leaves the default.'),
  })
  .strict()

export type Readings = z.infer<typeof readingsSchema>
export type ReadingValues = Readings['assumptions']

export const NO_READINGS: ReadingValues = {'id-keys': null, 'card-record': null, 'webhook-body': null, 'webhook-retries': null, 'api-key-header': null}

export function readingsJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(readingsSchema, {target: 'draft-2020-12'}) as Record<string, unknown>
}

export type TimingReading = z.infer<typeof timingReading>
export type TimingReadings = NonNullable<Readings['timing']>

/** The request and answer status of the emulator each request of verify maps onto (the webhook body: none). */
const ANSWER_OF: Record<string, Omit<AnswerExtra, 'path' | 'value'>> = {
  customer: {request: 'customer', status: 200},
  card: {request: 'card', status: 200},
  'transaction-start': {request: 'transaction-start', status: 200, products: ['card', 'dummy']},
  transaction: {request: 'transaction', status: 200, products: ['card', 'dummy']},
  checkoutsuccess: {request: 'checkoutsuccess', status: 200},
  'transaction-start-sofort': {request: 'transaction-start', status: 200, products: ['sofort']},
  'invalid-amount': {request: 'transaction-start', status: 400},
  'invalid-customer': {request: 'customer', status: 400},
  'unknown-transaction': {request: 'transaction', status: 404},
  'wrong-key': {request: 'transaction', status: 401},
}

/** A value of a recorded form: a fixed UUID, the readings' own time, "0", "", 0, false, null, {} or []. */
export function sampleOfForm(form: string, takenAt: string): unknown {
  switch (form) {
    case 'string (UUID)':
      return '00000000-0000-4000-8000-000000000000'
    case 'string (ISO 8601 time)':
      return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(takenAt) ? takenAt : '1970-01-01T00:00:00.000Z'
    case 'string (digits)':
      return '0'
    case 'number':
      return 0
    case 'boolean':
      return false
    case 'null':
      return null
    case 'object':
      return {}
    case 'array':
      return []
    default:
      return ''
  }
}

/** The additive fields as extra answer fields of the emulator (webhook fields stay out: only answers carry them). */
export function answerExtrasOf(readings: Pick<Readings, 'additive' | 'taken_at'>): AnswerExtra[] {
  // An array whose items were recorded is made by its items' entries (one item), not empty.
  const madeByItems = (field: Readings['additive'][number]) => readings.additive.some((other) => other.request === field.request && other.path.startsWith(`${field.path}[]`))
  return readings.additive.flatMap((field) => {
    const answer = ANSWER_OF[field.request]
    if (!answer || madeByItems(field)) return []
    return [{...answer, ...(field.status === undefined ? {} : {status: field.status}), path: field.path, value: sampleOfForm(field.form, readings.taken_at)}]
  })
}

/** The timing switches the observed timings set (one seen only as a lower bound, or not seen, leaves the default). */
export function timingOptions(timing: Readings['timing']): Pick<EmulatorOptions, 'abandonAfterMs' | 'webhookBackoffMs' | 'webhookAttempts' | 'settleAfterMs' | 'pendingForMs'> {
  const observed = (key: keyof TimingReadings) => (timing?.[key].seen === 'observed' && timing[key].value !== null ? Math.round(timing[key].value) : undefined)
  const options: ReturnType<typeof timingOptions> = {}
  const set = <K extends keyof typeof options>(key: K, value: number | undefined) => void (value === undefined || (options[key] = value))
  set('abandonAfterMs', observed('abandon-after'))
  set('settleAfterMs', observed('settle-after'))
  set('pendingForMs', observed('pending-for'))
  set('webhookBackoffMs', observed('webhook-backoff'))
  set('webhookAttempts', observed('webhook-attempts'))
  return options
}

type AdoptedOptions = Pick<EmulatorOptions, 'assumptions' | 'apiKeyHeader' | 'webhookAttempts' | 'webhookBackoffMs' | 'abandonAfterMs' | 'settleAfterMs' | 'pendingForMs' | 'answerExtras'>

/** Everything a readings file sets on an emulator: its switches, the observed timings and the extra answer fields. */
export function readingsEmulatorOptions(readings: Readings): AdoptedOptions {
  const extras = answerExtrasOf(readings)
  return {...readingsToEmulatorOptions(readings.assumptions), ...timingOptions(readings.timing), ...(extras.length > 0 ? {answerExtras: extras} : {})}
}

/** The emulator options (its existing switches) that answer as the readings say. */
export function readingsToEmulatorOptions(readings: ReadingValues): Pick<EmulatorOptions, 'assumptions' | 'apiKeyHeader' | 'webhookAttempts'> {
  const assumptions: NonNullable<EmulatorOptions['assumptions']> = {}
  if (readings['id-keys']) assumptions.idKeys = readings['id-keys']
  if (readings['card-record']) assumptions.cardRecord = readings['card-record']
  if (readings['webhook-body']) assumptions.webhookPayload = readings['webhook-body']
  return {
    assumptions,
    ...(readings['api-key-header'] ? {apiKeyHeader: readings['api-key-header']} : {}),
    ...(readings['webhook-retries'] === 'not-retried' ? {webhookAttempts: 1} : {}),
  }
}

/** The readings in a file's text, or the problem with it (a sentence naming the file). */
export function parseReadings(text: string, file: string): Readings | string {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return `${file} is not JSON (${(error as Error).message})`
  }
  if (value && typeof value === 'object' && 'version' in value && (value as {version: unknown}).version !== READINGS_VERSION) {
    return `${file} is a readings file of version ${JSON.stringify((value as {version: unknown}).version)}; this paytx reads version ${READINGS_VERSION}`
  }
  const parsed = readingsSchema.safeParse(value)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]!
  return `${file}: ${issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''}${issue.message}`
}

/** A card record's id keys and names, as readings. */
export function cardReadings(card: unknown): Pick<ReadingValues, 'id-keys' | 'card-record'> {
  const record = card && typeof card === 'object' ? (card as Record<string, unknown>) : {}
  const names = 'last4' in record || 'holder_name' in record ? 'request-names' : 'last_four' in record || 'card_holder_name' in record ? 'earlier' : null
  return {'id-keys': idKeysOf(record), 'card-record': names}
}

export function idKeysOf(body: unknown): ReadingValues['id-keys'] {
  const record = body && typeof body === 'object' ? (body as Record<string, unknown>) : {}
  if ('id' in record && '_id' in record) return 'both'
  if ('id' in record) return 'id'
  if ('_id' in record) return '_id'
  return null
}

/** The emulator's readings, as `emulator assumptions` names them (what `--json` reports). */
export function emulatorReadings(running: {assumptions: {idKeys: string; cardRecord: string; webhookPayload: string}; apiKeyHeader: string}, webhookAttempts: number): Record<string, string> {
  return {
    'id-keys': running.assumptions.idKeys,
    'card-record': running.assumptions.cardRecord,
    'webhook-body': running.assumptions.webhookPayload,
    'webhook-retries': webhookAttempts > 1 ? 'retried' : 'not-retried',
    'api-key-header': running.apiKeyHeader,
  }
}

/** Largest readings file read. */
const MAX_READINGS_BYTES = 1024 * 1024

/**
 * The readings in `file`, or an InputError naming `flag` (or the setting) and what is wrong: read
 * before anything listens or is sent.
 */
export function loadReadingsFile(file: string, flag: string): Readings {
  let text: string
  try {
    text = readRegularFileSync(file, MAX_READINGS_BYTES).toString('utf8')
  } catch (error) {
    throw new InputError(`${flag}: cannot read ${file} (${(error as Error).message}).`, {flag, hint: 'Write one with `paytx emulator verify --profile <sandbox> --save <file>`.'})
  }
  const readings = parseReadings(text, file)
  if (typeof readings === 'string') throw new InputError(`${flag}: ${readings}.`, {flag, hint: 'A readings file is written by `paytx emulator verify --save <file>` (schema: schemas/emulator-readings.schema.json).'})
  return readings
}
