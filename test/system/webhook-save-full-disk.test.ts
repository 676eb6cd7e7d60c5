import {mkdirSync, readFileSync, rmSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {startCli} from '../helpers/cli.js'
import {postJson} from '../helpers/post-json.js'
import {fillDisk, smallDiskForThisFile} from '../helpers/small-disk.js'

const send = async (url: string, body: string) => (await postJson(url, body)).status

const webhook = (id: string) => JSON.stringify({type: 'transaction', id, status: 'INITIATED', padding: 'p'.repeat(6000)})

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
})
