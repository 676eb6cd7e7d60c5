/**
 * Readings: what the service showed for each switchable assumption, written by
 * `emulator verify --save` and adopted by `emulator start --readings`, the local profile's
 * embedded emulator (`emulator_readings`) and `emulator verify --readings`. Each reading maps onto
 * an existing switch of the emulator (its options); a reading the service did not show is null and
 * leaves the emulator's default. The additive fields the service sends are kept with their forms,
 * for people and later versions: the emulator does not send them.
 */
import * as z from 'zod'

import {InputError} from '../errors.js'
import {readRegularFileSync} from '../input/input-file.js'

import {CARD_RECORDS, ID_KEY_CHOICES, WEBHOOK_PAYLOADS} from '../emulator/index.js'
import type {EmulatorOptions} from '../emulator/index.js'

export const READINGS_VERSION = 1

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
      .array(z.object({request: z.string(), path: z.string(), form: z.string()}).strict())
      .describe('Fields only the service sent, with their JSON type: harmless to readers; the emulator does not send them.'),
  })
  .strict()

export type Readings = z.infer<typeof readingsSchema>
export type ReadingValues = Readings['assumptions']

export const NO_READINGS: ReadingValues = {'id-keys': null, 'card-record': null, 'webhook-body': null, 'webhook-retries': null, 'api-key-header': null}

export function readingsJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(readingsSchema, {target: 'draft-2020-12'}) as Record<string, unknown>
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
