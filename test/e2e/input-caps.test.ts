/**
 * Endless or oversized input is refused with exit 2 naming the flag, after reading little more
 * than the cap, and ids that cannot be one path segment are refused before anything is sent.
 */
import {spawn} from 'node:child_process'
import {openSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {BIN, type CliResult, ROOT, cleanEnv, runCli, tempConfigDir} from '../helpers/cli.js'
import {type RecordingServer, startRecordingServer} from '../helpers/recording-server.js'

/** Runs the CLI with stdin opened on a file (/dev/zero never ends); reports the child's peak RSS in KiB via /proc. */
function runWithStdinFrom(file: string, args: string[], env: Record<string, string>): Promise<CliResult & {peakRssKiB: number}> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {cwd: ROOT, env: cleanEnv(env), stdio: [openSync(file, 'r'), 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    let peakRssKiB = 0
    const sample = setInterval(() => {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8')
        peakRssKiB = Math.max(peakRssKiB, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0))
      } catch {
        // The process has ended between two samples.
      }
    }, 20)
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      clearInterval(sample)
      resolve({code, signal, stdout, stderr, peakRssKiB})
    })
  })
}

describe('input caps', () => {
  let server: RecordingServer
  beforeEach(async () => {
    server = await startRecordingServer()
  })
  afterEach(() => server.close())
  const env = () => ({PAYTX_BASE_URL: `${server.url}/v1`, PAYTX_API_KEY: 'sk_test_caps_0123456789abcdef'})

  it('status - </dev/zero stops at the longest line it reads through, with exit 2, in bounded memory, sending nothing', async () => {
    const result = await runWithStdinFrom('/dev/zero', ['status', '-'], env())
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('(stdin line 1) is not a transaction id: it is longer than 64 MiB; the rest of stdin was not read.')
    expect(result.peakRssKiB).toBeGreaterThan(0)
    expect(result.peakRssKiB).toBeLessThan(300 * 1024)
    expect(server.requests).toEqual([])
  })

  it('a 60 MB junk line between two ids is reported, both ids are sent, and the line is never held whole', async () => {
    const file = join(tempConfigDir(), 'ids-with-junk.txt')
    writeFileSync(file, `tx-before\n${'J'.repeat(60 * 1024 * 1024)}\ntx-after\n`)
    const result = await runWithStdinFrom(file, ['status', '-'], env())
    expect(result.code).toBe(1)
    expect(server.requests.map((request) => request.path).sort()).toEqual(['/v1/transaction/tx-after', '/v1/transaction/tx-before'])
    expect(result.stderr).toContain(`"${'J'.repeat(40)}… (62914560 bytes)" (stdin line 2) is not a transaction id: it is longer than 1 MiB (62914560 bytes)`)
    expect(result.stderr.length).toBeLessThan(4000)
    // A Node process doing this measures about 100 MiB; holding the line (and its text) would add 120 MiB and more.
    expect(result.peakRssKiB).toBeGreaterThan(0)
    expect(result.peakRssKiB).toBeLessThan(180 * 1024)
  })

  it('api --input - </dev/zero is refused at 10 MiB with exit 2 naming --input', async () => {
    const result = await runWithStdinFrom('/dev/zero', ['api', '/v1/customer', '--input', '-'], env())
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--input: stdin is larger than 10 MiB')
    expect(result.peakRssKiB).toBeGreaterThan(0)
    expect(result.peakRssKiB).toBeLessThan(300 * 1024)
    expect(server.requests).toEqual([])
  })

  it('api --input with a file over 10 MiB is refused from its size', async () => {
    const file = join(tempConfigDir(), 'big.json')
    writeFileSync(file, `"${'x'.repeat(11 * 1024 * 1024)}"`)
    const result = await runCli(['api', '/v1/customer', '--input', file], {env: env()})
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`--input: ${file} is larger than 10 MiB`)
    expect(server.requests).toEqual([])
  })

  it.each(['.', '..'])('status %s is refused with exit 2 before anything is sent', async (id) => {
    const result = await runCli(['status', id], {env: env()})
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('not a transaction id')
    expect(server.requests).toEqual([])
  })

  it('a 900 KB junk id on stdin is refused and echoed back cut to its first characters', async () => {
    const junk = 'J'.repeat(900_000)
    const result = await runCli(['status', '-'], {env: env(), input: `${junk}\n`})
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('(900000 characters)')
    expect(result.stderr.length).toBeLessThan(2000)
    expect(server.requests).toEqual([])
  })
})

describe('durations longer than a timer can wait', () => {
  let server: RecordingServer
  beforeEach(async () => {
    server = await startRecordingServer()
  })
  afterEach(() => server.close())
  const env = () => ({PAYTX_BASE_URL: `${server.url}/v1`, PAYTX_API_KEY: 'sk_test_caps_0123456789abcdef'})

  it.each([
    {args: ['status', 'tx-1', '--wait', '--wait-timeout', '30d'], flag: '--wait-timeout', largest: '596h'},
    {args: ['status', 'tx-1', '--timeout', '2147484'], flag: '--timeout', largest: '2147483 seconds'},
    {args: ['emulator', 'start', '--settle-after', '25d', '--store', ':memory:'], flag: '--settle-after', largest: '596h'},
  ])('$flag over 2^31-1 ms exits 2 naming the largest value, sending nothing', async ({args, flag, largest}) => {
    const result = await runCli(args, {env: env()})
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`${flag} can be at most ${largest}`)
    expect(result.stderr).not.toContain('TimeoutOverflowWarning')
    expect(server.requests).toEqual([])
  })
})

describe('a header HTTP cannot carry', () => {
  it('an API key with a DEL character is exit 2 naming the header, not a connection failure, and the key is not shown', async () => {
    const server = await startRecordingServer()
    try {
      const result = await runCli(['status', 'tx-1'], {env: {PAYTX_BASE_URL: `${server.url}/v1`, PAYTX_API_KEY: 'sk_test_del\u007Fkey_0123456789'}})
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('The X-APIKEY header holds DEL (U+007F) at position 12, which an HTTP header cannot carry; nothing was sent.')
      expect(result.stderr).not.toContain('sk_test_del')
      expect(server.requests).toEqual([])
    } finally {
      await server.close()
    }
  })
})

describe('ids the emulator commands send in a path', () => {
  it.each([
    ['emulator', 'trigger', '..', 'DECLINED'],
    ['emulator', 'resend', '.'],
  ])('%s %s %s is exit 2 before anything is sent', async (...args) => {
    const server = await startRecordingServer()
    try {
      const result = await runCli(args, {env: {PAYTX_BASE_URL: `${server.url}/v1`, PAYTX_API_KEY: 'sk_test_caps_0123456789abcdef'}})
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('is not a transaction id')
      expect(server.requests).toEqual([])
    } finally {
      await server.close()
    }
  })
})

describe('files that are no regular file', () => {
  // A device such as /dev/zero never ends: it is refused before anything reads it, naming the
  // file and what it is (FIFOs are read with the cap: test/input/input-file.test.ts).
  it.each([
    [['emulator', 'start', '--port', '0', '--store', ':memory:', '--faults', '/dev/zero'], '--faults: cannot read the fault file /dev/zero: it is a device, not a regular file.'],
    [['smoke', 'run', '/dev/zero'], 'Cannot read the scenario file /dev/zero: it is a device, not a regular file.'],
    [['smoke', 'merge', '/dev/zero'], '/dev/zero cannot be read: it is a device, not a regular file.'],
    [['customer', 'create', '--data', '/dev/zero'], '--data: cannot read /dev/zero: it is a device, not a regular file.'],
    [['api', '/v1/customer', '--input', '/dev/zero'], '--input: cannot read /dev/zero: it is a device, not a regular file.'],
    [['api', '/v1/customer', '-F', 'note=@/dev/zero'], '-F/--field note: cannot read /dev/zero: it is a device, not a regular file.'],
    [['status', '--from-file', '/dev/zero'], '--from-file /dev/zero cannot be read: it is a device, not a regular file.'],
    [['webhook', 'replay', '/dev/zero', '--to', 'http://127.0.0.1:9/hooks'], 'Cannot read the save file /dev/zero: it is a device, not a regular file.'],
  ])('%j is exit 2 before reading it', async (args, message) => {
    const result = await runCli(args, {env: {PAYTX_BASE_URL: 'http://127.0.0.1:9/v1', PAYTX_API_KEY: 'sk_test_caps_0123456789abcdef'}})
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(message)
  })
})
