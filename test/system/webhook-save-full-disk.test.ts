import {mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {WebhookRecorder} from '../../src/webhooks/recorder.js'
import {startCli} from '../helpers/cli.js'
import {WebhookSenders, brokenPromises, readSaveFile, until} from '../helpers/webhook-senders.js'
import {postJson} from '../helpers/post-json.js'
import {fillDisk, smallDiskForThisFile} from '../helpers/small-disk.js'

const send = async (url: string, body: string) => (await postJson(url, body)).status

const webhook = (id: string) => JSON.stringify({type: 'transaction', id, status: 'INITIATED', padding: 'p'.repeat(6000)})

/** Saves one record through `recorder` now; the error its caller is told of, or undefined when it was written (acknowledged). */
function save(recorder: WebhookRecorder, id: string, padding = ''): Error | undefined {
  let outcome: Error | undefined | 'pending' = 'pending'
  const record = {seq: 1, received_at: new Date(0).toISOString(), method: 'POST', path: '/webhooks', headers: {}, body: {type: 'transaction', id, padding}, answered: 200}
  recorder.append(record, (error) => (outcome = error))
  recorder.flush()
  if (outcome === 'pending') throw new Error('flush() did not write the record')
  return outcome
}

/** The ids of the file's lines, `torn` for a line that does not parse; every line must end. */
function savedIds(file: string): string[] {
  const lines = readFileSync(file, 'utf8').split('\n')
  expect(lines.at(-1)).toBe('')
  return lines.slice(0, -1).map((line) => {
    try {
      return JSON.parse(line).body.id
    } catch {
      return 'torn'
    }
  })
}

/**
 * A small tmpfs (the system tier: root with mount rights, as in CI), mounted for this test and unmounted after it.
 * A write that fails half-way (a full disk) must not leave a line that does not parse.
 */
describe('webhook listen --save on a full disk', () => {
  const mountPoint = smallDiskForThisFile('256k', 'paytx-full-disk-')

  it('a write cut short is rolled back: once space is freed, every line of the file parses', async () => {
    const dir = join(mountPoint, 'save')
    mkdirSync(dir)
    const file = join(dir, 'webhooks.ndjson')
    const cli = startCli(['webhook', 'listen', '--port', '0', '--json', '--save', file])
    try {
      const url = (await cli.waitForStdout(/"url":"([^"]+)"/))[1]
      expect(await send(url, webhook('tx-1'))).toBe(200)
      const filler = fillDisk(mountPoint)
      // The record no longer fits: part of it may be written before the disk is full.
      // A full disk passes: the sender is asked to send again later, and told nothing of permissions.
      expect(await send(url, webhook('tx-2'))).toBe(503)
      await cli.waitForStderr(/the disk is full; answered 503/)
      expect(cli.stderr()).not.toMatch(/permission/i)
      rmSync(filler)
      expect(await send(url, webhook('tx-3'))).toBe(200)
      await cli.waitForStdout(/"tx-3"/)
      const lines = readFileSync(file, 'utf8').split('\n')
      expect(lines.at(-1)).toBe('')
      const records = lines.slice(0, -1).map((line) => JSON.parse(line))
      expect(records.map((record) => record.body.id)).toEqual(['tx-1', 'tx-3'])
    } finally {
      await cli.stop('SIGKILL')
    }
  })

  it('a failed write cuts back only its own bytes: what another listener saving to the same file acknowledged since stays', () => {
    const file = join(mkdtempSync(join(mountPoint, 'shared-')), 'webhooks.ndjson')
    const [first, second] = [new WebhookRecorder(file), new WebhookRecorder(file)]
    try {
      for (const [recorder, id] of [[first, 'first-1'], [second, 'second-1'], [first, 'first-2'], [second, 'second-2']] as const) expect(save(recorder, id)).toBeUndefined()
      const filler = fillDisk(mountPoint)
      // Cut back to where `first` alone believed the file ended, second-1 and second-2 (acknowledged) were gone.
      expect((save(first, 'first-3', 'p'.repeat(6000)) as NodeJS.ErrnoException).code).toBe('ENOSPC')
      rmSync(filler)
      expect(save(second, 'second-3')).toBeUndefined()
      expect(save(first, 'first-4')).toBeUndefined()
      expect(savedIds(file)).toEqual(['first-1', 'second-1', 'first-2', 'second-2', 'second-3', 'first-4'])
    } finally {
      first.close()
      second.close()
    }
  })

  it('a line cut short by a kill -9 stays apart from the next record, even after a write failed in between', () => {
    const file = join(mkdtempSync(join(mountPoint, 'torn-')), 'webhooks.ndjson')
    const whole = JSON.stringify({seq: 1, received_at: new Date(0).toISOString(), method: 'POST', path: '/webhooks', headers: {}, body: {id: 'before'}, answered: 200})
    writeFileSync(file, `${whole}\n${whole.slice(0, 40)}`)
    const recorder = new WebhookRecorder(file)
    try {
      const filler = fillDisk(mountPoint)
      expect((save(recorder, 'refused', 'p'.repeat(6000)) as NodeJS.ErrnoException).code).toBe('ENOSPC')
      rmSync(filler)
      // Glued to the cut-short line, the acknowledged record would sit on a line that does not parse.
      expect(save(recorder, 'after')).toBeUndefined()
      expect(savedIds(file)).toEqual(['before', 'torn', 'after'])
    } finally {
      recorder.close()
    }
  })

  it('two listeners saving to one file, killed with SIGKILL mid-stream while the disk fills up: every webhook answered 2xx is in the file', async () => {
    const dir = mkdtempSync(join(mountPoint, 'stream-'))
    const file = join(dir, 'webhooks.ndjson')
    const clis = [0, 1].map(() => startCli(['webhook', 'listen', '--port', '0', '--json', '--save', file], {timeoutMs: 20_000}))
    try {
      const urls = await Promise.all(clis.map(async (cli) => new URL((await cli.waitForStdout(/"url":"([^"]+)"/))[1])))
      const senders = new WebhookSenders(urls, 'shared', {fresh: 4, keptAlive: 4, pipelines: 2, depth: 8, large: {every: 8, bytes: 6000}, maxWebhooks: 10_000})
      // Past the first refusals (the disk is full), the stream goes on for a while before the kill.
      await until(() => senders.refused >= 200, 8000)
      const results = await Promise.all(clis.map((cli) => cli.stop('SIGKILL')))
      senders.stop()
      await senders.finished()

      const saved = readSaveFile(file)
      const summary = `${senders.sent} sent, ${senders.acknowledged.size} acknowledged, ${senders.refused} refused, ${saved.ids.size} saved`
      expect(results.map((result) => result.signal)).toEqual(['SIGKILL', 'SIGKILL'])
      expect(senders.refused, summary).toBeGreaterThanOrEqual(200)
      expect(senders.acknowledged.size, summary).toBeGreaterThanOrEqual(100)
      expect(brokenPromises(senders.acknowledged, saved), summary).toEqual({missing: []})
    } finally {
      await Promise.all(clis.map((cli) => cli.stop('SIGKILL')))
      rmSync(dir, {recursive: true, force: true})
    }
  })
})
