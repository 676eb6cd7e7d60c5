/** `webhook replay`'s flags into the address and the selection, in-process: one row per input. */
import {describe, expect, it} from 'vitest'

import WebhookReplay, {toWebhookReplayOptions} from '../../../src/commands/webhook/replay.js'
import {parseFlags} from '../../helpers/parse-flags.js'

const NOW = Date.parse('2026-03-02T10:00:00Z')
const TO = ['--to', 'http://localhost:3000/webhooks']

describe('toWebhookReplayOptions', () => {
  it.each([
    [[], {}],
    [['--seq', '3,7-9'], {seq: [{from: 3, to: 3}, {from: 7, to: 9}]}],
    [['--transaction', '  tx-1 '], {transaction: 'tx-1'}],
    [['--since', '10m'], {since: NOW - 600_000}],
  ])('%j selects %j', async (argv, selection) => {
    const options = await toWebhookReplayOptions(await parseFlags(WebhookReplay, ['saved.ndjson', ...TO, ...argv]), {now: NOW})
    expect(options.url.href).toBe('http://localhost:3000/webhooks')
    expect(options.selection).toEqual(selection)
  })

  it.each([
    [['--to', 'localhost:3000'], '--to'],
    [[...TO, '--seq', '9-3'], '--seq'],
    [[...TO, '--seq', 'x'], '--seq'],
    [[...TO, '--transaction', ' '], '--transaction'],
    [[...TO, '--since', 'yesterday'], '--since'],
  ])('refuses %j naming %s', async (argv, flag) => {
    await expect(toWebhookReplayOptions(await parseFlags(WebhookReplay, ['saved.ndjson', ...argv]), {now: NOW})).rejects.toMatchObject({exitCode: 2, flag})
  })
})
