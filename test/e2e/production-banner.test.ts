/**
 * The production line on a pseudo-terminal (in colour, NO_COLOR, the profile under the result)
 * and in `webhook listen`; the rest is in test/commands/production-banner.test.ts.
 */

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runCli, startCli, tempConfigDir} from '../helpers/cli.js'
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
})
