/**
 * The webhooks room: the durable outbox that delivers webhooks, with retries and backoff.
 */
export {WebhookOutbox} from './outbox.js'
export type {DeliveryFaults, WebhookSettings} from './outbox.js'
