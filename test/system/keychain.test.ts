/**
 * Keys in the OS keychain, against a real Secret Service (a private D-Bus session bus and an
 * unlocked gnome-keyring-daemon in a temporary folder; see test/helpers/secret-service.ts): the
 * round trip, where `profile show` says each key lives, removal, environment overrides, keys an
 * older paytx left in the file, --insecure-storage, a keychain that hangs, and none at all.
 */
import {readFileSync, readdirSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {type CliOptions, parseJsonOutput, runCli, tempConfigDir} from '../helpers/cli.js'
import {type RecordingServer, startRecordingServer} from '../helpers/recording-server.js'
import {type SecretService, startSecretService} from '../helpers/secret-service.js'

const API_KEY = 'sk_live_keychain_7c1d9e2f4a6b8c0d'
const PROXY_KEY = 'pk_live_keychain_0e9d8c7b6a5f4e3d'
const TX_ID = '9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c'
const TX = {id: TX_ID, status: 'SETTLEMENT_COMPLETED', amount: '1499', payment_product: 'dummy', details: {}}
const CARD_ARGS = ['card', 'tokenize', '--customer', 'cus-1', '--expiry-month', '12', '--expiry-year', '2031', '--holder-name', 'Jane Doe', '--pan-stdin', '--yes']

/** Every file under `dir` whose bytes contain `text`. */
function filesHolding(dir: string, text: string): string[] {
  return readdirSync(dir, {recursive: true, encoding: 'utf8'})
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile() && readFileSync(path).includes(text))
}

function storedProfile(configDir: string, name: string): Record<string, string> {
  return JSON.parse(readFileSync(join(configDir, 'profiles.json'), 'utf8')).profiles[name]
}

describe('keys in the OS keychain (a real Secret Service)', () => {
  let keyring: SecretService
  let server: RecordingServer
  let configDir: string

  beforeAll(async () => {
    keyring = await startSecretService()
    server = await startRecordingServer((req) => {
      if (req.path === `/v1/transaction/${TX_ID}`) return {json: TX}
      if (req.method === 'POST' && req.path.startsWith('/h2h/tokenize/')) return {json: {id: 'card-1', brand: 'VISA', last4: '3153'}}
      return undefined
    })
  }, 30_000)
  afterAll(async () => {
    await server?.close()
    await keyring?.stop()
  })
  beforeEach(() => {
    configDir = tempConfigDir()
    server.requests.length = 0
  })

  const cli = (args: string[], options: CliOptions = {}) => runCli(args, {configDir, ...options, env: {...keyring.env, ...options.env}})
  const addProfile = (name: string, extra: string[] = [], options: CliOptions = {}) =>
    cli(['profile', 'add', name, '--env', 'production', '--base-url', `${server.url}/v1`, '--h2h-url', `${server.url}/h2h`, '--proxy-id', '1234567890123456', '--api-key-stdin', '--proxy-key-stdin', ...extra], {
      input: `${API_KEY}\n${PROXY_KEY}\n`,
      ...options,
    })
  const keychainHolds = (account: string) => keyring.secretTool('lookup', 'service', 'paytx', 'username', account)

  it('stores both keys in the keychain, leaves only references in profiles.json, and commands use them', async () => {
    const added = await addProfile('acme-live')
    expect(added.code, added.stderr).toBe(0)
    expect(added.stderr).not.toMatch(/keychain is not available/)
    expect(added.stdout).toMatch(/^API key\s+sk_l…8c0d {2}\(keychain\)$/m)
    expect(added.stdout).toMatch(/^Proxy key\s+pk_l…4e3d {2}\(keychain\)$/m)

    const stored = storedProfile(configDir, 'acme-live')
    expect(stored.api_key).toBeUndefined()
    expect(stored.proxy_key).toBeUndefined()
    expect(stored.api_key_keychain).toMatch(/^acme-live\/api_key\/[0-9a-f]{8}$/)
    expect(keychainHolds(stored.api_key_keychain)).toBe(API_KEY)
    expect(keychainHolds(stored.proxy_key_keychain)).toBe(PROXY_KEY)
    expect(filesHolding(configDir, API_KEY)).toEqual([])
    expect(filesHolding(configDir, PROXY_KEY)).toEqual([])

    const shown = await cli(['profile', 'show', 'acme-live', '--json'])
    expect(shown.code, shown.stderr).toBe(0)
    expect(parseJsonOutput(shown)).toMatchObject({api_key: 'sk_l…8c0d', api_key_location: 'keychain', proxy_key: 'pk_l…4e3d', proxy_key_location: 'keychain'})
    expect(shown.stdout).not.toContain(API_KEY)

    const status = await cli(['status', TX_ID, '--profile', 'acme-live', '--json'])
    expect(status.code, status.stderr).toBe(0)
    expect(parseJsonOutput(status)).toEqual(TX)
    expect(server.requests.at(-1)!.headers['x-apikey']).toBe(API_KEY)
    expect(status.stderr).not.toContain(API_KEY)

    const card = await cli([...CARD_ARGS, '--profile', 'acme-live'], {input: '4024007108173153\n'})
    expect(card.code, card.stderr).toBe(0)
    expect(server.requests.at(-1)!.headers['tx-proxy-key']).toBe(PROXY_KEY)
  })

  it('says where each key lives in profile show and list', async () => {
    await addProfile('acme-live')
    const shown = await cli(['profile', 'show', 'acme-live'])
    expect(shown.stdout).toMatch(/^API key\s+sk_l…8c0d {2}\(keychain\)$/m)
    const list = await cli(['profile', 'list', '--json'])
    expect(parseJsonOutput(list).profiles.find((view: {name: string}) => view.name === 'acme-live')).toMatchObject({api_key: 'sk_l…8c0d', api_key_location: 'keychain'})
    const local = await cli(['profile', 'show', 'local', '--json'])
    expect(parseJsonOutput(local)).toMatchObject({api_key_location: 'built-in'})
  })

  it('profile remove deletes the keychain entries', async () => {
    await addProfile('acme-live')
    const {api_key_keychain: apiAccount, proxy_key_keychain: proxyAccount} = storedProfile(configDir, 'acme-live')
    const removed = await cli(['profile', 'remove', 'acme-live', '--yes', '--json'])
    expect(removed.code, removed.stderr).toBe(0)
    expect(parseJsonOutput(removed)).toMatchObject({removed: 'acme-live', keychain_entries_deleted: 2})
    expect(keychainHolds(apiAccount)).toBe('')
    expect(keychainHolds(proxyAccount)).toBe('')
  })

  it('environment variables still override keys in the keychain', async () => {
    await addProfile('acme-live')
    const status = await cli(['status', TX_ID, '--profile', 'acme-live'], {env: {PAYTX_API_KEY: 'sk_from_the_environment_0001'}})
    expect(status.code, status.stderr).toBe(0)
    expect(server.requests.at(-1)!.headers['x-apikey']).toBe('sk_from_the_environment_0001')
  })

  it('keys an older paytx left in the file keep working, and move to the keychain on the next write', async () => {
    const legacy = {profiles: {old: {env: 'production', base_url: `${server.url}/v1`, api_key_header: 'X-APIKEY', api_key: API_KEY}}}
    writeFileSync(join(configDir, 'profiles.json'), JSON.stringify(legacy), {mode: 0o600})
    const status = await cli(['status', TX_ID, '--profile', 'old'])
    expect(status.code, status.stderr).toBe(0)
    expect(server.requests.at(-1)!.headers['x-apikey']).toBe(API_KEY)
    expect(parseJsonOutput(await cli(['profile', 'show', 'old', '--json']))).toMatchObject({api_key_location: 'file'})

    const rewritten = await cli(['profile', 'add', 'old', '--organisation', 'org-2'])
    expect(rewritten.code, rewritten.stderr).toBe(0)
    expect(rewritten.stderr).toContain('Moved the API key of profile "old" from the profile file to the keychain.')
    const stored = storedProfile(configDir, 'old')
    expect(stored.api_key).toBeUndefined()
    expect(keychainHolds(stored.api_key_keychain)).toBe(API_KEY)
    expect(filesHolding(configDir, API_KEY)).toEqual([])

    const again = await cli(['status', TX_ID, '--profile', 'old'])
    expect(again.code, again.stderr).toBe(0)
    expect(server.requests.at(-1)!.headers['x-apikey']).toBe(API_KEY)
  })

  it('--insecure-storage keeps the keys in the 0600 file on purpose, and moves keychain keys back there', async () => {
    const insecure = await addProfile('plain', ['--insecure-storage'])
    expect(insecure.code, insecure.stderr).toBe(0)
    expect(insecure.stderr).not.toMatch(/keychain/)
    expect(storedProfile(configDir, 'plain')).toMatchObject({api_key: API_KEY, proxy_key: PROXY_KEY})
    expect(storedProfile(configDir, 'plain').api_key_keychain).toBeUndefined()
    expect(statSync(join(configDir, 'profiles.json')).mode & 0o777).toBe(0o600)
    expect(keyring.secretTool('search', '--all', 'service', 'paytx')).not.toContain('plain/')

    await addProfile('acme-live')
    const account = storedProfile(configDir, 'acme-live').api_key_keychain
    const back = await cli(['profile', 'add', 'acme-live', '--insecure-storage'])
    expect(back.code, back.stderr).toBe(0)
    expect(back.stderr).toContain('Moved the API key and proxy key of profile "acme-live" from the keychain to')
    expect(storedProfile(configDir, 'acme-live')).toMatchObject({api_key: API_KEY, proxy_key: PROXY_KEY})
    expect(keychainHolds(account)).toBe('')
  })

  it('a key removed from the keychain behind paytx\'s back is reported in one line, and nothing is sent', async () => {
    await addProfile('acme-live')
    keyring.secretTool('clear', 'service', 'paytx', 'username', storedProfile(configDir, 'acme-live').api_key_keychain)
    const status = await cli(['status', TX_ID, '--profile', 'acme-live'])
    expect(status.code).toBe(2)
    expect(status.stderr).toMatch(/Warning: could not read the API key of profile "acme-live" from the keychain: it has no entry "acme-live\/api_key\/[0-9a-f]{8}"/)
    expect(server.requests).toHaveLength(0)
  })

  it('gives up on a keychain that does not answer after 3 s: keys go to the file with a notice, reads say so', async () => {
    await addProfile('acme-live')
    keyring.signalBus('SIGSTOP')
    try {
      const started = Date.now()
      const status = await cli(['status', TX_ID, '--profile', 'acme-live'], {timeoutMs: 30_000})
      const elapsed = Date.now() - started
      expect(status.code).toBe(2)
      expect(status.stderr).toContain('could not read the API key and proxy key of profile "acme-live" from the keychain: the keychain did not answer within 3 s')
      expect(elapsed).toBeGreaterThanOrEqual(3000)
      expect(elapsed).toBeLessThan(15_000)
      expect(server.requests).toHaveLength(0)

      const added = await addProfile('stalled', [], {timeoutMs: 30_000})
      expect(added.code, added.stderr).toBe(0)
      expect(added.stderr).toMatch(/^The keychain is not available \(the keychain did not answer within 3 s\); the API key and proxy key of profile "stalled" are kept in .*profiles\.json, readable by you alone\. Pass --insecure-storage to choose the file on purpose\.$/m)
      expect(storedProfile(configDir, 'stalled')).toMatchObject({api_key: API_KEY, proxy_key: PROXY_KEY})
    } finally {
      keyring.signalBus('SIGCONT')
    }
  }, 60_000)
})

describe('keys with no keychain to use (no Secret Service on the session bus)', () => {
  let server: RecordingServer
  beforeAll(async () => {
    server = await startRecordingServer((req) => (req.path === `/v1/transaction/${TX_ID}` ? {json: TX} : undefined))
  })
  afterAll(() => server.close())

  it('keeps the keys in the 0600 file with a one-line notice; commands and profile show use them', async () => {
    const configDir = tempConfigDir()
    // cleanEnv points DBUS_SESSION_BUS_ADDRESS at a socket that does not exist.
    const added = await runCli(['profile', 'add', 'acme-live', '--env', 'production', '--base-url', `${server.url}/v1`, '--api-key-stdin', '--proxy-key-stdin'], {configDir, input: `${API_KEY}\n${PROXY_KEY}\n`})
    expect(added.code, added.stderr).toBe(0)
    const notices = added.stderr.split('\n').filter((line) => line.includes('keychain'))
    expect(notices).toHaveLength(1)
    expect(notices[0]).toMatch(/^The keychain is not available \(.+\); the API key and proxy key of profile "acme-live" are kept in .*profiles\.json, readable by you alone\. Pass --insecure-storage to choose the file on purpose\.$/)
    expect(added.stderr).not.toContain(API_KEY)
    expect(storedProfile(configDir, 'acme-live')).toMatchObject({api_key: API_KEY, proxy_key: PROXY_KEY})
    expect(statSync(join(configDir, 'profiles.json')).mode & 0o777).toBe(0o600)

    const shown = await runCli(['profile', 'show', 'acme-live'], {configDir})
    expect(shown.stdout).toMatch(/^API key\s+sk_l…8c0d {2}\(profile file\)$/m)
    const status = await runCli(['status', TX_ID, '--profile', 'acme-live'], {configDir})
    expect(status.code, status.stderr).toBe(0)
    expect(status.stderr).not.toMatch(/keychain/)
    expect(server.requests.at(-1)!.headers['x-apikey']).toBe(API_KEY)

    const removed = await runCli(['profile', 'remove', 'acme-live', '--yes'], {configDir})
    expect(removed.code, removed.stderr).toBe(0)
    expect(removed.stderr).not.toMatch(/keychain/)
    expect(readFileSync(join(configDir, 'profiles.json'), 'utf8')).not.toContain(API_KEY)
  })

  it('with no session bus at all, the notice says so', async () => {
    const configDir = tempConfigDir()
    const added = await runCli(['profile', 'add', 'acme-live', '--env', 'production', '--api-key-stdin'], {configDir, input: `${API_KEY}\n`, env: {DBUS_SESSION_BUS_ADDRESS: undefined}})
    expect(added.code, added.stderr).toBe(0)
    expect(added.stderr).toContain('The keychain is not available (no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set); the API key of profile "acme-live" is kept in')
    expect(storedProfile(configDir, 'acme-live').api_key).toBe(API_KEY)
  })

  it('the keychain process starts without NODE_OPTIONS and NODE_EXTRA_CA_CERTS: it makes no connection, and they only slow it down', async () => {
    const configDir = tempConfigDir()
    // A preload that records every Node process it runs in.
    const seen = join(configDir, 'processes.log')
    const preload = join(configDir, 'record.cjs')
    writeFileSync(preload, `require('node:fs').appendFileSync(${JSON.stringify(seen)}, JSON.stringify({argv: process.argv.slice(1)}) + '\\n')`)
    const added = await runCli(['profile', 'add', 'acme-live', '--env', 'production', '--api-key-stdin'], {
      configDir,
      input: `${API_KEY}\n`,
      env: {NODE_OPTIONS: `--require ${preload}`},
    })
    expect(added.code, added.stderr).toBe(0)
    // The keychain was asked (and was not there), so its process did run.
    expect(added.stderr).toContain('The keychain is not available')
    const processes = readFileSync(seen, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as {argv: string[]})
    expect(processes).toHaveLength(1)
    expect(processes[0].argv[0]).toMatch(/run\.js$/)
  })

  it('--insecure-storage: no notice, and the keychain is not even asked', async () => {
    const configDir = tempConfigDir()
    const added = await runCli(['profile', 'add', 'acme-live', '--env', 'production', '--api-key-stdin', '--insecure-storage'], {configDir, input: `${API_KEY}\n`})
    expect(added.code, added.stderr).toBe(0)
    expect(added.stderr).not.toMatch(/keychain/)
    expect(storedProfile(configDir, 'acme-live').api_key).toBe(API_KEY)
  })
})
