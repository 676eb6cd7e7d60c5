/**
 * Production at a glance, in-process: every command that talks to the service with a production
 * profile says so on stderr before anything else (also with --json, so stdout stays one JSON
 * document), and none does on local or sandbox profiles. The terminal cases and `webhook listen`
 * are in test/e2e/production-banner.test.ts.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {parseJsonOutput, tempConfigDir} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'
import {CUSTOMER_FLAGS} from '../helpers/fixtures.js'
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
      const added = await runCommand(profile.argv, {configDir, input: profile.input})
      expect(added.exitCode, added.stderr).toBe(0)
      expect(added.stderr).not.toContain('PRODUCTION ·')
    }
  })
  afterAll(() => server.close())

  const firstLine = (stderr: string) => stderr.split('\n')[0]

  const commands: [label: string, args: string[], input?: string][] = [
    ['status', ['status', TX_ID]],
    ['status --wait', ['status', TX_ID, '--wait', '--wait-timeout', '5s']],
    ['checkoutsuccess', ['checkoutsuccess', TX_ID]],
    ['customer create', ['customer', 'create', ...CUSTOMER_FLAGS, '--yes']],
    ['card tokenize', ['card', 'tokenize', '--customer', 'cus-1', '--expiry-month', '12', '--expiry-year', '2031', '--holder-name', 'Jane Doe', '--pan-stdin', '--yes'], '4024007108173153\n'],
    ['transaction start', ['transaction', 'start', '--product', 'dummy', '--amount', '100', '--customer', 'cus-1', '--redirect-url', 'https://shop.example.com/return', '--yes']],
    ['flow', ['flow', '--product', 'dummy', '--amount', '100', '--customer', 'cus-1', '--webhook', 'none', '--no-open', '--wait-timeout', '1s', '--yes']],
  ]

  it.each(commands)('%s on a production profile prints it first on stderr, plain in a pipe', async (_label, args, input) => {
    const result = await runCommand([...args, '--profile', 'acme-live'], {configDir, input})
    expect(result.exitCode, result.stderr).not.toBe(2)
    expect(firstLine(result.stderr)).toBe(banner)
    expect(result.stderr.split(banner)).toHaveLength(2) // once
    expect(result.stderr).not.toContain('\u001B[')
    expect(result.stdout).not.toContain('PRODUCTION ·')
  })

  it.each(commands)('%s with --json keeps stdout one JSON document and the line on stderr', async (_label, args, input) => {
    const result = await runCommand([...args, '--profile', 'acme-live', '--json'], {configDir, input})
    expect(firstLine(result.stderr)).toBe(banner)
    expect(() => parseJsonOutput(result)).not.toThrow()
  })

  it.each(commands)('%s on a sandbox profile prints no production line', async (_label, args, input) => {
    const result = await runCommand([...args, '--profile', 'acme-test'], {configDir, input})
    expect(result.exitCode, result.stderr).not.toBe(2)
    expect(result.stderr).not.toContain('PRODUCTION')
  })

  it('smoke run on a production profile prints it first', async () => {
    const scenario = join(configDir, 'live.yaml')
    writeFileSync(scenario, 'cases:\n  - name: live-check\n    product: dummy\n    amount: 100\n    outcome: manual\n    customer: cus-1\n    webhook: none\n    wait_timeout: 1s\n')
    const live = await runCommand(['smoke', 'run', scenario, '--no-open', '--yes', '--profile', 'acme-live'], {configDir})
    expect(live.exitCode, live.stderr).not.toBe(2)
    expect(firstLine(live.stderr)).toBe(banner)
    const sandbox = await runCommand(['smoke', 'run', scenario, '--no-open', '--profile', 'acme-test'], {configDir})
    expect(sandbox.exitCode, sandbox.stderr).not.toBe(2)
    expect(sandbox.stderr).not.toContain('PRODUCTION')
  })

  it('the built-in local profile (the emulator) prints no production line', async () => {
    const result = await runCommand(['status', TX_ID], {configDir: tempConfigDir()})
    expect(result.exitCode).toBe(1) // the emulator knows no such transaction
    expect(result.stderr).not.toContain('PRODUCTION')
  })

  it('names the profile under the result only on a terminal', async () => {
    const piped = await runCommand(['status', TX_ID, '--profile', 'acme-live'], {configDir})
    expect(piped.exitCode).toBe(0)
    expect(piped.stdout).not.toMatch(/^Profile/m)
  })
})
