/**
 * Card numbers in what a service answers, redacted in every output, in-process. Webhook bodies and
 * the DEBUG=* log of the real process are in test/e2e/redaction.test.ts.
 */
import {afterEach, describe, expect, it} from 'vitest'

import {type RunningCli, parseJsonOutput} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'
import {type RecordingServer, startRecordingServer} from '../helpers/recording-server.js'
import {API_KEY, PAN} from '../helpers/secrets.js'

/** PAN in the shapes a service or a sender may write it; PAN_OFF_LUHN is caught by its field name alone. */
const PAN_SPACED = '4024 0071 0817 3153'
const PAN_DASHED = '4024-0071-0817-3153'
const PAN_OFF_LUHN = '4111 1111 1111 1112'
const CVV = '937'

/** Fails when any shape of the card number (or the CVV as a number of its own) shows up. */
function expectNoCard(text: string): void {
  for (const shown of [PAN, PAN_SPACED, PAN_DASHED, encodeURIComponent(PAN_SPACED), PAN_OFF_LUHN, '4111111111111112', '4111-1111-1111-1112']) expect(text).not.toContain(shown)
  // DEBUG log lines start with an ISO time whose milliseconds can be any three digits.
  const withoutTimes = text.replaceAll(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>')
  expect(withoutTimes).not.toMatch(new RegExp(`(?<!\\d)${CVV}(?!\\d)`))
}

const servers: RecordingServer[] = []
const running: RunningCli[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((cli) => cli.stop('SIGKILL')))
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

describe('card numbers from a service, in any shape', () => {
  it('a service error echoing the card spaced and dashed, in its message and details: masked on stderr and in --json', async () => {
    const server = await startRecordingServer(() => ({
      status: 422,
      json: {
        code: 'card_rejected',
        message: `Card ${PAN_SPACED} was rejected (also seen as ${PAN_DASHED})`,
        details: {
          'body.card_number': `${PAN_DASHED} is blocked`,
          'body.pan': `${PAN_OFF_LUHN} is not accepted`,
          'body.card_cvv': `${CVV} does not match`,
        },
      },
    }))
    servers.push(server)
    const env = {PAYTX_BASE_URL: `${server.url}/v1`, PAYTX_API_KEY: API_KEY}

    const text = await runCommand(['status', 'tx-1'], {env})
    expect(text.exitCode).toBe(1)
    expect(text.stdout).toBe('')
    expect(text.stderr).toContain('Card •••• 3153 was rejected (also seen as •••• 3153)')
    expect(text.stderr).toMatch(/card_number: •••• 3153 is blocked/)
    expect(text.stderr).toMatch(/pan: •••• 1112 is not accepted/)
    expect(text.stderr).toMatch(/card_cvv: \*\*\* does not match/)
    expectNoCard(text.stdout + text.stderr)

    const json = await runCommand(['status', 'tx-1', '--json'], {env})
    expect(json.exitCode).toBe(1)
    const {error} = parseJsonOutput(json)
    expect(error).toMatchObject({
      kind: 'service',
      status: 422,
      serviceMessage: 'Card •••• 3153 was rejected (also seen as •••• 3153)',
      details: {'body.card_number': '•••• 3153 is blocked', 'body.pan': '•••• 1112 is not accepted', 'body.card_cvv': '*** does not match'},
    })
    expectNoCard(json.stdout + json.stderr)
    expect(server.requests).toHaveLength(2)
  })
})
