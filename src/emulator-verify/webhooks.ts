/**
 * What a side's webhooks show, caught by the listener `paytx webhook listen` uses: the first
 * delivery of the dummy transaction's webhook is answered 500 (the listener answers so when it
 * cannot record a webhook), so a sender that retries sends it again. Seen: whether a webhook came
 * at all (creation, INITIATED, sends one: assumption webhook-statuses), its body (webhook-body,
 * id-keys) and whether the 500 was retried (webhook-retries).
 */
import type {WebhookRecord, WebhookRecorder} from '../webhooks/recorder.js'
import {generateWebhookToken, startWebhookListener} from '../webhooks/listener.js'

export interface WebhookSighting {
  /** Deliveries received (the first was answered 500). */
  attempts: number
  /** The first body received, secrets masked; undefined when none came. */
  body?: unknown
  /** The first delivery came again after its 500 (the sender retries). */
  retried: boolean
  /** Milliseconds from the first delivery's arrival to its retry's (the sender's first back-off, plus one delivery's time). */
  retryAfterMs?: number
}

export interface WebhookCatcher {
  url: string
  port: number
  /** Waits until a retry came or `waitMs` passed. */
  settle(waitMs: number): Promise<WebhookSighting>
  close(): Promise<void>
}

export async function startWebhookCatcher(port = 0, host = '127.0.0.1'): Promise<WebhookCatcher> {
  const sighting: WebhookSighting = {attempts: 0, retried: false}
  let wake: (() => void) | undefined
  let firstAt = 0
  // Fails the first record (the listener then answers 500) and accepts the others.
  const recorder = {
    append(entry: WebhookRecord, done: (error?: Error) => void) {
      sighting.attempts += 1
      if (sighting.attempts === 1) {
        firstAt = performance.now()
        sighting.body = entry.body
        done(new Error('emulator verify answers the first delivery 500, to see whether it is sent again'))
      } else {
        // The same body again is the same delivery again; another one (a later status) is no retry.
        if (!sighting.retried && JSON.stringify(entry.body) === JSON.stringify(sighting.body)) {
          sighting.retried = true
          sighting.retryAfterMs = Math.round(performance.now() - firstAt)
        }
        done()
      }
      wake?.()
    },
    flush() {},
    close() {},
  } as unknown as WebhookRecorder
  const listener = await startWebhookListener({
    host,
    port,
    token: generateWebhookToken(),
    maxBodyBytes: 1024 * 1024,
    recorder,
    onWebhook: () => {},
    onRejected: () => {},
    onRecordFailure: () => {},
  })
  return {
    url: listener.url,
    port: listener.port,
    async settle(waitMs) {
      const deadline = Date.now() + waitMs
      while (!sighting.retried && Date.now() < deadline) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, deadline - Date.now())
          wake = () => {
            clearTimeout(timer)
            resolve()
          }
        })
      }
      wake = undefined
      return {...sighting}
    },
    close: async () => void (await listener.close(0)),
  }
}

/**
 * The address the service is given for a catcher it cannot reach directly: `publicBase` (the
 * user's --webhook-url, or a tunnel's address) with the listener's path and key.
 */
export function publicWebhookUrl(publicBase: string, catcher: WebhookCatcher): string {
  const local = new URL(catcher.url)
  return `${publicBase.replace(/\/+$/, '')}${local.pathname}${local.search}`
}
