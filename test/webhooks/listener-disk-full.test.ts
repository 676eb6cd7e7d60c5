/**
 * The listener on a full disk, with the failure injected (no mount needed): the sender is asked
 * to send again later (503, Retry-After), nothing is acknowledged that was not written, and the
 * next webhook is recorded as soon as writes work again. The real thing, on a small tmpfs, is in
 * test/system/webhook-save-full-disk.test.ts.
 */
import {request} from 'node:http'

import {describe, expect, it} from 'vitest'

import type {WebhookRecord, WebhookRecorder} from '../../src/webhooks/recorder.js'
import {startTestListener} from '../helpers/webhook-listener.js'

/** A recorder whose disk can be filled and emptied: appends fail with ENOSPC while it is full. */
class FillableRecorder {
  full = false
  readonly written: WebhookRecord[] = []
  append(record: WebhookRecord, done: (error?: Error) => void): void {
    if (this.full) return done(Object.assign(new Error('ENOSPC: no space left on device, write'), {code: 'ENOSPC'}))
    this.written.push(record)
    done()
  }
  flush(): void {}
  close(): void {}
}

function post(url: string, body: string): Promise<{status: number; retryAfter?: string; text: string}> {
  return new Promise((resolve, reject) => {
    const req = request(url, {method: 'POST', agent: false, headers: {'content-type': 'application/json'}}, (res) => {
      let text = ''
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
      res.on('end', () => resolve({status: res.statusCode!, retryAfter: res.headers['retry-after'], text}))
    })
    req.on('error', reject)
    req.end(body)
  })
}

describe('webhook listener on a full disk (injected)', () => {
  it('answers 503 with Retry-After while the disk is full, acknowledges nothing unwritten, and records again once space returns', async () => {
    const recorder = new FillableRecorder()
    const failures: {status: number; diskFull: boolean}[] = []
    const reported: number[] = []
    const listener = await startTestListener({
      token: 'tok',
      recorder: recorder as unknown as WebhookRecorder,
      onWebhook: (report) => reported.push(report.seq),
      onRecordFailure: (_error, answer) => failures.push(answer),
    })
    const webhook = (id: string) => JSON.stringify({type: 'transaction', id, status: 'INITIATED'})

    expect((await post(listener.url, webhook('tx-1'))).status).toBe(200)
    recorder.full = true
    const refused = await post(listener.url, webhook('tx-2'))
    expect(refused).toMatchObject({status: 503, retryAfter: '10'})
    expect(JSON.parse(refused.text).error).toMatch(/disk is full/)
    expect(failures).toEqual([{status: 503, diskFull: true}])
    recorder.full = false
    expect((await post(listener.url, webhook('tx-3'))).status).toBe(200)

    expect(recorder.written.map((record) => (record.body as {id: string}).id)).toEqual(['tx-1', 'tx-3'])
    expect(listener.counts().received).toBe(2)
  })
})
