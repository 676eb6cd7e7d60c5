import {afterEach, describe, expect, it} from 'vitest'

import {type RunningCli, startCli} from '../helpers/cli.js'
import {postJson} from '../helpers/post-json.js'

const running: RunningCli[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((cli) => cli.stop('SIGKILL')))
})

const send = async (url: string, body: string) => (await postJson(url, body)).status

/** Clears the screen, retitles the window, and starts a fake line of its own. */
const HOSTILE = {type: 'transaction\u001b[2J', id: 'tx-1\u001b]0;pwned\u0007', status: 'DECLINED\r\nSETTLEMENT_COMPLETED\u009b31m'}

describe('webhook listen and control characters in a webhook', () => {
  it('text output shows them as escapes: nothing reaches the terminal as a control sequence', async () => {
    const cli = startCli(['webhook', 'listen', '--port', '0'])
    running.push(cli)
    const url = (await cli.waitForStderr(/Listening for webhooks at (\S+)/))[1]
    expect(await send(url, JSON.stringify(HOSTILE))).toBe(200)
    await cli.waitForStdout(/pwned/)
    const result = await cli.stop('SIGINT')
    expect(result.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/)
    expect(result.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/)
    expect(result.stdout.trim().split('\n')).toHaveLength(1)
    expect(result.stdout).toContain('transaction\\x1b[2J  tx-1\\x1b]0;pwned\\x07  DECLINED\\r\\nSETTLEMENT_COMPLETED\\x9b31m')
  })

  it('--json keeps the exact values', async () => {
    const cli = startCli(['webhook', 'listen', '--port', '0', '--json'])
    running.push(cli)
    const url = (await cli.waitForStdout(/"url":"([^"]+)"/))[1]
    expect(await send(url, JSON.stringify(HOSTILE))).toBe(200)
    await cli.waitForStdout(/"event":"webhook"/)
    const result = await cli.stop('SIGINT')
    const webhook = result.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line)).find((event) => event.event === 'webhook')
    expect(webhook).toMatchObject({type: HOSTILE.type, transaction_id: HOSTILE.id, status: HOSTILE.status, body: HOSTILE})
  })
})
