/** `webhook listen`'s core in-process: what it reports, as typed events, from ready to stopped. */
import {execFileSync} from 'node:child_process'
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {InputError} from '../../src/errors.js'

import {renderListening, renderStopped} from '../../src/output/webhook-listen.js'
import type {ListenEvent, StopReason} from '../../src/webhooks/listen-events.js'
import {listenForWebhooks} from '../../src/webhooks/listen.js'
import {postJson} from '../helpers/post-json.js'

const TX = '9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c'

function nextEvent(events: ListenEvent[], kind: ListenEvent['kind'], waiters: (() => void)[]): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (events.some((event) => event.kind === kind) ? resolve() : waiters.push(check))
    check()
  })
}

describe('listenForWebhooks', () => {
  it('reports ready, each webhook, the missing status once, and the counts when stopped', async () => {
    const events: ListenEvent[] = []
    const waiters: (() => void)[] = []
    let stop!: (reason: StopReason) => void
    const stopped = new Promise<StopReason>((resolve) => (stop = resolve))
    const run = listenForWebhooks(
      {host: '127.0.0.1', port: 0, token: 'tok', maxBodyBytes: 65_536, forwardUrl: undefined, save: undefined, fetch: false},
      {
        requestTimeoutMs: 5000,
        onEvent: (event) => {
          events.push(event)
          for (const waiter of waiters.splice(0)) waiter()
        },
        stopped: () => stopped,
      },
    )
    await nextEvent(events, 'ready', waiters)
    const ready = events.find((event) => event.kind === 'ready') as Extract<ListenEvent, {kind: 'ready'}>
    expect(ready).toMatchObject({host: '127.0.0.1', path: '/webhooks', tokenRequired: true})
    expect(renderListening(ready)[0]).toBe(`Listening for webhooks at ${ready.url}`)

    for (const _ of [1, 2]) expect((await postJson(ready.url, JSON.stringify({type: 'transaction', id: TX}))).status).toBe(200)
    stop('signal')
    const {counts, reason} = await run
    expect(reason).toBe('signal')
    expect(counts).toMatchObject({received: 2, malformed: 0, rejected: 0})
    expect(events.map((event) => event.kind)).toEqual(['ready', 'webhook', 'status-missing', 'webhook', 'stopped'])
    const last = events.at(-1) as Extract<ListenEvent, {kind: 'stopped'}>
    expect(renderStopped(last)).toBe('Stopped. 2 webhooks received (0 duplicates), 0 malformed, 0 rejected.')
  })

  it.each([
    ['a FIFO', () => {
      const fifo = join(mkdtempSync(join(tmpdir(), 'paytx-save-')), 'pipe')
      execFileSync('mkfifo', [fifo], {timeout: 5_000})
      return fifo
    }, 'it is a FIFO (named pipe), not a regular file'],
    ['a device', () => '/dev/null', 'it is a device, not a regular file'],
  ])('refuses --save naming %s before listening (exit 2): appending there would block or lose what was acknowledged', async (_, path, reason) => {
    const save = path()
    const events: ListenEvent[] = []
    const run = listenForWebhooks(
      {host: '127.0.0.1', port: 0, token: 'tok', maxBodyBytes: 65_536, forwardUrl: undefined, save, fetch: false},
      {requestTimeoutMs: 5000, onEvent: (event) => events.push(event), stopped: () => new Promise<StopReason>(() => {})},
    )
    await expect(run).rejects.toThrow(`--save: cannot open ${save} for appending (${reason}).`)
    await expect(run).rejects.toBeInstanceOf(InputError)
    expect(events).toEqual([])
  })
})
