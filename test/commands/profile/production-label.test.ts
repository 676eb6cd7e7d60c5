/**
 * A profile's label against its addresses (src/profiles/production.ts): `profile add` names the
 * disagreement and refuses without a terminal, `profile show` and `list` and `doctor` say what
 * the profile is, production, and why. The prompt on a terminal is in test/e2e/production-banner.test.ts.
 */
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeEach, describe, expect, it} from 'vitest'

import {parseJsonOutput, tempConfigDir} from '../../helpers/cli.js'
import {runCommand} from '../../helpers/run-command.js'

const PRODUCTION_SPELT = 'https://API.SpryngPayments.com.:443/v1'

describe('a label that disagrees with the addresses', () => {
  let configDir: string
  beforeEach(() => {
    configDir = tempConfigDir()
  })

  it.each([
    ['sandbox', ['--env', 'sandbox', '--base-url', PRODUCTION_SPELT], 'service address https://API.SpryngPayments.com.:443/v1'],
    ['sandbox', ['--env', 'sandbox', '--h2h-url', 'https://TGAPI.tokenex.com'], 'card proxy address https://TGAPI.tokenex.com'],
    ['local', ['--env', 'local', '--base-url', 'https://api.spryngpayments.com/v1'], 'service address https://api.spryngpayments.com/v1'],
  ])('profile add labelled %s (%s) is refused without a terminal, naming both, and nothing is stored', async (label, flags, address) => {
    const result = await runCommand(['profile', 'add', 'acme', ...flags, '--insecure-storage'], {configDir})
    expect(result.exitCode, result.stderr).toBe(2)
    expect(result.stderr).toContain(`Error: Profile "acme" would be labelled ${label}, but its ${address} is a production host: every command would treat it as production.`)
    expect(result.stderr).toContain('Hint: Label it production (--env production)')
    expect(existsSync(join(configDir, 'profiles.json'))).toBe(false)
  })

  it('re-adding a stored sandbox profile with a production address is refused too, and the stored one is kept as it was', async () => {
    expect((await runCommand(['profile', 'add', 'acme', '--env', 'sandbox', '--insecure-storage'], {configDir})).exitCode).toBe(0)
    const before = readFileSync(join(configDir, 'profiles.json'), 'utf8')
    const result = await runCommand(['profile', 'add', 'acme', '--base-url', 'https://api.spryngpayments.com/v1'], {configDir})
    expect(result.exitCode).toBe(2)
    expect(readFileSync(join(configDir, 'profiles.json'), 'utf8')).toBe(before)
  })

  it('a production label with production addresses, and a sandbox label with sandbox ones, are added without a word about it', async () => {
    for (const env of ['production', 'sandbox']) {
      const result = await runCommand(['profile', 'add', `acme-${env}`, '--env', env, '--insecure-storage'], {configDir})
      expect(result.exitCode, result.stderr).toBe(0)
      expect(result.stderr).not.toContain('production host')
    }
  })

  it('profile show and list say production, the label, and the address that decides it; PAYTX_BASE_URL counts', async () => {
    writeFileSync(join(configDir, 'profiles.json'), JSON.stringify({active: 'acme', profiles: {acme: {env: 'sandbox', base_url: 'https://puser:pw@API.spryngpayments.com/v1', api_key_header: 'X-APIKEY'}}}), {mode: 0o600})
    const shown = await runCommand(['profile', 'show', 'acme'], {configDir})
    expect(shown.stdout).toMatch(/^Environment\s+production \(by its service address; labelled sandbox\)$/m)
    expect(shown.stdout).toMatch(/^Base URL\s+https:\/\/puser:…@api\.spryngpayments\.com\/v1$/m)
    for (const line of shown.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80)
    expect(shown.stdout + shown.stderr).not.toContain('pw@')
    expect(parseJsonOutput(await runCommand(['profile', 'show', 'acme', '--json'], {configDir}))).toMatchObject({env: 'production', labelled_env: 'sandbox'})
    const list = parseJsonOutput(await runCommand(['profile', 'list', '--json'], {configDir}))
    expect(list.profiles.find((view: {name: string}) => view.name === 'acme')).toMatchObject({env: 'production', labelled_env: 'sandbox'})

    const byCardProxy = await runCommand(['profile', 'show', 'acme'], {configDir, env: {PAYTX_BASE_URL: 'https://sandbox.spryngpayments.com/v1', PAYTX_H2H_URL: 'https://TGAPI.tokenex.com'}})
    expect(byCardProxy.stdout).toMatch(/^Environment\s+production \(by its card proxy address; labelled sandbox\)$/m)
    const local = await runCommand(['profile', 'show', 'local', '--json'], {configDir: tempConfigDir(), env: {PAYTX_BASE_URL: 'https://api.spryngpayments.com./v1'}})
    expect(parseJsonOutput(local)).toMatchObject({env: 'production', labelled_env: 'local', production_address: 'https://api.spryngpayments.com./v1'})
  })

  it('doctor prints the production line and warns that a sandbox-labelled profile on a production host is treated as production, with the way out', async () => {
    writeFileSync(join(configDir, 'profiles.json'), JSON.stringify({active: 'acme', profiles: {acme: {env: 'sandbox', base_url: 'http://127.0.0.1:9/v1', api_key_header: 'X-APIKEY', api_key: 'sk_test_0123456789abcdef'}}}), {mode: 0o600})
    const result = await runCommand(['doctor', '--json', '--timeout', '1'], {configDir, env: {PAYTX_H2H_URL: 'https://tgapi.tokenex.com'}})
    expect(result.stderr.split('\n')[0]).toBe('PRODUCTION · profile acme (labelled sandbox) · https://tgapi.tokenex.com')
    const profile = parseJsonOutput(result).checks.find((check: {id: string}) => check.id === 'profile')
    expect(profile).toMatchObject({status: 'warn'})
    expect(profile.detail).toContain('it is labelled sandbox, but its card proxy address https://tgapi.tokenex.com is a production host, so every command treats it as production')
    expect(profile.remedy).toContain('--env production')
  })
})
