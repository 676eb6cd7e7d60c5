/**
 * The webhook listener in-process, on a free loopback port, closed when the test ends: its
 * defaults (no token, 64 KiB bodies, reports dropped) overridden by what a test cares about.
 */
import {onTestFinished} from 'vitest'

import {type WebhookListener, type WebhookListenerOptions, startWebhookListener} from '../../src/webhooks/listener.js'

export async function startTestListener(options: Partial<WebhookListenerOptions>): Promise<WebhookListener> {
  const listener = await startWebhookListener({host: '127.0.0.1', port: 0, maxBodyBytes: 65_536, onWebhook: () => {}, onRejected: () => {}, ...options})
  onTestFinished(async () => {
    await listener.close(0)
  })
  return listener
}
