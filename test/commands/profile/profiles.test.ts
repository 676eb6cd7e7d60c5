/**
 * `paytx profile add|list|show|use|remove` in-process, in a private config folder.
 */
import {readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {parseJsonOutput, tempConfigDir} from '../../helpers/cli.js'
import {runCommand} from '../../helpers/run-command.js'
import {type RecordingServer, startRecordingServer} from '../../helpers/recording-server.js'
import {API_KEY, PROXY_KEY, expectNoSecrets} from '../../helpers/secrets.js'

const profileFile = (dir: string) => join(dir, 'profiles.json')
const mode = (path: string) => statSync(path).mode & 0o777

describe('profiles', () => {
  let configDir: string
  beforeEach(() => {
    configDir = tempConfigDir()
  })

  it('has a built-in, active "local" profile pointing at the emulator with no set-up', async () => {
    const result = await runCommand(['profile', 'list', '--json'], {configDir})
    expect(result.exitCode).toBe(0)
    const list = parseJsonOutput(result)
    expect(list.active).toBe('local')
    expect(list.profiles).toHaveLength(1)
    expect(list.profiles[0]).toMatchObject({name: 'local', active: true, builtin: true, env: 'local', base_url: 'http://127.0.0.1:4010'})
    expect(list.profiles[0].api_key).toMatch(/^.{4}….{4}$/)
  })

  it('adds a production profile with keys from stdin (two lines), stores 0600 in a 0700 folder, never shows the keys', async () => {
    const add = await runCommand(['profile', 'add', 'prod', '--env', 'production', '--proxy-id', '1234567890123456', '--api-key-stdin', '--proxy-key-stdin', '--json'], {
      configDir,
      input: `${API_KEY}\n${PROXY_KEY}\n`,
    })
    expect(add.exitCode).toBe(0)
    expectNoSecrets(add)
    const view = parseJsonOutput(add)
    expect(view).toMatchObject({
      name: 'prod',
      env: 'production',
      base_url: 'https://api.spryngpayments.com/v1',
      h2h_url: 'https://tgapi.tokenex.com',
      proxy_id: '1234567890123456',
      api_key_header: 'X-APIKEY',
      api_key: `${API_KEY.slice(0, 4)}…${API_KEY.slice(-4)}`,
      proxy_key: `${PROXY_KEY.slice(0, 4)}…${PROXY_KEY.slice(-4)}`,
      active: false,
    })
    expect(mode(profileFile(configDir))).toBe(0o600)
    expect(mode(configDir)).toBe(0o700)
    const stored = JSON.parse(readFileSync(profileFile(configDir), 'utf8'))
    expect(stored.profiles.prod).toMatchObject({api_key: API_KEY, proxy_key: PROXY_KEY, env: 'production'})

    for (const args of [['profile', 'list'], ['profile', 'list', '--json'], ['profile', 'show', 'prod'], ['profile', 'show', 'prod', '--json', '--verbose']]) {
      const shown = await runCommand(args, {configDir})
      expect(shown.exitCode).toBe(0)
      expectNoSecrets(shown)
    }
    const show = await runCommand(['profile', 'show', 'prod'], {configDir})
    expect(show.stdout).toContain(`${API_KEY.slice(0, 4)}…${API_KEY.slice(-4)}`)
    expect(show.stdout).toMatch(/Environment\s+production/)
  })

  it('fills sandbox addresses from the preset and, when re-added, changes only what was given', async () => {
    const first = await runCommand(['profile', 'add', 'sandbox', '--api-key-stdin', '--organisation', 'org-1', '--json'], {configDir, input: `${API_KEY}\n`})
    expect(first.exitCode).toBe(0)
    expect(parseJsonOutput(first)).toMatchObject({env: 'sandbox', base_url: 'https://sandbox.spryngpayments.com/v1', h2h_url: 'https://test-tgapi.tokenex.com'})

    const second = await runCommand(['profile', 'add', 'sandbox', '--payment-profile', 'pp-2', '--api-key-header', 'X-Api-Key', '--use', '--json'], {configDir})
    expect(second.exitCode).toBe(0)
    const stored = JSON.parse(readFileSync(profileFile(configDir), 'utf8'))
    expect(stored.active).toBe('sandbox')
    expect(stored.profiles.sandbox).toMatchObject({
      env: 'sandbox',
      organisation: 'org-1',
      payment_profile: 'pp-2',
      api_key_header: 'X-Api-Key',
      api_key: API_KEY,
      base_url: 'https://sandbox.spryngpayments.com/v1',
    })
  })

  it('rejects bad input with exit 2 naming the flag and leaves the file alone', async () => {
    // The flag rules of profile add are rows of test/commands/profile/add.test.ts (in-process).
    const cases: [string[], string | undefined, RegExp][] = [
      [['profile', 'add', 'staging'], undefined, /--env/],
      [['profile', 'add', 'staging', '--env', 'sandbox', '--api-key-stdin'], '', /--api-key-stdin/],
      [['profile', 'add', 'staging', '--env', 'sandbox', '--api-key-stdin', '--proxy-key-stdin'], `${API_KEY}\n`, /--proxy-key-stdin/],
      [['profile', 'add', 'bad name!', '--env', 'sandbox'], undefined, /name/],
      [['profile', 'use', 'nope'], undefined, /nope/],
      [['profile', 'show', 'nope'], undefined, /nope/],
      [['profile', 'remove', 'local', '--yes'], undefined, /built-in/],
    ]
    await Promise.all(
      cases.map(async ([args, input, pattern]) => {
        const [result, json] = await Promise.all([runCommand(args, {configDir, input}), runCommand([...args, '--json'], {configDir, input})])
        expect(result.exitCode, args.join(' ')).toBe(2)
        expect(result.stderr, args.join(' ')).toMatch(pattern)
        expect(result.stdout).toBe('')
        expect(json.exitCode, args.join(' ')).toBe(2)
        expect(parseJsonOutput(json).error).toMatchObject({kind: 'input', exitCode: 2})
        expect(json.stderr, args.join(' ')).toBe('')
      }),
    )
    expect(() => statSync(profileFile(configDir))).toThrow()
  })

  it('marks the profile in use with [env] when environment variables override it', async () => {
    const result = await runCommand(['profile', 'list'], {configDir, env: {PAYTX_API_KEY: API_KEY, PAYTX_BASE_URL: 'http://127.0.0.1:1/v1'}})
    expect(result.exitCode).toBe(0)
    // In a pipe: tab-separated under a header line.
    expect(result.stdout.split('\n')[0]).toBe('ACTIVE\tNAME\tENV\tBASE URL\tAPI KEY\tOVERRIDES')
    expect(result.stdout).toMatch(/^\*\tlocal\tlocal\thttp:\/\/127\.0\.0\.1:4010\t[^\t]+\t\[env\] PAYTX_API_KEY, PAYTX_BASE_URL$/m)
    expectNoSecrets(result)
    const show = await runCommand(['profile', 'show', '--json'], {configDir, env: {PAYTX_API_KEY: API_KEY}})
    expect(parseJsonOutput(show)).toMatchObject({name: 'local', env_overrides: ['PAYTX_API_KEY'], api_key: `${API_KEY.slice(0, 4)}…${API_KEY.slice(-4)}`})
  })

  it('removes a profile only with --yes off a terminal, and its keys leave the file', async () => {
    await runCommand(['profile', 'add', 'prod', '--env', 'production', '--api-key-stdin', '--proxy-key-stdin', '--use'], {configDir, input: `${API_KEY}\n${PROXY_KEY}\n`})
    await runCommand(['profile', 'add', 'other', '--env', 'sandbox'], {configDir})
    const refused = await runCommand(['profile', 'remove', 'prod'], {configDir})
    expect(refused.exitCode).toBe(2)
    expect(refused.stderr).toMatch(/--yes/)
    expect(readFileSync(profileFile(configDir), 'utf8')).toContain(API_KEY)

    const removed = await runCommand(['profile', 'remove', 'prod', '--yes', '--json'], {configDir})
    expect(removed.exitCode).toBe(0)
    expect(parseJsonOutput(removed)).toEqual({removed: 'prod', active: 'local', keychain_entries_deleted: 0})
    const text = readFileSync(profileFile(configDir), 'utf8')
    expect(text).not.toContain(API_KEY)
    expect(text).not.toContain(PROXY_KEY)
    expect(JSON.parse(text).profiles).toHaveProperty('other')
    expect(mode(profileFile(configDir))).toBe(0o600)
  })
})

describe('profile use and --profile select where commands go', () => {
  let server: RecordingServer
  let configDir: string
  beforeEach(async () => {
    configDir = tempConfigDir()
    server = await startRecordingServer(() => ({json: {id: 'tx-1', status: 'INITIATED', amount: '1', payment_product: 'dummy', details: {}}}))
  })
  afterEach(() => server.close())

  it('sends with the active profile’s address, key and header; --profile and PAYTX_PROFILE pick another', async () => {
    const add = await runCommand(['profile', 'add', 'mine', '--env', 'sandbox', '--base-url', `${server.url}/v1`, '--api-key-header', 'X-Custom-Key', '--api-key-stdin'], {
      configDir,
      input: `${API_KEY}\n`,
    })
    expect(add.exitCode).toBe(0)
    expect((await runCommand(['profile', 'use', 'mine'], {configDir})).exitCode).toBe(0)
    const status = await runCommand(['status', 'tx-1', '--json'], {configDir})
    expect(status.exitCode).toBe(0)
    expect(server.requests).toHaveLength(1)
    expect(server.requests[0].path).toBe('/v1/transaction/tx-1')
    expect(server.requests[0].headers['x-custom-key']).toBe(API_KEY)
    expect(server.requests[0].headers['x-apikey']).toBeUndefined()

    // The built-in local profile points at port 4010, which must not be contacted: pick a missing profile instead.
    const missing = await runCommand(['status', 'tx-1', '--profile', 'nope'], {configDir})
    expect(missing.exitCode).toBe(2)
    expect(missing.stderr).toMatch(/No profile named "nope"/)
    const fromEnv = await runCommand(['status', 'tx-1'], {configDir, env: {PAYTX_PROFILE: 'nope'}})
    expect(fromEnv.exitCode).toBe(2)
    expect(server.requests).toHaveLength(1)
  })
})

describe('profile addresses with credentials', () => {
  it('profile show, list and the production line show user:pw@ and ?key= redacted, in text and --json; the file keeps them', async () => {
    const server = await startRecordingServer(() => ({json: {id: 'tx-1', status: 'INITIATED', amount: '1', created_at: '2026-11-20T10:00:00.000Z', last_status_update: '2026-11-20T10:00:00.000Z'}}))
    try {
      const configDir = tempConfigDir()
      const base = `${server.url.replace('http://', 'http://svc:pr0file-pa55@')}/v1?key=pr0file-k3y`
      const added = await runCommand(['profile', 'add', 'live', '--env', 'production', '--base-url', base, '--h2h-url', 'https://tgapi.tokenex.com?key=pr0file-k3y'], {configDir})
      expect(added.exitCode, added.stderr).toBe(0)
      const shown = `${server.url.replace('http://', 'http://svc:…@')}/v1?key=…`
      const text = await runCommand(['profile', 'show', 'live'], {configDir})
      expect(text.stdout).toMatch(new RegExp(`^Base URL +${shown.replace(/[.?]/g, '\\$&')}$`, 'm'))
      const json = await runCommand(['profile', 'show', 'live', '--json'], {configDir})
      expect(JSON.parse(json.stdout)).toMatchObject({base_url: shown, h2h_url: 'https://tgapi.tokenex.com/?key=…'})
      const list = await runCommand(['profile', 'list'], {configDir})
      // Reading with a production profile prints the PRODUCTION line first.
      const status = await runCommand(['status', 'tx-1', '--profile', 'live'], {configDir, env: {PAYTX_API_KEY: API_KEY}})
      expect(status.stderr.split('\n')[0]).toBe(`PRODUCTION · profile live · ${shown}`)
      for (const result of [added, text, json, list, status]) expect(result.stdout + result.stderr).not.toMatch(/pr0file-pa55|pr0file-k3y/)
      expect(readFileSync(join(configDir, 'profiles.json'), 'utf8')).toContain(base)
    } finally {
      await server.close()
    }
  })
})
