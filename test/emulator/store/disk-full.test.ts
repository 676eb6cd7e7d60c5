/**
 * The emulator on a full disk, the failure injected at the store's transaction (the default tier
 * has no mount rights; test/system/emulator-full-disk.test.ts fills a real small tmpfs): a write
 * is answered 503 with the service's error object and Retry-After, rolled back whole; reads go on;
 * the outbox does not crash when it cannot record an attempt; writes resume when space returns.
 */
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterEach, describe, expect, it, vi} from 'vitest'

import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js'
import {EmulatorStore} from '../../../src/emulator/store/index.js'
import {emulatorApi} from '../../helpers/emulator-api.js'
import {type RecordingServer, startRecordingServer} from '../../helpers/recording-server.js'
import {waitFor} from '../../helpers/wait-for.js'

/** While `disk.full`, every store transaction fails as SQLite fails on a full disk. */
const disk = {full: false}
function injectDiskFull(): void {
  const prototype = EmulatorStore.prototype as unknown as {inTransaction: (change: () => unknown) => unknown}
  const real = prototype.inTransaction
  vi.spyOn(prototype, 'inTransaction').mockImplementation(function (this: unknown, change: () => unknown) {
    if (disk.full) throw Object.assign(new Error('SQLITE_FULL: database or disk is full'), {code: 'SQLITE_FULL'})
    return real.call(this, change)
  })
}

describe('emulator on a full disk (injected)', () => {
  let emulator: RunningEmulator | undefined
  let receiver: RecordingServer | undefined
  afterEach(async () => {
    disk.full = false
    vi.restoreAllMocks()
    await emulator?.close()
    await receiver?.close()
  })

  it('answers writes 503 with Retry-After and the service error object, keeps serving reads, says so once, and writes again when space returns', async () => {
    injectDiskFull()
    const log: string[] = []
    emulator = await startEmulator({port: 0, store: join(mkdtempSync(join(tmpdir(), 'paytx-full-')), 'emulator.db'), log: (line) => log.push(line)})
    const api = emulatorApi(emulator)
    const {transaction} = await api.startPayment('dummy')

    disk.full = true
    for (let index = 0; index < 2; index++) {
      const refused = await api.createCustomer()
      expect(refused.status).toBe(503)
      expect(refused.headers.get('retry-after')).toBe('10')
      expect(refused.body).toEqual({code: '503', message: expect.stringContaining('its disk is full'), details: {store: 'the disk is full'}})
    }
    const read = await api.transaction(transaction.id)
    expect(read.status).toBe(200)
    expect(read.body.id).toBe(transaction.id)
    expect(log.filter((line) => line.includes('is full'))).toHaveLength(1)
    expect(log.join('\n')).not.toMatch(/permission/i)

    disk.full = false
    expect((await api.createCustomer()).status).toBe(200)
    expect(log.some((line) => line.startsWith('Space is back'))).toBe(true)
  })

  it('does not crash when a webhook attempt cannot be recorded, and delivers it once space returns', async () => {
    injectDiskFull()
    let posts = 0
    receiver = await startRecordingServer(() => {
      posts += 1
      // The receiver answers; recording that answer then fails.
      if (posts === 1) disk.full = true
      return {status: 200, json: {}}
    })
    emulator = await startEmulator({port: 0, store: join(mkdtempSync(join(tmpdir(), 'paytx-full-')), 'emulator.db'), webhookUrl: `${receiver.url}/hook`, webhookTimeoutMs: 200})
    const api = emulatorApi(emulator)
    const {transaction} = await api.startPayment('dummy')
    await waitFor(() => posts >= 1, 'the first webhook')
    // Still answering: the failed record did not take the process down.
    expect((await api.transaction(transaction.id)).status).toBe(200)
    disk.full = false
    // The claim runs out (the attempt's timeout plus a margin) and the attempt is made again.
    await waitFor(() => posts >= 2, 'the webhook again', 10_000)
    expect(receiver.requests.map((request) => request.rawBody).every((body) => body.includes(transaction.id))).toBe(true)
  }, 20_000)
})
