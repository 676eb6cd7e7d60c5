/**
 * The emulator's programmatic entry point: start it, read its addresses and keys, close it; and
 * its public words (the assumptions it makes, how it shows a webhook address). The rooms
 * (store/, faults/, admin/, ...) have their own index.ts for what other code uses of them.
 * Kept light (types, two small tables and a lazy import) so that importing it costs nothing
 * until it starts.
 */
import type {EmulatorOptions, RunningEmulator} from './options.js'

export {ASSUMPTIONS, ASSUMPTION_RULE, CARD_RECORDS, DEFAULT_ASSUMPTIONS, ID_KEY_CHOICES, WEBHOOK_PAYLOADS, assumptionsMarkdownTable} from './assumptions.js'
export type {Assumption, AssumptionSettings, CardRecordShape, IdKeyChoice, WebhookPayload} from './assumptions.js'
export {displayWebhookUrl, formatEvent} from './events.js'
export type {AnswerExtra, AnswerRequest} from './api/index.js'
export type {Clock} from './time/index.js'
export type {EmulatorEvent} from './events.js'
export type {EmulatorOptions, EmulatorRunEvent, PaymentProfileSetting, RunningEmulator} from './options.js'

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const {startEmulatorServer} = await import('./server.js')
  return startEmulatorServer(options)
}
