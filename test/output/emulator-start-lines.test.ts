/**
 * `emulator start`'s log lines for a person (src/output/emulator-start.ts): at a terminal, the
 * time of day alone and lines wrapped between words under their text, at every width; in a pipe
 * each line whole with its full timestamp, as scripts read it.
 */
import {describe, expect, it} from 'vitest'

import type {EmulatorEvent} from '../../src/emulator/index.js'
import {emulatorStartRenderer, shortTime} from '../../src/output/emulator-start.js'

const TIME = '2026-11-28T23:41:07.123Z'
const webhook: EmulatorEvent = {
  event: 'webhook',
  time: TIME,
  delivery: 'd-1',
  transaction: '9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c',
  status: 'SETTLEMENT_COMPLETED',
  url: 'http://127.0.0.1:43125/hooks/paytx-webhook-receiver',
  attempt: 2,
  attempts: 5,
  outcome: 'retrying',
  http_status: 503,
  retry_in_ms: 4000,
  duration_ms: 12,
}

function rendered(width: number | undefined, event: EmulatorEvent = webhook): {out: string[]; err: string[]} {
  const out: string[] = []
  const err: string[] = []
  const render = emulatorStartRenderer({json: false, write: (line) => out.push(line), note: (text) => err.push(text), warn: (text) => err.push(text), invokedAs: 'paytx', width})
  render({kind: 'activity', event})
  return {out, err}
}

describe('emulator log lines', () => {
  it.each([40, 60, 80, 120, 200])('at %i columns: HH:MM:SS, then the text wrapped at spaces under itself; no word cut, no line too wide', (width) => {
    const {out} = rendered(width)
    const time = shortTime(TIME)
    expect(time).toMatch(/^\d\d:\d\d:\d\d$/)
    expect(out[0].startsWith(`${time}  webhook SETTLEMENT_COMPLETED`)).toBe(true)
    expect(out.join('\n')).not.toContain('2026-11-28')
    // A line is narrower than the terminal, unless it is one word that no line could hold whole (then it is not cut).
    for (const line of out) if (line.trim().includes(' ')) expect(line.length, line).toBeLessThan(width)
    for (const line of out.slice(1)) expect(line.startsWith(width >= 80 ? ' '.repeat(time.length + 2) : '  '), line).toBe(true)
    expect(out.length).toBe(width >= 200 ? 1 : out.length)
    // Put back together, the words are the line's words, each whole.
    const words = out.map((line) => line.trim()).join(' ').split(' ')
    expect(words).toContain(webhook.transaction)
    expect(words).toContain('http://127.0.0.1:43125/hooks/paytx-webhook-receiver')
    expect(words).toContain('SETTLEMENT_COMPLETED')
  })

  it('in a pipe: one whole line with the full timestamp', () => {
    const {out} = rendered(undefined)
    expect(out).toHaveLength(1)
    expect(out[0].startsWith(`${TIME}  webhook SETTLEMENT_COMPLETED for ${webhook.transaction}`)).toBe(true)
  })

  it('after Ctrl-C at a terminal, "Stopped" starts a line of its own', () => {
    const err: string[] = []
    const render = (width: number | undefined) =>
      emulatorStartRenderer({json: false, write: () => {}, note: (text) => err.push(text), warn: () => {}, invokedAs: 'paytx', width})
    render(80)({kind: 'stopped', signal: 'SIGINT', store: ':memory:'} as never)
    render(undefined)({kind: 'stopped', signal: 'SIGINT', store: ':memory:'} as never)
    expect(err).toEqual(['\nStopped (SIGINT).', 'Stopped (SIGINT).'])
  })
})
