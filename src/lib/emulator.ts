/**
 * `paytx/emulator`: the emulator as a library, for a merchant's own tests. A facade: it only
 * re-exports the emulator's entry (src/emulator/index.ts); what it offers is defined there.
 */
export {ASSUMPTIONS, CARD_RECORDS, DEFAULT_ASSUMPTIONS, ID_KEY_CHOICES, WEBHOOK_PAYLOADS, startEmulator} from '../emulator/index.js'
export type {Assumption, AssumptionSettings, CardRecordShape, EmulatorEvent, EmulatorOptions, IdKeyChoice, PaymentProfileSetting, RunningEmulator, WebhookPayload} from '../emulator/index.js'
