/**
 * `webhook listen --save` killed with SIGKILL mid-stream while every core is busy: every webhook
 * answered 2xx must be in the file. The senders mix what the listener meets (a new connection per
 * webhook, kept-alive connections, requests pipelined on one socket, some large bodies, so that
 * batches are large and a write may be cut by the kill); busy processes load every core, so that
 * the listener, the senders and the kill contend for them. A line cut short by the kill may end
 * the file, and only a webhook that was never acknowledged may be on it; every other line must
 * parse, each read on its own so that one bad line hides nothing after it.
 * In the system tier for its cost: it loads the whole machine for about fifteen seconds
 * (test/tiers.ts). The same senders against two listeners sharing a file on a disk that fills up:
 * test/system/webhook-save-full-disk.test.ts.
 */
import {type ChildProcess, spawn} from 'node:child_process'
import {mkdtempSync} from 'node:fs'
import {availableParallelism, tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {startCli} from '../helpers/cli.js'
import {WebhookSenders, brokenPromises, readSaveFile, until} from '../helpers/webhook-senders.js'

/** When each round's kill comes: after this many acknowledged webhooks, or after ROUND_MS, whichever is first. */
const KILL_AFTER_ACKNOWLEDGED = [300, 1200, 2500]
const ROUND_MS = 4000
const MIX = {fresh: 8, keptAlive: 8, pipelines: 4, depth: 8, large: {every: 16, bytes: 64 * 1024}, maxWebhooks: 20_000}

const busy: ChildProcess[] = []
beforeAll(() => {
  for (let core = 0; core < availableParallelism(); core++) busy.push(spawn(process.execPath, ['-e', 'for (;;) {}'], {stdio: 'ignore', timeout: 60_000}))
})
afterAll(() => {
  for (const child of busy) child.kill('SIGKILL')
})

describe('webhook listen --save, killed with SIGKILL mid-stream with every core busy', () => {
  it.each(KILL_AFTER_ACKNOWLEDGED.map((threshold, round) => [round + 1, threshold]))(
    'round %i (the kill after %i acknowledged): every webhook answered 2xx is in the file',
    async (round, threshold) => {
      const file = join(mkdtempSync(join(tmpdir(), 'paytx-kill-stress-')), 'webhooks.ndjson')
      const cli = startCli(['webhook', 'listen', '--port', '0', '--json', '--save', file], {timeoutMs: 20_000})
      const url = new URL((await cli.waitForStdout(/"url":"([^"]+)"/))[1])
      const senders = new WebhookSenders([url], String(round), MIX)
      await until(() => senders.acknowledged.size >= threshold, ROUND_MS)
      // Killed while every sender is still sending; each ends at its first send the kill cut off.
      const result = await cli.stop('SIGKILL')
      senders.stop()
      await senders.finished()

      const saved = readSaveFile(file)
      const summary = `round ${round}: ${senders.sent} sent, ${senders.acknowledged.size} acknowledged, ${saved.ids.size} saved, ${senders.cutOff} sends cut off by the kill`
      expect(result.signal, summary).toBe('SIGKILL')
      // The kill came mid-stream: sending was not over, and enough had been acknowledged before it.
      expect(senders.sent, summary).toBeLessThan(MIX.maxWebhooks)
      expect(senders.acknowledged.size, summary).toBeGreaterThanOrEqual(Math.min(threshold, 100))
      expect(saved.badLines, summary).toEqual([])
      expect(brokenPromises(senders.acknowledged, saved), summary).toEqual({missing: []})
    },
    25_000,
  )
})
