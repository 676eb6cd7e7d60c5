/**
 * The production line on a pseudo-terminal (in colour, NO_COLOR, the profile under the result)
 * and in `webhook listen`; the rest is in test/commands/production-banner.test.ts.
 */

import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runCli, startCli, tempConfigDir} from '../helpers/cli.js'
import {CUSTOMER_FLAGS} from '../helpers/fixtures.js'
import {ptyAvailable, runInPty} from '../helpers/pty.js'
import type {RecordingServer} from '../helpers/recording-server.js'
import {TX_ID, bannerProfiles, startProductionService} from '../helpers/production-service.js'

describe('the production line', () => {
  let server: RecordingServer
  let configDir: string
  let banner: string

  beforeAll(async () => {
    server = await startProductionService()
    configDir = tempConfigDir()
    banner = `PRODUCTION · profile acme-live · ${server.url}/v1`
    for (const profile of bannerProfiles(server.url)) {
      const added = await runCli(profile.argv, {configDir, input: profile.input})
      expect(added.code, added.stderr).toBe(0)
      expect(added.stderr).not.toContain('PRODUCTION ·')
    }
  })
  afterAll(() => server.close())

  const firstLine = (stderr: string) => stderr.split('\n')[0]
  /** A terminal's screen as one line: the prompt's own wrapping folded away. */
  const flat = (screen: string) => screen.replace(/\s*\r?\n\s*/g, ' ').replace(/\s+/g, ' ')

  it('webhook listen --fetch on a production profile prints it first; without --fetch it talks to no service and does not', async () => {
    const fetching = startCli(['webhook', 'listen', '--port', '0', '--fetch', '--profile', 'acme-live'], {configDir})
    await fetching.waitForStderr(/Ready/)
    const stopped = await fetching.stop()
    expect(firstLine(stopped.stderr)).toBe(banner)

    const plain = startCli(['webhook', 'listen', '--port', '0', '--profile', 'acme-live'], {configDir})
    await plain.waitForStderr(/Ready/)
    expect((await plain.stop()).stderr).not.toContain('PRODUCTION')
  })

  it.runIf(ptyAvailable).each([
    ['status', ['status', TX_ID]],
    ['checkoutsuccess', ['checkoutsuccess', TX_ID]],
  ])('%s on a terminal: the line in colour, the profile under the result, no prompt', async (_label, args) => {
    const session = runInPty([...args, '--profile', 'acme-live'], {configDir, env: {NO_COLOR: undefined}})
    expect(await session.exited).toBe(0)
    const screen = session.output()
    expect(screen).toContain(`\u001B[1;97;41m PRODUCTION \u001B[0m · profile acme-live · ${server.url}/v1`)
    expect(screen).toMatch(/^Profile\s+acme-live \(PRODUCTION\)\r?$/m)
    expect(screen).not.toContain('?') // nothing was asked
  })

  it.runIf(ptyAvailable)('honours NO_COLOR on a terminal', async () => {
    const session = runInPty(['status', TX_ID, '--profile', 'acme-live'], {configDir, env: {NO_COLOR: '1'}})
    expect(await session.exited).toBe(0)
    const screen = session.output()
    expect(screen).toContain(banner)
    expect(screen).not.toContain('\u001B[1;97;41m')
    expect(screen).toMatch(/^Profile\s+acme-live \(PRODUCTION\)\r?$/m)
  })

  it.runIf(ptyAvailable)('a sandbox profile on a terminal is named under the result, without the production line', async () => {
    const session = runInPty(['status', TX_ID, '--profile', 'acme-test'], {configDir})
    expect(await session.exited).toBe(0)
    expect(session.output()).not.toContain('PRODUCTION')
    expect(session.output()).toMatch(/^Profile\s+acme-test \(sandbox\)\r?$/m)
  })

  it.runIf(ptyAvailable)('profile add on a terminal names a label that disagrees with the address and asks: no keeps nothing, yes saves it', async () => {
    const dir = tempConfigDir()
    const args = ['profile', 'add', 'acme', '--env', 'sandbox', '--base-url', 'https://API.spryngpayments.com/v1', '--insecure-storage']
    const declined = runInPty(args, {configDir: dir})
    await declined.waitFor(/Save it anyway\?/)
    expect(flat(declined.output())).toContain('Profile "acme": it is labelled sandbox, but its service address https://API.spryngpayments.com/v1 is a production host. Every command will treat it as production')
    declined.type('n\r')
    expect(await declined.exited).toBe(2)
    expect(declined.output()).toContain('Cancelled; profile "acme" was not changed.')
    expect(existsSync(join(dir, 'profiles.json'))).toBe(false)

    const accepted = runInPty(args, {configDir: dir})
    await accepted.waitFor(/Save it anyway\?/)
    accepted.type('y\r')
    for (const key of [/API key/, /Card proxy key/]) {
      await accepted.waitFor(key)
      accepted.type('\r')
    }
    expect(await accepted.exited).toBe(0)
    expect(flat(accepted.output())).toContain('Environment production (by its service address; labelled sandbox)')
    expect(JSON.parse(readFileSync(join(dir, 'profiles.json'), 'utf8')).profiles.acme).toMatchObject({env: 'sandbox', base_url: 'https://API.spryngpayments.com/v1'})
  })

  it.runIf(ptyAvailable)('a write on a terminal to a sandbox-labelled production address asks, saying why, and "no" sends nothing', async () => {
    const dir = tempConfigDir()
    const before = server.requests.length
    const session = runInPty(['customer', 'create', ...CUSTOMER_FLAGS], {configDir: dir, env: {PAYTX_BASE_URL: 'https://api.spryngpayments.com./v1', PAYTX_API_KEY: 'sk_test_0123456789abcdef'}})
    await session.waitFor(/Continue\?/)
    expect(flat(session.output())).toContain(
      'This will create a customer on PRODUCTION (profile "local", https://api.spryngpayments.com./v1; it is labelled local, but its service address https://api.spryngpayments.com./v1 is a production host). Continue?',
    )
    session.type('n\r')
    expect(await session.exited).toBe(2)
    expect(session.output()).toContain('Cancelled; nothing was sent.')
    expect(server.requests.length).toBe(before)
  })
})

