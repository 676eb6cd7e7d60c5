import {describe, expect, it} from 'vitest'

import {displayWebhookUrl, formatEvent} from '../../src/emulator/events.js'
import {appendQuery} from '../../src/emulator/http-exchange.js'
import {formatExactDuration, readDuration} from '../../src/duration.js'

describe('readDuration', () => {
  it.each([
    ['500ms', 500],
    ['3s', 3000],
    ['7m', 420_000],
    ['1h', 3_600_000],
    ['2', 2000],
    ['0', 0],
    ['1.5s', 1500],
    [' 10 S ', 10_000],
  ])('reads %j as %i ms', (text, ms) => expect(readDuration(text)).toBe(ms))

  it.each(['', '-1', '3 days', 's', '1e3', '5x'])('refuses %j', (text) => expect(readDuration(text)).toBeUndefined())

  it('round-trips the defaults through formatExactDuration', () => {
    for (const ms of [0, 500, 3000, 420_000]) expect(readDuration(formatExactDuration(ms))).toBe(ms)
  })
})

describe('appendQuery', () => {
  it.each([
    ['https://s.example/r', 'https://s.example/r?transaction_id=t%201'],
    ['https://s.example/r?', 'https://s.example/r?transaction_id=t%201'],
    ['https://s.example/r?a=b+c', 'https://s.example/r?a=b+c&transaction_id=t%201'],
    ['https://s.example/r?a=1&', 'https://s.example/r?a=1&transaction_id=t%201'],
    ['https://s.example/r#frag', 'https://s.example/r?transaction_id=t%201#frag'],
  ])('appends to %s keeping its own query', (base, expected) => expect(appendQuery(base, {transaction_id: 't 1'})).toBe(expected))

  it('encodes error text as encodeURIComponent does', () => {
    const text = "Already FAILED; can't approve (100% sure) & done"
    expect(appendQuery('http://x/r', {error: text})).toBe(`http://x/r?error=${encodeURIComponent(text)}`)
  })
})

describe('webhook addresses in logs', () => {
  it('hides query values and credentials but keeps the address recognisable', () => {
    expect(displayWebhookUrl('http://user:pw@127.0.0.1:4242/hooks?key=secret&x=1')).toBe('http://127.0.0.1:4242/hooks?key=…&x=…')
    expect(displayWebhookUrl('not a url')).toBe('(invalid URL)')
  })

  it('formats a delivery attempt as one line', () => {
    const line = formatEvent({
      event: 'webhook',
      time: '2026-01-01T00:00:00.000Z',
      delivery: 'd',
      transaction: 't',
      status: 'PENDING',
      url: 'http://127.0.0.1:1/h',
      attempt: 1,
      attempts: 3,
      outcome: 'retrying',
      error: 'ECONNREFUSED',
      retry_in_ms: 500,
      duration_ms: 2,
    })
    expect(line).toBe('2026-01-01T00:00:00.000Z  webhook PENDING for t → http://127.0.0.1:1/h  attempt 1/3: ECONNREFUSED, retry in 500ms  2ms')
  })
})
