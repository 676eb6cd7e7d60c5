/**
 * The store room: the SQLite database and its migrations, the queries (lists and search on a
 * thread of their own), the write lock's turns with a worker, the 0.1 JSON import, where the
 * store lives, and the record shapes the API answers with. Other code imports this file
 * only; the files beside it are the room's own.
 */
export {IN_MEMORY_STORE, SCHEMA_VERSION} from './database.js'
export {readStoreFileAlone} from './read-only.js'
export type {StoreReading} from './read-only.js'
export {StoreError} from './store-error.js'
export {EMULATOR_APPLICATION_ID, checkSqliteIdentity, storeFileKind} from './store-file.js'
export {isUuid, parsePaymentProfileSetting, timeOrderedUuid} from './ids.js'
export type {PaymentProfileSetting} from './ids.js'
export {importLegacyStateFile} from './legacy-state-import.js'
export {approvalUrl, cardRecord, cardView, webhookBody} from './record-shapes.js'
export {dataFolderExposure, defaultStorePath, paytxDataDir, prepareDefaultStorePath, resolveStoreLocation} from './store-location.js'
export {SAMPLE_SENDER_HOLDER, germanIban, sofortSender} from './sofort-sender.js'
export {EmulatorStore} from './store.js'
export {transactionPages} from './query-thread.js'
export {searchIndexing} from './search-indexing.js'
export type {SearchIndexing} from './search-indexing.js'
export type {TransactionPages} from './query-thread.js'
export {WriteTurns} from './write-turns.js'
export type {WriteTurn} from './write-turns.js'
export type {OutboxDelivery, StatusChange, StoredCard, StoredTransaction, TransactionPage, TransactionRenderer, TransactionQuery, WebhookDelivery} from './store.js'
