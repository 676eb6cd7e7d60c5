/**
 * The faults room: the fault rules (schema, file, run-time rules), their effects on requests
 * and webhooks, the /_emulator/faults routes and the client for them.
 */
export {loadFaultFile, parseFaultFile} from './fault-file.js'
export {faultRoutes} from './fault-routes.js'
export {FAULT_KIND_TABLE} from './fault-kinds.js'
export {FaultRules, isRequestFault} from './fault-rules.js'
export type {FaultRuleView} from './fault-rules.js'
export {FAULT_KINDS, REQUEST_FAULTS, faultFileJsonSchema, faultFileKeysAt, faultRuleSchema} from './fault-schema.js'
export type {FaultRule} from './fault-schema.js'
export {FaultsClient} from './faults-client.js'
export type {AddedFaults, FaultList} from './faults-client.js'
export {withRequestFaults} from './request-faults.js'
export {randomSeed} from './seeded-random.js'
export {WebhookFaults} from './webhook-faults.js'
