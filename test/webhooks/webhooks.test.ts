import {describe, expect, it} from 'vitest'

import {renderWebhookLine, webhookLine} from '../../src/output/webhook.js'
import {DuplicateDetector} from '../../src/webhooks/duplicates.js'
import {readWebhookEvent} from '../../src/webhooks/event.js'
import {forwardableHeaders} from '../../src/webhooks/forwarder.js'
import {isLoopbackHost, webhookUrl} from '../../src/webhooks/listener.js'

describe('DuplicateDetector', () => {
  it('marks a repeated (transaction id, status) and nothing else', () => {
    const detector = new DuplicateDetector()
    const seen = (body: unknown) => detector.isDuplicate(readWebhookEvent(body))
    expect(seen({id: 'a', status: 'PENDING'})).toBe(false)
    expect(seen({_id: 'a', status: 'PENDING'})).toBe(true)
    expect(seen({id: 'a', status: 'SETTLEMENT_REQUESTED'})).toBe(false)
    expect(seen({id: 'b', status: 'PENDING'})).toBe(false)
    // Without a status (or an id) there is nothing to compare.
    expect(seen({id: 'a'})).toBe(false)
    expect(seen({id: 'a'})).toBe(false)
    expect(seen({status: 'PENDING'})).toBe(false)
  })

  it('remembers at least half its capacity of recent transactions and forgets older ones, in bounded memory', () => {
    const detector = new DuplicateDetector(10)
    const seen = (id: string, status = 'PENDING') => detector.isDuplicate(readWebhookEvent({id, status}))
    for (let i = 0; i < 10; i++) expect(seen(`tx-${i}`)).toBe(false)
    for (let i = 5; i < 10; i++) expect(seen(`tx-${i}`)).toBe(true)
    for (let i = 10; i < 15; i++) expect(seen(`tx-${i}`)).toBe(false)
    expect(seen('tx-0')).toBe(false)
  })

  it('never forgets a transaction still in motion, however many others pass by', () => {
    const detector = new DuplicateDetector(1000)
    const seen = (id: string, status: string) => detector.isDuplicate(readWebhookEvent({id, status}))
    expect(seen('busy', 'INITIATED')).toBe(false)
    // 300,000 webhooks of other transactions, the busy one among them now and then. Counted, not
    // expect()ed one by one: 300,000 expect calls took 17 s of a loaded machine, the loop 0.3 s.
    let othersTakenForDuplicates = 0
    for (let i = 0; i < 300_000; i++) {
      if (seen(`tx-${i}`, 'PENDING')) othersTakenForDuplicates++
      if (i % 250 === 0) seen('busy', i % 500 === 0 ? 'IN_PROGRESS' : 'PENDING')
    }
    expect(othersTakenForDuplicates).toBe(0)
    expect(seen('busy', 'INITIATED')).toBe(true)
  })

  it('keeps a bounded number of statuses per transaction, whatever a sender invents', () => {
    const detector = new DuplicateDetector(10)
    for (let i = 0; i < 100; i++) expect(detector.isDuplicate(readWebhookEvent({id: 'a', status: `S${i}`}))).toBe(false)
    // The 16 most recent are remembered, the older ones forgotten.
    expect(detector.isDuplicate(readWebhookEvent({id: 'a', status: 'S84'}))).toBe(true)
    expect(detector.isDuplicate(readWebhookEvent({id: 'a', status: 'S99'}))).toBe(true)
    expect(detector.isDuplicate(readWebhookEvent({id: 'a', status: 'S0'}))).toBe(false)
  })

  it('never takes a status past the first 255 distinct ones, or one longer than 64 characters, for a duplicate', () => {
    const detector = new DuplicateDetector(1000)
    const seen = (id: string, status: string) => detector.isDuplicate(readWebhookEvent({id, status}))
    for (let i = 0; i < 255; i++) expect(seen(`tx-${i}`, `S${i}`)).toBe(false)
    expect(seen('tx-0', 'S0')).toBe(true)
    expect(seen('tx-300', 'S300')).toBe(false)
    expect(seen('tx-300', 'S300')).toBe(false)
    const long = 'X'.repeat(65)
    expect(seen('tx-1', long)).toBe(false)
    expect(seen('tx-1', long)).toBe(false)
  })

  it('tells apart ids that differ in one character or only in length', () => {
    const detector = new DuplicateDetector(1000)
    const ids = ['4f1c2a10-5b1e-4f6a-8c2d-000000000001', '4f1c2a10-5b1e-4f6a-8c2d-000000000002', '4f1c2a10-5b1e-4f6a-8c2d-00000000001', 'a', 'a\u0000']
    for (const id of ids) expect(detector.isDuplicate(readWebhookEvent({id, status: 'PENDING'}))).toBe(false)
    for (const id of ids) expect(detector.isDuplicate(readWebhookEvent({id, status: 'PENDING'}))).toBe(true)
  })
})

describe('forwardableHeaders', () => {
  it('keeps end-to-end headers in order and case, drops hop-by-hop ones and those the Connection header names', () => {
    const raw = ['Host', 'a:1', 'Content-Type', 'application/json', 'Connection', 'keep-alive, X-Trace', 'X-Trace', '1', 'Transfer-Encoding', 'chunked', 'X-Sig', 's', 'Content-Length', '12', 'Keep-Alive', 'timeout=5']
    expect(forwardableHeaders(raw)).toEqual(['Content-Type', 'application/json', 'X-Sig', 's'])
  })
})

describe('listener addresses', () => {
  it('knows loopback hosts, so only other hosts are warned about', () => {
    for (const host of ['127.0.0.1', '127.3.2.1', '::1', 'localhost']) expect(isLoopbackHost(host)).toBe(true)
    for (const host of ['0.0.0.0', '::', '192.168.1.5', 'example.com']) expect(isLoopbackHost(host)).toBe(false)
  })

  it('builds the URL with the token as ?key= and brackets IPv6 hosts', () => {
    expect(webhookUrl('127.0.0.1', 4020, 'a b')).toBe('http://127.0.0.1:4020/webhooks?key=a%20b')
    expect(webhookUrl('::1', 4020)).toBe('http://[::1]:4020/webhooks')
  })
})

describe('renderWebhookLine', () => {
  const received = {kind: 'webhook' as const, seq: 1, receivedAt: '2026-11-20T10:00:00.000Z', duplicate: false}

  it('shows the status the webhook carried, and says so when the service has moved on since', () => {
    const event = readWebhookEvent({type: 'transaction', id: 't1', status: 'SETTLEMENT_REQUESTED'})
    const differs = webhookLine({...received, event, service: {status: 'SETTLEMENT_COMPLETED'}})
    expect(differs).toMatchObject({status: 'SETTLEMENT_REQUESTED', service_status: 'SETTLEMENT_COMPLETED', status_differs: true, moved_on: true})
    expect(renderWebhookLine(differs)).toBe('2026-11-20T10:00:00.000Z  transaction  t1  SETTLEMENT_REQUESTED (the service has moved on: now SETTLEMENT_COMPLETED)')
    const same = webhookLine({...received, event, duplicate: true, service: {status: 'SETTLEMENT_REQUESTED'}, forward: {url: 'http://x', status: 500, duration_ms: 3}})
    expect(renderWebhookLine(same)).toBe('2026-11-20T10:00:00.000Z  transaction  t1  SETTLEMENT_REQUESTED (the service agrees)  duplicate  forwarded: 500 (3 ms)')
  })

  it('a body without a status shows the status read when it came, and that the service had moved on when it reached it after', () => {
    const event = readWebhookEvent({type: 'transaction', id: 't1'})
    const before = webhookLine({...received, event, service: {status: 'IN_PROGRESS', updatedAt: '2026-11-20T09:59:59.990Z'}})
    expect(before).toMatchObject({status: null, service_status: 'IN_PROGRESS', moved_on: false, duplicate: false})
    expect(renderWebhookLine(before)).toBe('2026-11-20T10:00:00.000Z  transaction  t1  IN_PROGRESS (read from the service when it came)')
    const after = webhookLine({...received, event, service: {status: 'SETTLEMENT_REQUESTED', updatedAt: '2026-11-20T10:00:00.200Z'}})
    expect(after).toMatchObject({status: null, service_status: 'SETTLEMENT_REQUESTED', service_updated_at: '2026-11-20T10:00:00.200Z', moved_on: true})
    expect(renderWebhookLine(after)).toBe('2026-11-20T10:00:00.000Z  transaction  t1  SETTLEMENT_REQUESTED (read from the service, which had moved on since the webhook came)')
  })

  it('on a terminal, shows the time of day only', () => {
    const event = readWebhookEvent({type: 'transaction', id: 't1', status: 'PENDING'})
    expect(renderWebhookLine(webhookLine({...received, event}), {short: true})).toBe('10:00:00.000  transaction  t1  PENDING')
  })

  it('cuts and escapes a malformed body so it cannot garble the terminal', () => {
    const line = webhookLine({kind: 'malformed', seq: 2, receivedAt: '2026-11-20T10:00:00.000Z', raw: `\u001b[2J${'z'.repeat(200)}`, bytes: 204, error: 'x'})
    const text = renderWebhookLine(line)
    expect(text).not.toContain('\u001b')
    expect(text).toContain('\\x1b[2J')
    expect(text.length).toBeLessThan(160)
  })

  it.each([
    ['a right-to-left override', 'pay\u202e4202 yrtne', 'pay\\u202e4202 yrtne'],
    ['C1 controls (CSI, NEL, OSC)', 'a\u009b2Jb\u0085c\u009d0;t\u009c', 'a\\x9b2Jb\\x85c\\x9d0;t\\x9c'],
    ['line and paragraph separators', 'one\u2028two\u2029three', 'one\\u2028two\\u2029three'],
    ['isolates and direction marks', '\u2067x\u2069\u200f\u061c', '\\u2067x\\u2069\\u200f\\u061c'],
  ])('a malformed body with %s is shown as escapes, on one line', (_, raw, shown) => {
    const text = renderWebhookLine(webhookLine({kind: 'malformed', seq: 2, receivedAt: '2026-11-20T10:00:00.000Z', raw, bytes: raw.length, error: 'x'}))
    expect(text).toBe(`2026-11-20T10:00:00.000Z  malformed  answered 400, ${raw.length} bytes: ${shown}`)
  })

  it('cuts a long malformed body after making it visible, never inside an escape', () => {
    const raw = `${'z'.repeat(77)}\u202e${'z'.repeat(50)}`
    const text = renderWebhookLine(webhookLine({kind: 'malformed', seq: 2, receivedAt: '2026-11-20T10:00:00.000Z', raw, bytes: raw.length, error: 'x'}))
    expect(text.endsWith(`${'z'.repeat(77)}…`)).toBe(true)
  })
})
