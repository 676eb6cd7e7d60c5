/**
 * `paytx emulator faults add|list|clear` in-process against an emulator started in the test; the
 * fault file loaded by `emulator start --faults` is in test/e2e/emulator-faults.test.ts.
 */
import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type EmulatorEvent, type RunningEmulator, startEmulator} from '../../../src/emulator/index.js'
import {ROOT, parseJsonOutput} from '../../helpers/cli.js'
import {runCommand} from '../../helpers/run-command.js'
import {freePort} from '../../helpers/ports.js'
import {startRecordingServer} from '../../helpers/recording-server.js'

function tempFile(name: string, text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'paytx-faults-')), name)
  writeFileSync(file, text)
  return file
}

describe('emulator start --faults', () => {
  it('refuses a fault file with problems, naming each with its line and column (exit 2)', async () => {
    const file = tempFile(
      'faults.yaml',
      ['rules:', '  - fault: status', '    status: 200', '  - fault: drop', '    request: {path: /v1/customer}', '  - fault: explode', '    tims: 2'].join('\n'),
    )
    const result = await runCommand(['emulator', 'start', '--port', '0', '--store', ':memory:', '--faults', file])
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain(`The fault file ${file} has 3 problems; the emulator was not started:`)
    expect(result.stderr).toContain(`${file}:3:13: rules[0].status: must be an HTTP status from 400 to 599`)
    expect(result.stderr).toContain(`${file}:5:5: rules[1].request: unknown field "request"`)
    expect(result.stderr).toMatch(new RegExp(`${file}:6:12: rules\\[2\\]\\.fault: must be one of status, latency, reset, cut_body, drop, duplicate, out_of_order, delay; got "explode"`))
    expect(result.stdout).toBe('')

    const syntax = await runCommand(['emulator', 'start', '--port', '0', '--faults', tempFile('bad.json', '{"rules": [\n  {"fault": "drop",}\n]}')])
    expect(syntax.exitCode).toBe(2)
    expect(syntax.stderr).toMatch(/bad\.json:2:\d+: not valid JSON/)
    const missing = await runCommand(['emulator', 'start', '--port', '0', '--faults', join(tmpdir(), 'no-such-paytx-faults.yaml')])
    expect(missing.exitCode).toBe(2)
    expect(missing.stderr).toMatch(/--faults: cannot read the fault file .*: it does not exist\./)
  })
})

describe('emulator faults add | list | clear', () => {
  let emulator: RunningEmulator
  const events: EmulatorEvent[] = []
  const env = () => ({PAYTX_BASE_URL: emulator.url, PAYTX_H2H_URL: emulator.proxyUrl})

  beforeAll(async () => {
    emulator = await startEmulator({port: 0, settleAfterMs: 0, pendingForMs: 0, faults: {rules: [], seed: 3}, onEvent: (event) => events.push(event)})
  })
  afterAll(() => emulator.close())

  it('--url reaches the emulator there, whatever the profile and PAYTX_* say; a --url that is no address is exit 2', async () => {
    const elsewhere = {PAYTX_BASE_URL: 'http://127.0.0.1:9', PAYTX_PROFILE: 'local'}
    const listed = await runCommand(['emulator', 'faults', 'list', '--json', '--url', `${emulator.url}/`], {env: elsewhere})
    expect(listed.exitCode, listed.stderr).toBe(0)
    expect(parseJsonOutput(listed)).toMatchObject({seed: 3})
    const wrong = await runCommand(['emulator', 'faults', 'list', '--url', 'localhost:4010'], {env: elsewhere})
    expect(wrong.exitCode).toBe(2)
    expect(wrong.stderr).toContain('--url must be the emulator\'s http(s) address, such as http://127.0.0.1:4010 (got "localhost:4010")')
  })

  it('adds rules from flags and from a file, lists them with hit counts, removes one and clears', async () => {
    const added = await runCommand(
      ['emulator', 'faults', 'add', '--fault', 'status', '--http-status', '503', '--retry-after', '2s', '--method', 'get', '--path', '/v1/transaction/*', '--times', '1', '--name', 'busy'],
      {env: env()},
    )
    expect(added.exitCode, added.stderr).toBe(0)
    expect(added.stdout).toBe('Added fault rule f1 (busy): status 503 retry-after 2s on GET /v1/transaction/*, next 1\n')
    const fromFile = await runCommand(['emulator', 'faults', 'add', '--file', join(ROOT, 'examples', 'faults.yaml'), '--json'], {env: env()})
    expect(fromFile.exitCode, fromFile.stderr).toBe(0)
    expect(parseJsonOutput(fromFile).added.map((rule: any) => rule.id)).toEqual(['f2', 'f3', 'f4', 'f5'])

    const read = await fetch(`${emulator.url}/v1/transaction/abc`, {headers: {[emulator.apiKeyHeader]: emulator.apiKey}})
    expect(read.status).toBe(503)

    const listed = await runCommand(['emulator', 'faults', 'list'], {env: env()})
    expect(listed.exitCode).toBe(0)
    // In a pipe: tab-separated rows under a header line, the seed on stderr.
    const rows = listed.stdout.trim().split('\n')
    expect(rows[0]).toBe('ID\tNAME\tFAULT\tMATCHES\tAPPLIES\tHITS\tMATCHED')
    expect(rows[1]).toBe('f1\tbusy\tstatus 503 retry-after 2s\tGET /v1/transaction/*\tnext 1\t1\t1')
    expect(rows).toHaveLength(6)
    expect(listed.stderr).toContain('seed 42')
    const json = parseJsonOutput(await runCommand(['emulator', 'faults', 'list', '--json'], {env: env()}))
    expect(json.rules[0]).toMatchObject({id: 'f1', hits: 1, matched: 1, remaining: 0})

    const one = await runCommand(['emulator', 'faults', 'clear', 'f3'], {env: env()})
    expect(one.stdout).toBe('Removed fault rule f3.\n')
    const unknown = await runCommand(['emulator', 'faults', 'clear', 'f3'], {env: env()})
    expect(unknown.exitCode).toBe(1)
    expect(unknown.stderr).toMatch(/No fault rule has the id "f3"/)
    const all = await runCommand(['emulator', 'faults', 'clear', '--json'], {env: env()})
    expect(parseJsonOutput(all)).toEqual({removed: 4})
    expect(parseJsonOutput(await runCommand(['emulator', 'faults', 'list', '--json'], {env: env()})).rules).toEqual([])
  })

  it('refuses flags that do not fit the fault, naming them (exit 2, nothing sent)', async () => {
    const cases: [string[], RegExp][] = [
      [['--fault', 'status'], /--http-status: is required for the status fault/],
      [['--fault', 'drop', '--method', 'GET'], /--method does not apply to the drop fault \(a webhook fault\)/],
      [['--fault', 'latency', '--latency', 'soon'], /--latency: must be a duration greater than 0/],
      [['--fault', 'delay', '--delay', '1s', '--probability', '2'], /--probability: must be at most 1/],
      [['--fault', 'drop', '--webhook-status', 'PAID'], /--webhook-status: must be a transaction status/],
      [[], /Pass --fault \(or --file with a fault file\)\./],
    ]
    for (const [args, message] of cases) {
      const result = await runCommand(['emulator', 'faults', 'add', ...args], {env: env()})
      expect(result.exitCode, args.join(' ')).toBe(2)
      expect(result.stderr).toMatch(message)
    }
    expect(parseJsonOutput(await runCommand(['emulator', 'faults', 'list', '--json'], {env: env()})).rules).toEqual([])
  })

  it('refuses a profile that is not local (exit 2) and says how to start an emulator when none answers (exit 1)', async () => {
    const server = await startRecordingServer()
    const configDir = mkdtempSync(join(tmpdir(), 'paytx-faults-config-'))
    try {
      const add = await runCommand(['profile', 'add', 'sandbox', '--env', 'sandbox', '--base-url', server.url, '--api-key-stdin', '--no-input'], {configDir, input: 'sk_test_0123456789abcdef\n'})
      expect(add.exitCode, add.stderr).toBe(0)
      for (const args of [['list'], ['clear'], ['add', '--fault', 'reset']]) {
        const refused = await runCommand(['emulator', 'faults', ...args, '--profile', 'sandbox'], {configDir})
        expect(refused.exitCode).toBe(2)
        expect(refused.stderr).toMatch(/works on the local emulator only; profile "sandbox" is a sandbox profile/)
      }
      expect(server.requests).toHaveLength(0)
    } finally {
      await server.close()
    }
    const port = await freePort()
    const nobody = await runCommand(['emulator', 'faults', 'list'], {env: {PAYTX_BASE_URL: `http://127.0.0.1:${port}`}})
    expect(nobody.exitCode).toBe(1)
    expect(nobody.stderr).toContain('start one with `paytx emulator start`')
    // The profile's address in that remedy is redacted, in --json too, where the remedy is data.
    const withPassword = await runCommand(['emulator', 'faults', 'list', '--json'], {env: {PAYTX_BASE_URL: `http://paytx:s3cretpw@127.0.0.1:${port}`}})
    expect(withPassword.exitCode).toBe(1)
    expect(withPassword.stdout).toContain(`http://paytx:…@127.0.0.1:${port}`)
    expect(withPassword.stdout + withPassword.stderr).not.toContain('s3cretpw')
  })
})

describe('smoke cases with faults:', () => {
  let emulator: RunningEmulator
  const events: EmulatorEvent[] = []

  beforeAll(async () => {
    // Full bodies: with minimal ones the flow re-reads the status on a webhook, which would show
    // DECLINED even though its own webhook was dropped.
    emulator = await startEmulator({port: 0, settleAfterMs: 0, pendingForMs: 0, assumptions: {webhookPayload: 'full'}, onEvent: (event) => events.push(event)})
  })
  afterAll(() => emulator.close())

  it('paytx copes: a 503 on the first status read and a dropped webhook still reach the right verdict; the rules hold for their case only', async () => {
    const file = join(ROOT, 'examples', 'smoke-faults.yaml')
    const result = await runCommand(['smoke', 'run', file, '--json'], {env: {PAYTX_BASE_URL: emulator.url, PAYTX_H2H_URL: emulator.proxyUrl}})
    expect(result.exitCode, result.stderr).toBe(0)
    const report = parseJsonOutput(result)
    expect(report.cases.map((c: any) => [c.name, c.verdict, c.status])).toEqual([
      ['first-read-503', 'passed', 'SETTLEMENT_COMPLETED'],
      ['lost-webhook', 'passed', 'DECLINED'],
      ['untouched', 'passed', 'SETTLEMENT_COMPLETED'],
    ])
    const faults = events.filter((event) => event.event === 'fault') as any[]
    expect(faults.filter((event) => event.fault === 'status')).toHaveLength(1)
    expect(faults.filter((event) => event.fault === 'drop').map((event) => event.transaction)).toEqual([report.cases[1].transactionId])
    expect(report.cases[1].webhooks).not.toContain('DECLINED')
    // Every case's rules were removed when it ended.
    expect(((await (await fetch(`${emulator.url}/_emulator/faults`)).json()) as any).rules).toEqual([])
  })

  it('refuses faults: on a profile that is not local, before anything runs (exit 2)', async () => {
    const server = await startRecordingServer()
    const configDir = mkdtempSync(join(tmpdir(), 'paytx-faults-config-'))
    try {
      await runCommand(['profile', 'add', 'sandbox', '--env', 'sandbox', '--base-url', server.url, '--api-key-stdin', '--no-input'], {configDir, input: 'sk_test_0123456789abcdef\n'})
      const file = tempFile('sandbox.yaml', 'cases:\n  - {name: a, product: dummy, amount: 1, outcome: manual, faults: [{fault: reset}]}\n')
      const result = await runCommand(['smoke', 'run', file, '--profile', 'sandbox'], {configDir})
      expect(result.exitCode).toBe(2)
      expect(result.stderr).toMatch(/sandbox\.yaml:2: cases\[0\]: case "a" has faults:, which only the local emulator applies; profile "sandbox" is sandbox/)
      expect(server.requests).toHaveLength(0)
    } finally {
      await server.close()
    }
  })
})
