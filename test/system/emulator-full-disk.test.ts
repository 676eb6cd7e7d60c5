/**
 * The emulator on a real full disk: a small tmpfs (the system tier: root with mount rights), mounted for
 * this file. Writes are answered 503 with Retry-After while reads go on; nothing acknowledged is
 * lost; writing resumes when space is freed, without a restart; and an emulator started on the
 * full disk serves reads and says on stderr what is wrong. The same paths with the failure
 * injected, needing no mount, are in test/emulator/store/disk-full.test.ts.
 */
import {mkdirSync, rmSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {EMULATOR_DEFAULTS} from '../../src/test-mode/emulator-defaults.js'
import {startCli} from '../helpers/cli.js'
import {CUSTOMER_FIELDS} from '../helpers/fixtures.js'
import {fillDisk, smallDiskForThisFile} from '../helpers/small-disk.js'

const headers = {'content-type': 'application/json', 'X-APIKEY': EMULATOR_DEFAULTS.apiKey}
const createCustomer = (url: string) =>
  fetch(`${url}/v1/customer`, {method: 'POST', headers, body: JSON.stringify({...CUSTOMER_FIELDS, organisation: EMULATOR_DEFAULTS.organisation})})
const startDummy = (url: string, customer: string) =>
  fetch(`${url}/v1/transaction/start`, {
    method: 'POST',
    headers,
    body: JSON.stringify({amount: 250, customer, payment_product: 'dummy', details: {redirect_url: 'https://shop.example/back'}}),
  })
/** How many of the transactions can be read back. */
const readable = async (url: string, ids: string[]) => {
  let found = 0
  for (const id of ids) if ((await fetch(`${url}/v1/transaction/${id}`, {headers})).status === 200) found += 1
  return found
}

describe('emulator on a full disk (tmpfs)', () => {
  const mountPoint = smallDiskForThisFile('2m', 'paytx-emulator-full-')

  it('answers writes 503 and reads 200 while full, loses nothing acknowledged, writes again once space is freed, and starts on a full disk', async () => {
    const dir = join(mountPoint, 'store')
    mkdirSync(dir)
    const store = join(dir, 'emulator.db')
    const first = startCli(['emulator', 'start', '--port', '0', '--store', store], {timeoutMs: 60_000})
    const [, url] = await first.waitForStdout(/API\s+(http:\/\/127\.0\.0\.1:\d+)/)
    const customer = ((await (await createCustomer(url)).json()) as {id: string}).id
    const acknowledged: string[] = []
    const started = await startDummy(url, customer)
    expect(started.status).toBe(200)
    acknowledged.push(((await started.json()) as {id: string}).id)

    const filler = fillDisk(mountPoint, 4096)
    // Writes fail from the moment the last pages are gone; every answer is 200 (kept) or 503 (not kept).
    const statuses: number[] = []
    for (let index = 0; index < 200 && !statuses.includes(503); index++) {
      const answer = await startDummy(url, customer)
      statuses.push(answer.status)
      if (answer.status === 200) acknowledged.push(((await answer.json()) as {id: string}).id)
      else {
        expect(answer.headers.get('retry-after')).toBe('10')
        expect(((await answer.json()) as {code: string}).code).toBe('503')
      }
    }
    expect(statuses).toContain(503)
    expect(statuses.every((status) => status === 200 || status === 503)).toBe(true)
    await first.waitForStderr(/is full: the emulator goes on answering reads/)
    expect(first.stderr()).not.toMatch(/permission/i)
    expect(await readable(url, acknowledged)).toBe(acknowledged.length)

    // Restarted on the still-full disk: it starts, serves reads, and says what is wrong.
    expect((await first.stop()).code).toBe(130)
    const second = startCli(['emulator', 'start', '--port', '0', '--store', store], {timeoutMs: 60_000})
    const [, url2] = await second.waitForStdout(/API\s+(http:\/\/127\.0\.0\.1:\d+)/)
    expect(await readable(url2, acknowledged)).toBe(acknowledged.length)
    expect((await startDummy(url2, customer)).status).toBe(503)
    await second.waitForStderr(/is full/)

    rmSync(filler)
    expect((await startDummy(url2, customer)).status).toBe(200)
    await second.waitForStderr(/Space is back/)
    expect((await second.stop()).code).toBe(130)
  }, 90_000)
})
