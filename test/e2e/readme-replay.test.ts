/**
 * The `webhook replay` example of docs/webhooks.md runs as written: its three commands (listen and save,
 * a flow on the emulator sending there, replay to an endpoint), only the ports swapped for free
 * ones so that the test shares the machine. The output it shows has the same lines.
 */
import {existsSync, mkdtempSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {ROOT, runCli, startCli, tempConfigDir} from '../helpers/cli.js'
import {freePort} from '../helpers/ports.js'
import {startRecordingServer} from '../helpers/recording-server.js'
import {waitFor} from '../helpers/wait-for.js'
import {splitTemplate} from '../../src/tunnel/tunnel-program.js'

function readmeReplayCommands(): string[][] {
  const page = readFileSync(join(ROOT, 'docs', 'webhooks.md'), 'utf8')
  const start = page.indexOf('## Replaying saved webhooks')
  expect(start, 'docs/webhooks.md has its "Replaying saved webhooks" section').toBeGreaterThanOrEqual(0)
  const section = page.slice(start)
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1]
  return block
    .split('\n')
    .filter((line) => line.startsWith('paytx '))
    .map((line) => splitTemplate(line)!.slice(1))
}

describe('the webhook replay example of docs/webhooks.md', () => {
  it('runs: listen saves the flow’s webhooks, replay sends the chosen ones to the endpoint', async () => {
    const [listen, flow, replay] = readmeReplayCommands()
    expect([listen[0], flow[0], replay[0]]).toEqual(['webhook', 'flow', 'webhook'])
    const [listenPort, endpoint] = [await freePort(), await startRecordingServer(() => ({status: 200, text: 'ok'}))]
    endpoint.reply((request) => request.method === 'POST', {status: 200, text: 'ok'}, {status: 500, text: 'broken'})
    const swap = (args: string[]) => args.map((arg) => arg.replace('4020', String(listenPort)).replace('http://127.0.0.1:3000', endpoint.url))
    const folder = mkdtempSync(join(tmpdir(), 'paytx-readme-'))
    const configDir = tempConfigDir()
    try {
      // Killed after 80 s in any case: the flow between takes seconds, more on a loaded machine.
      const listener = startCli(swap(listen), {cwd: folder, configDir, timeoutMs: 80_000})
      await listener.waitForStderr(/Ready\. Press Ctrl-C to stop\./)
      const flowed = await runCli(swap(flow), {cwd: folder, configDir})
      expect(flowed.code, flowed.stderr).toBe(0)
      const saved = join(folder, 'webhooks.ndjson')
      await waitFor(() => existsSync(saved) && readFileSync(saved, 'utf8').trim().split('\n').length >= 3, 'three saved webhooks', 15_000)
      expect((await listener.stop('SIGINT')).code).toBe(130)

      const replayed = await runCli(swap(replay), {cwd: folder, configDir})
      expect(replayed.stdout.trim()).toMatch(/^seq 2 {2}transaction {2}\S+ {2}→ HTTP 200 {2}\d+ms\nseq 3 {2}transaction {2}\S+ {2}→ failed: HTTP 500 {2}\d+ms$/)
      expect(replayed.stderr).toContain(`Replayed 2 of 2 webhooks to ${endpoint.url}/webhooks/payments: 1 answered 2xx, 1 failed.`)
      expect(replayed.code).toBe(1)
      expect(endpoint.requests.map((request) => request.path)).toEqual(['/webhooks/payments', '/webhooks/payments'])
    } finally {
      await endpoint.close()
    }
  }, 90_000)
})
