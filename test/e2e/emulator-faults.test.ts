/**
 * `paytx emulator start --faults` in its own process: the file loaded, its seed reported, every
 * applied fault an NDJSON event. The faults commands are in test/commands/emulator/faults.test.ts.
 */
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {ROOT, startCli} from '../helpers/cli.js'

describe('emulator start --faults', () => {
  it('loads the file, reports its seed, and logs every applied fault as an NDJSON event', async () => {
    const cli = startCli(['emulator', 'start', '--port', '0', '--store', ':memory:', '--json', '--faults', join(ROOT, 'examples', 'faults.yaml'), '--seed', '5'])
    try {
      await cli.waitFor('stdout', /\n/)
      const listening = JSON.parse(cli.stdout().split('\n')[0])
      expect(listening).toMatchObject({event: 'listening', faults: 4, fault_seed: 5})
      const read = await fetch(`${listening.url}/v1/transaction/00000000-0000-4000-8000-000000000000`, {headers: {[listening.api_key_header]: listening.api_key}})
      expect(read.status).toBe(503)
      expect(read.headers.get('retry-after')).toBe('1')
      await cli.waitFor('stdout', /"event":"fault"/)
      const fault = cli
        .stdout()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
        .find((event) => event.event === 'fault')
      expect(fault).toMatchObject({rule: 'f1', name: 'first-read-unavailable', fault: 'status', on: 'request', method: 'GET'})
    } finally {
      await cli.stop()
    }
  })
})
