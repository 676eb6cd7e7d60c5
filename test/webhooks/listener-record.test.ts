/**
 * What the listener saves of a webhook's request: each header once, credentials redacted (the
 * fixed names and the profile's key header), card numbers in other values masked, and the time it
 * arrived to the millisecond.
 */
import {describe, expect, it} from 'vitest'

import type {WebhookRecord, WebhookRecorder} from '../../src/webhooks/recorder.js'
import {postJson} from '../helpers/post-json.js'
import {startTestListener} from '../helpers/webhook-listener.js'

class KeepingRecorder {
  readonly written: WebhookRecord[] = []
  append(record: WebhookRecord, done: (error?: Error) => void): void {
    this.written.push(record)
    done()
  }
  flush(): void {}
  close(): void {}
}

describe('a saved webhook', () => {
  it('holds its headers with credentials redacted and its arrival time, to the millisecond', async () => {
    const recorder = new KeepingRecorder()
    const times = [Date.parse('2026-11-29T08:00:00.000Z'), Date.parse('2026-11-29T08:00:00.000Z'), Date.parse('2026-11-29T08:00:00.007Z')]
    const listener = await startTestListener({
      recorder: recorder as unknown as WebhookRecorder,
      secretHeaderNames: ['X-Shop-Key'],
      now: () => new Date(times.shift()!),
    })
    const body = JSON.stringify({type: 'transaction', id: 'tx-1', status: 'INITIATED'})
    const headers = {
      authorization: 'Bearer sk_live_0123456789abcdef',
      cookie: 'session=s3cr3t-session-value',
      'proxy-authorization': 'Basic dXNlcjpwYXNzd29yZA==',
      'x-shop-key': 'shop_key_0123456789abcdef',
      'x-note': 'card 4111 1111 1111 1111',
      'set-cookie': ['a=1', 'b=2'],
    }
    for (const _ of times.slice()) expect((await postJson(listener.url, body, headers)).status).toBe(200)

    expect(recorder.written.map((record) => record.received_at)).toEqual(['2026-11-29T08:00:00.000Z', '2026-11-29T08:00:00.000Z', '2026-11-29T08:00:00.007Z'])
    const saved = recorder.written[0].headers
    for (const secret of ['sk_live_0123456789abcdef', 's3cr3t-session-value', 'dXNlcjpwYXNzd29yZA==', 'shop_key_0123456789abcdef', '4111 1111 1111 1111']) {
      expect(JSON.stringify(saved)).not.toContain(secret)
    }
    expect(saved['x-note']).toMatch(/1111$/)
    // A header sent twice is one value; every header is there once, by its lower-case name.
    expect(saved['set-cookie']).toBe('a=1, b=2')
    expect(Object.keys(saved)).toEqual(expect.arrayContaining(['authorization', 'cookie', 'proxy-authorization', 'x-shop-key', 'x-note', 'content-type', 'host']))
  })
})
