/**
 * `emulator verify` run in-process against "services" on 127.0.0.1 whose differences are known in
 * advance: emulators started with one assumption switched (each must be detected and named), and
 * an emulator behind a small rewriting proxy that changes its answers one way at a time (each must
 * be detected, classified and attributed right). Then the readings round trip: --save from a
 * switched emulator, --readings with that file: nothing breaking, exit 0.
 */
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {type IncomingMessage, type Server, type ServerResponse, createServer} from 'node:http'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'

import {tempConfigDir} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'
import {type EmulatorOptions, type RunningEmulator, startEmulator} from '../../src/emulator/index.js'
import type {Difference} from '../../src/emulator-verify/compare.js'
import type {VerifyReport} from '../../src/emulator-verify/run-verify.js'
import {parseReadings} from '../../src/emulator-readings/readings.js'

const closers: (() => Promise<unknown>)[] = []
afterAll(async () => {
  await Promise.allSettled(closers.map((close) => close()))
})

async function emulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const running = await startEmulator({port: 0, store: ':memory:', ...options})
  closers.push(() => running.close())
  return running
}

/** A config folder with one sandbox-labelled profile "sb" pointing at `base` (an emulator, or a proxy in front of one). */
function profileFor(target: RunningEmulator, base = target.url, keyHeader = target.apiKeyHeader): string {
  const dir = tempConfigDir()
  mkdirSync(dir, {recursive: true})
  const profile = {
    env: 'sandbox',
    base_url: `${base}/v1`,
    h2h_url: `${base}/h2h`,
    proxy_id: target.proxyId,
    organisation: target.organisation,
    payment_profile: target.paymentProfileId,
    api_key_header: keyHeader,
    api_key: target.apiKey,
    proxy_key: target.proxyKey,
  }
  writeFileSync(join(dir, 'profiles.json'), JSON.stringify({active: 'sb', profiles: {sb: profile}}), {mode: 0o600})
  return dir
}

async function verify(configDir: string, ...flags: string[]): Promise<{exitCode: number; report: VerifyReport; stdout: string; stderr: string}> {
  const result = await runCommand(['emulator', 'verify', '--profile', 'sb', '--json', '--webhook-wait', '1s', ...flags], {configDir})
  return {exitCode: result.exitCode, report: JSON.parse(result.stdout) as VerifyReport, stdout: result.stdout, stderr: result.stderr}
}

function allDifferences(report: VerifyReport): Difference[] {
  return [...report.probes.flatMap((probe) => probe.differences), ...report.behaviour]
}

/** Every assumption id named by a breaking or value difference. */
function namedAssumptions(report: VerifyReport): string[] {
  return [...new Set(allDifferences(report).filter((difference) => difference.class !== 'additive').flatMap((difference) => difference.assumptions))].sort()
}

describe('emulator verify against emulators with one switch flipped', () => {
  it('the same emulator: no difference, exit 0, every check named by the ids of emulator assumptions', async () => {
    const {exitCode, report} = await verify(profileFor(await emulator()))
    expect(allDifferences(report)).toEqual([])
    expect(exitCode).toBe(0)
    expect(report.emulator.assumptions).toEqual({'id-keys': 'both', 'card-record': 'earlier', 'webhook-body': 'minimal', 'webhook-retries': 'retried', 'api-key-header': 'X-APIKEY'})
    expect(report.checks.map((check) => check.assumption)).toContain('webhook-retries')
    expect(report.created.map((item) => item.what)).toEqual(['customer', 'card', 'transaction', 'transaction'])
  })

  it.each([
    ['--id-keys id', {assumptions: {idKeys: 'id'}}, ['card-record', 'id-keys']],
    ['--id-keys _id', {assumptions: {idKeys: '_id'}}, ['card-record', 'id-keys']],
    ['--card-record request-names', {assumptions: {cardRecord: 'request-names'}}, ['card-record']],
    ['--webhook-payload full', {assumptions: {webhookPayload: 'full'}}, []],
    ['--webhook-attempts 1', {webhookAttempts: 1}, ['webhook-retries']],
    ['--abandon-after 300ms', {abandonAfterMs: 300}, ['status-moves']],
  ] as const)('%s: detected and named, exit 5', async (_switch, options, named) => {
    const {exitCode, report} = await verify(profileFor(await emulator(options as EmulatorOptions)))
    expect(namedAssumptions(report)).toEqual(named)
    expect(allDifferences(report).length).toBeGreaterThan(0)
    expect(exitCode).toBe(named.length > 0 ? 5 : 0)
  })

  it('--webhook-payload full: the extra webhook fields are additive and name webhook-body; --strict fails on them', async () => {
    const configDir = profileFor(await emulator({assumptions: {webhookPayload: 'full'}}))
    const {report} = await verify(configDir)
    expect(report.behaviour).toContainEqual(expect.objectContaining({probe: 'webhook', path: 'status', class: 'additive', assumptions: ['webhook-body']}))
    expect((await verify(configDir, '--strict')).exitCode).toBe(5)
  })

  it('--api-key-header X-API-KEY (a profile that sends it there): the header difference names api-key-header', async () => {
    const target = await emulator({apiKeyHeader: 'X-API-KEY'})
    const {exitCode, report} = await verify(profileFor(target, target.url, 'X-API-KEY'))
    expect(report.behaviour).toEqual([expect.objectContaining({probe: 'api-key', kind: 'behaviour', class: 'breaking', assumptions: ['api-key-header']})])
    expect(exitCode).toBe(5)
  })
})

type Rewrite = (answer: {method: string; path: string; status: number; body: any}) => {status: number; body: any} | undefined

/** A proxy in front of `target` that rewrites its answers (and, with `keyHeader`, takes the key in another header). */
async function rewritingProxy(target: RunningEmulator, rewrite: Rewrite, keyHeader?: string): Promise<string> {
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', async () => {
      const headers: Record<string, string> = {'content-type': 'application/json'}
      for (const name of ['tx-proxy-key', keyHeader ?? target.apiKeyHeader]) {
        const value = req.headers[name.toLowerCase()]
        if (typeof value === 'string') headers[name === keyHeader ? target.apiKeyHeader : name] = value
      }
      const answer = await fetch(`${target.url}${req.url}`, {method: req.method, headers, body: chunks.length > 0 ? Buffer.concat(chunks) : undefined})
      const text = await answer.text()
      const body = text ? JSON.parse(text) : undefined
      const changed = rewrite({method: req.method!, path: req.url!.split('?')[0]!, status: answer.status, body}) ?? {status: answer.status, body}
      res.writeHead(changed.status, {'content-type': 'application/json'}).end(JSON.stringify(changed.body))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  closers.push(() => new Promise((resolve) => server.close(resolve)))
  return `http://127.0.0.1:${(server.address() as {port: number}).port}`
}

const isStart = (a: {method: string; path: string}) => a.method === 'POST' && a.path === '/v1/transaction/start'
const isRead = (a: {method: string; path: string}) => a.method === 'GET' && /^\/v1\/transaction\/[^/]+$/.test(a.path)

describe('emulator verify against a service changed one way at a time', () => {
  it.each<[string, Rewrite, Partial<Difference>, number]>([
    [
      'a renamed field',
      (a) => (isStart(a) && a.status === 200 ? {status: 200, body: (({payment_product_type, ...rest}) => ({...rest, product_type: payment_product_type}))(a.body)} : undefined),
      {probe: 'transaction-start', path: 'payment_product_type', kind: 'only-emulator', class: 'breaking', assumptions: []},
      5,
    ],
    ['a number as a string', (a) => (isRead(a) && a.status === 200 ? {status: 200, body: {...a.body, amount: 100}} : undefined), {probe: 'transaction', path: 'amount', kind: 'type', class: 'breaking', real: 'number', emulator: 'string', assumptions: []}, 5],
    ['201 for 200', (a) => (a.path.startsWith('/h2h/') && a.status === 200 ? {status: 201, body: a.body} : undefined), {probe: 'card', path: '', kind: 'http-status', class: 'breaking', real: '201', emulator: '200', assumptions: []}, 5],
    ['an error wrapped', (a) => (isStart(a) && a.status === 400 ? {status: 400, body: {error: a.body}} : undefined), {probe: 'invalid-amount', path: 'message', kind: 'only-emulator', class: 'breaking', assumptions: []}, 5],
    ['an error code of another value', (a) => (isStart(a) && a.status === 400 ? {status: 400, body: {...a.body, code: '101'}} : undefined), {probe: 'invalid-amount', path: 'code', kind: 'value', class: 'value', assumptions: ['error-statuses']}, 5],
    ['an extra field', (a) => (isRead(a) && a.status === 200 ? {status: 200, body: {...a.body, reason_code: ''}} : undefined), {probe: 'transaction', path: 'reason_code', kind: 'only-real', class: 'additive', assumptions: []}, 0],
    ['an enumeration value', (a) => (isStart(a) && a.status === 200 ? {status: 200, body: {...a.body, status: 'PENDING'}} : undefined), {probe: 'transaction-start', path: 'status', kind: 'enum', class: 'breaking', assumptions: []}, 5],
    ['an amount form', (a) => (isStart(a) && a.status === 200 ? {status: 200, body: {...a.body, amount: '1.00'}} : undefined), {probe: 'transaction-start', path: 'amount', kind: 'value', class: 'value', assumptions: []}, 5],
    [
      'a sofort sender field not a string',
      (a) => (isStart(a) && a.status === 200 && a.body.details?.sender ? {status: 200, body: {...a.body, details: {...a.body.details, sender: {...a.body.details.sender, iban: null}}}} : undefined),
      {probe: 'transaction-start-sofort', path: 'details.sender.iban', kind: 'type', class: 'breaking', assumptions: ['sofort-sender']},
      5,
    ],
  ])('%s: detected, classified and attributed', async (_label, rewrite, expected, exit) => {
    const target = await emulator()
    const {exitCode, report} = await verify(profileFor(target, await rewritingProxy(target, rewrite)))
    expect(allDifferences(report)).toContainEqual(expect.objectContaining(expected))
    expect(exitCode).toBe(exit)
  })

  it('another auth header: the service takes the key in X-API-KEY, the emulator in X-APIKEY', async () => {
    const target = await emulator()
    const {exitCode, report} = await verify(profileFor(target, await rewritingProxy(target, () => undefined, 'X-API-KEY'), 'X-API-KEY'))
    expect(allDifferences(report)).toEqual([expect.objectContaining({probe: 'api-key', real: 'takes the key in X-API-KEY', emulator: 'takes it in X-APIKEY', assumptions: ['api-key-header']})])
    expect(exitCode).toBe(5)
  })

  it('a refused key: said once, nothing after the first request, exit 1', async () => {
    const target = await emulator()
    let requests = 0
    const proxy = await rewritingProxy(target, () => {
      requests += 1
      return {status: 401, body: {code: '401', message: 'invalid API key'}}
    })
    const configDir = profileFor(target, proxy)
    const {exitCode, report} = await verify(configDir)
    expect(exitCode).toBe(1)
    expect(report.refused).toEqual({status: 401, message: 'invalid API key', header: 'X-APIKEY'})
    expect(requests).toBe(1)
    const text = await runCommand(['emulator', 'verify', '--profile', 'sb', '--webhook-wait', '0s'], {configDir})
    expect(text.stdout.trim().split('\n')).toEqual([
      '✖ The service refused the API key of profile "sb", sent in X-APIKEY (HTTP 401:',
      '  invalid API key). Nothing more was sent: check the key, and the header the',
      '  service reads it from (assumption api-key-header).',
    ])
    expect(text.exitCode).toBe(1)
  })
})

describe('the readings round trip', () => {
  it('--save from a switched emulator, then --readings with that file: no breaking difference, exit 0', async () => {
    const target = await emulator({assumptions: {idKeys: 'id', cardRecord: 'request-names', webhookPayload: 'full'}, webhookAttempts: 1})
    const configDir = profileFor(target)
    const file = join(configDir, 'readings.json')
    const saved = await verify(configDir, '--save', file)
    expect(saved.exitCode).toBe(5)
    expect(saved.stderr).toContain(`Readings written to ${file}: \`paytx emulator start --readings ${file}\` answers with them.`)
    const readings = parseReadings(readFileSync(file, 'utf8'), file)
    if (typeof readings === 'string') throw new Error(readings)
    expect(readings.assumptions).toEqual({'id-keys': 'id', 'card-record': 'request-names', 'webhook-body': 'full', 'webhook-retries': 'not-retried', 'api-key-header': 'X-APIKEY'})
    expect(readings.additive).toContainEqual({request: 'card', status: 200, path: 'created_at', form: 'string (ISO 8601 time)'})
    expect(readings.additive).toContainEqual({request: 'webhook', path: 'amount', form: 'string (digits)'})
    const adopted = await verify(configDir, '--readings', file)
    expect(allDifferences(adopted.report).filter((difference) => difference.class !== 'additive')).toEqual([])
    expect(adopted.report.emulator.assumptions).toMatchObject({'id-keys': 'id', 'card-record': 'request-names', 'webhook-body': 'full', 'webhook-retries': 'not-retried'})
    expect(adopted.exitCode).toBe(0)
  })

  it('several switches and a service sending fields of its own: --save, then --readings against the same: no breaking and no additive difference, exit 0 even with --strict', async () => {
    const target = await emulator({assumptions: {idKeys: 'id', cardRecord: 'request-names', webhookPayload: 'full'}, webhookAttempts: 1, abandonAfterMs: 700})
    // The service also sends fields the emulator's contract lacks: in answers, errors included, nested too.
    const extra: Rewrite = (a) => {
      if (a.method === 'POST' && a.path === '/v1/customer' && a.status === 200) return {status: 200, body: {...a.body, risk: {score: 12, checked_at: '2026-01-02T03:04:05.678Z', flags: ['new']}}}
      if (isRead(a) && a.status === 200) return {status: 200, body: {...a.body, reason_code: '', trace_id: '7d1f0c9e-1111-4222-8333-444455556666'}}
      if (isRead(a) && a.status === 404) return {status: 404, body: {...a.body, trace_id: '7d1f0c9e-1111-4222-8333-444455556666'}}
      if (isStart(a) && a.status === 200) return {status: 200, body: {...a.body, fee: 0.25, settled_at: null}}
      return undefined
    }
    const configDir = profileFor(target, await rewritingProxy(target, extra))
    const file = join(configDir, 'readings.json')
    const run = (...flags: string[]) => runCommand(['emulator', 'verify', '--profile', 'sb', '--json', '--webhook-wait', '2s', ...flags], {configDir})
    const saved = await run('--save', file)
    const savedReport = JSON.parse(saved.stdout) as VerifyReport
    expect(allDifferences(savedReport).filter((difference) => difference.class === 'additive').map((difference) => `${difference.probe} ${difference.path}`)).toEqual(
      expect.arrayContaining(['customer risk', 'transaction reason_code', 'transaction trace_id', 'unknown-transaction trace_id', 'transaction-start fee', 'transaction-start settled_at', 'transaction-start-sofort fee']),
    )
    const readings = parseReadings(readFileSync(file, 'utf8'), file)
    if (typeof readings === 'string') throw new Error(readings)
    expect(readings.additive).toContainEqual({request: 'customer', status: 200, path: 'risk.checked_at', form: 'string (ISO 8601 time)'})
    expect(readings.additive).toContainEqual({request: 'unknown-transaction', status: 404, path: 'trace_id', form: 'string (UUID)'})
    expect(readings.timing?.['abandon-after']).toMatchObject({seen: 'observed', value: expect.any(Number)})
    expect(Math.abs(readings.timing!['abandon-after'].value! - 700)).toBeLessThanOrEqual(readings.timing!['abandon-after'].tolerance!)
    expect(readings.timing?.['settle-after']).toMatchObject({seen: 'not-seen', how: expect.stringContaining('approval page')})
    const adopted = await run('--readings', file, '--strict')
    const report = JSON.parse(adopted.stdout) as VerifyReport
    expect(allDifferences(report)).toEqual([])
    expect(adopted.exitCode).toBe(0)
    const start = report.probes.find((probe) => probe.probe === 'transaction-start')!
    expect(start.emulator!.body).toMatchObject({fee: 0, settled_at: null})
  })

  it('a readings file that is not one: exit 2 naming --readings, nothing sent', async () => {
    const target = await emulator()
    let requests = 0
    const configDir = profileFor(target, await rewritingProxy(target, () => void (requests += 1)))
    const file = join(configDir, 'bad.json')
    writeFileSync(file, JSON.stringify({version: 9}))
    const result = await runCommand(['emulator', 'verify', '--profile', 'sb', '--readings', file], {configDir})
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain('--readings')
    expect(result.stderr).toContain('version 9')
    expect(requests).toBe(0)
  })
})

describe('what verify shows of secrets', () => {
  it('--json and --verbose mask card numbers and keys, also where the service echoes them', async () => {
    const target = await emulator()
    const echo: Rewrite = (a) => {
      if (a.path.startsWith('/h2h/') && a.status === 200) return {status: 200, body: {...a.body, pan: '4024007108173153', note: 'card 4024 0071 0817 3153 stored'}}
      if (isRead(a) && a.status === 401) return {status: 401, body: {...a.body, message: `key ${target.apiKey} refused`, api_key: target.apiKey}}
      return undefined
    }
    const configDir = profileFor(target, await rewritingProxy(target, echo))
    const result = await runCommand(['emulator', 'verify', '--profile', 'sb', '--json', '--verbose', '--webhook-wait', '0s'], {configDir})
    expect(result.stderr).toMatch(/→ POST http:\/\/127\.0\.0\.1:\d+\/v1\/customer/)
    expect(result.stderr).toMatch(/→ POST http:\/\/127\.0\.0\.1:\d+\/h2h\/tokenize\/proxy\//)
    for (const output of [result.stdout, result.stderr]) {
      expect(output).not.toContain('4024007108173153')
      expect(output).not.toContain('4024 0071 0817 3153')
      expect(output).not.toContain(target.apiKey)
      expect(output).not.toContain(target.proxyKey)
    }
    expect(result.stdout).toContain('3153')
  })
})

describe('webhooks through an address of the user', () => {
  it('--webhook-url with --webhook-port: the service is given that address (with the listener\'s path and key) and its webhooks arrive through it', async () => {
    const {freePort} = await import('../helpers/ports.js')
    const target = await emulator({assumptions: {idKeys: 'id'}})
    const listenerPort = await freePort()
    let forwarded = 0
    // The user's "public" address: a forwarder to verify's listener.
    const forwarder = createServer((req, res) => {
      forwarded += 1
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => chunks.push(chunk))
      req.on('end', async () => {
        const answer = await fetch(`http://127.0.0.1:${listenerPort}${req.url}`, {method: 'POST', headers: {'content-type': 'application/json'}, body: Buffer.concat(chunks)})
        res.writeHead(answer.status).end(await answer.text())
      })
    })
    await new Promise<void>((resolve) => forwarder.listen(0, '127.0.0.1', resolve))
    closers.push(() => new Promise((resolve) => forwarder.close(resolve)))
    const publicUrl = `http://127.0.0.1:${(forwarder.address() as {port: number}).port}`
    const {report} = await verify(profileFor(target), '--webhook-url', publicUrl, '--webhook-port', String(listenerPort))
    expect(forwarded).toBeGreaterThanOrEqual(2)
    expect(report.behaviour).toContainEqual(expect.objectContaining({probe: 'webhook', path: '_id', assumptions: ['id-keys']}))
    expect(report.checks.find((check) => check.assumption === 'webhook-retries')?.checked).toBe('yes')
  })

  it.each([
    [['--webhook-url', 'http://127.0.0.1:1'], '--webhook-port'],
    [['--webhook-port', '4021'], '--webhook-port'],
    [['--webhook-url', 'hooks.example.com', '--webhook-port', '4021'], '--webhook-url'],
  ])('%j: exit 2 naming %s, nothing sent', async (flags, named) => {
    const target = await emulator()
    let requests = 0
    const configDir = profileFor(target, await rewritingProxy(target, () => void (requests += 1)))
    const result = await runCommand(['emulator', 'verify', '--profile', 'sb', ...flags], {configDir})
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain(named)
    expect(requests).toBe(0)
  })
})

describe('one description of the requests', () => {
  it('a profile with no payment profile: neither side is sent one, and the two sides\' request bodies have the same fields', async () => {
    const target = await emulator()
    const configDir = profileFor(target)
    const file = join(configDir, 'profiles.json')
    const stored = JSON.parse(readFileSync(file, 'utf8'))
    delete stored.profiles.sb.payment_profile
    writeFileSync(file, JSON.stringify(stored))
    const result = await runCommand(['emulator', 'verify', '--profile', 'sb', '--verbose', '--webhook-wait', '0s'], {configDir})
    // Request bodies: the JSON lines between a request (→) and its answer (←).
    const bodies: string[] = []
    let inRequest = false
    for (const line of result.stderr.split('\n')) {
      if (line.startsWith('→')) inRequest = true
      else if (line.startsWith('←')) inRequest = false
      else if (inRequest && line.startsWith('  {')) bodies.push(Object.keys(JSON.parse(line.trim())).join(','))
    }
    // Each request once to the service, then once to the emulator: the same fields each time.
    expect(bodies.length).toBeGreaterThanOrEqual(12)
    for (let index = 0; index < bodies.length; index += 2) expect(bodies[index + 1], `request ${index / 2 + 1}`).toBe(bodies[index])
    expect(bodies.filter((keys) => keys.includes('amount'))).not.toEqual([])
    expect(bodies.some((keys) => keys.split(',').includes('payment_profile'))).toBe(false)
  })
})

describe('when verify cannot run', () => {
  it('a service that does not answer: exit 1 with what to do, no stack trace, the emulator side closed', async () => {
    const {freePort} = await import('../helpers/ports.js')
    const target = await emulator()
    const port = await freePort()
    const configDir = profileFor(target, `http://127.0.0.1:${port}`)
    const result = await runCommand(['emulator', 'verify', '--profile', 'sb', '--webhook-wait', '0s'], {configDir})
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toMatch(/^Error: .*127\.0\.0\.1:\d+/m)
    expect(result.stderr).not.toMatch(/\n\s+at /)
    expect(result.stdout).toBe('')
  })
})

describe('webhooks through a tunnel', () => {
  it('--tunnel-command: the tunnel is started to the listener\'s port, its address (with the listener\'s path and key) given to the service, and stopped at the end', async () => {
    const target = await emulator()
    const configDir = profileFor(target)
    const seen = join(configDir, 'tunnel-port')
    // A "tunnel" that notes the port it was given and reports an address nothing answers at.
    const script = join(configDir, 'tunnel.cjs')
    writeFileSync(script, `require('node:fs').writeFileSync(${JSON.stringify(seen)}, process.argv[2] + ' ' + process.pid); console.log('https://tunnel.invalid'); setInterval(() => {}, 1000)`)
    const result = await runCommand(['emulator', 'verify', '--profile', 'sb', '--json', '--webhook-wait', '1s', '--tunnel-command', `node ${script} {port}`, '--webhook-port', String(await (await import('../helpers/ports.js')).freePort())], {configDir})
    const report = JSON.parse(result.stdout) as VerifyReport
    const start = report.probes.find((probe) => probe.probe === 'transaction-start')!
    const [port, pid] = readFileSync(seen, 'utf8').split(' ').map(Number)
    expect(port).toBeGreaterThan(0)
    // Stopped when verify ended.
    expect(() => process.kill(pid!, 0)).toThrow()
    // The service was told the tunnel's address; the emulator side its own listener.
    expect((start.real!.body as {webhook_transaction_update: string}).webhook_transaction_update).toMatch(/^https:\/\/tunnel\.invalid\/webhooks\?key=/)
    expect((start.emulator!.body as {webhook_transaction_update: string}).webhook_transaction_update).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks\?key=/)
  })
})

describe('production is refused by address', () => {
  it.each([
    ['a sandbox-labelled profile at the production host', {base_url: 'https://API.spryngpayments.com./v1'}, {}],
    ['its card proxy at the production host', {h2h_url: 'https://tgapi.tokenex.com:443'}, {}],
    ['PAYTX_BASE_URL at the production host', {}, {PAYTX_BASE_URL: 'https://api.spryngpayments.com/v1'}],
  ])('%s: exit 2, nothing sent (no request logged with --verbose)', async (_label, addresses, env) => {
    const target = await emulator()
    const configDir = profileFor(target)
    const file = join(configDir, 'profiles.json')
    const stored = JSON.parse(readFileSync(file, 'utf8'))
    Object.assign(stored.profiles.sb, addresses)
    writeFileSync(file, JSON.stringify(stored))
    const result = await runCommand(['emulator', 'verify', '--profile', 'sb', '--verbose'], {configDir, env})
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain('it refuses production profiles ("sb" is production')
    expect(result.stderr).not.toMatch(/^→/m)
    expect(result.stdout).toBe('')
  })
})
