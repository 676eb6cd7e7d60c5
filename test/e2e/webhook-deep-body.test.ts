import {mkdtempSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'

import {type RunningCli, startCli} from '../helpers/cli.js'
import {postJson} from '../helpers/post-json.js'

const running: RunningCli[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((cli) => cli.stop('SIGKILL')))
})

const send = postJson

/** About 10 KB of JSON nested 5,000 deep, holding a card number at the bottom. */
const DEEP_BODY = `${'{"a":'.repeat(5_000)}{"pan":"4024 0071 0817 3153"}${'}'.repeat(5_000)}`
const FINE_BODY = JSON.stringify({type: 'transaction', id: 'tx-1', status: 'INITIATED'})

describe('webhook listen and a body nested 5,000 deep', () => {
  it.each([
    ['text', [] as string[]],
    ['--json', ['--json']],
    ['--save', ['--save']],
    ['--json --save', ['--json', '--save']],
  ])('%s: answered 400, recorded and counted as malformed, and the listener keeps receiving', async (_label, modes) => {
    const file = join(mkdtempSync(join(tmpdir(), 'paytx-deep-')), 'webhooks.ndjson')
    const json = modes.includes('--json')
    const args = ['webhook', 'listen', '--port', '0', ...(json ? ['--json'] : []), ...(modes.includes('--save') ? ['--save', file] : [])]
    const cli = startCli(args)
    running.push(cli)
    const url = json ? (await cli.waitForStdout(/"url":"([^"]+)"/))[1] : (await cli.waitForStderr(/Listening for webhooks at (\S+)/))[1]

    expect(await send(url, DEEP_BODY)).toEqual({status: 400, text: '{"error":"the body is nested deeper than 100 levels"}'})
    expect((await send(url, FINE_BODY)).status).toBe(200)
    await cli.waitForStdout(/INITIATED/)

    const result = await cli.stop('SIGINT')
    expect(result.code).toBe(130)
    expect(result.stdout + result.stderr).not.toMatch(/RangeError|call stack/)
    expect(result.stdout + result.stderr).not.toContain('4024 0071 0817 3153')
    if (json) {
      const events = result.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line))
      expect(events.find((event) => event.event === 'malformed')).toMatchObject({seq: 1, error: 'the body is nested deeper than 100 levels', bytes: DEEP_BODY.length})
      expect(events.at(-1)).toMatchObject({event: 'stopped', received: 1, malformed: 1})
    } else {
      expect(result.stdout).toMatch(/malformed/)
      expect(result.stderr).toMatch(/1 webhook received .*1 malformed/)
    }
    if (modes.includes('--save')) {
      const saved = readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line))
      expect(saved).toHaveLength(2)
      expect(saved[0]).toMatchObject({seq: 1, answered: 400})
      expect(saved[0].raw).toContain('•••• 3153')
      expect(saved[1]).toMatchObject({seq: 2, answered: 200})
    }
  }, 60_000)
})
