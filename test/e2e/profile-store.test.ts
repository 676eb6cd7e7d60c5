/**
 * The profile file changed by many paytx processes at once: every change is kept (the lock
 * between processes). Everything else about the file is in test/commands/profile/store.test.ts.
 */
import {readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeEach, describe, expect, it} from 'vitest'

import {runCli, tempConfigDir} from '../helpers/cli.js'

const profileFile = (dir: string) => join(dir, 'profiles.json')
const mode = (path: string) => statSync(path).mode & 0o777
const storedProfiles = (dir: string) => JSON.parse(readFileSync(profileFile(dir), 'utf8'))

function sandboxProfile(name: string) {
  return {env: 'sandbox', base_url: 'https://sandbox.spryngpayments.com/v1', api_key_header: 'X-APIKEY', api_key: `key-of-${name}-0123456789`}
}

describe('profile store under concurrent use', () => {
  let configDir: string
  beforeEach(() => {
    configDir = tempConfigDir()
  })

  it('keeps all 20 profiles added at the same time by 20 processes', async () => {
    const names = Array.from({length: 20}, (_, index) => `p${index + 1}`)
    const results = await Promise.all(
      names.map((name) =>
        runCli(['profile', 'add', name, '--env', 'sandbox', '--api-key-stdin'], {configDir, input: `key-of-${name}-0123456789\n`, timeoutMs: 90_000}),
      ),
    )
    for (const result of results) {
      expect(result.stderr).toMatch(/Added profile "p\d+"/)
      expect(result.code).toBe(0)
    }
    const stored = storedProfiles(configDir)
    expect(Object.keys(stored.profiles).sort()).toEqual([...names].sort())
    for (const name of names) expect(stored.profiles[name]).toMatchObject({env: 'sandbox', api_key: `key-of-${name}-0123456789`})
    expect(mode(profileFile(configDir))).toBe(0o600)
  }, 120_000)

  it('keeps every change of concurrent adds, removes and a use', async () => {
    const seeded = Object.fromEntries(['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8'].map((name) => [name, sandboxProfile(name)]))
    writeFileSync(profileFile(configDir), JSON.stringify({profiles: seeded}), {mode: 0o600})
    const runs = [
      ...['p1', 'p2', 'p3', 'p4'].map((name) => ['profile', 'remove', name, '--yes']),
      ...['q1', 'q2', 'q3', 'q4', 'q5'].map((name) => ['profile', 'add', name, '--env', 'production']),
      ['profile', 'use', 'p8'],
      ['profile', 'add', 'p6', '--organisation', 'org-changed'],
    ]
    const results = await Promise.all(runs.map((args) => runCli(args, {configDir, timeoutMs: 90_000})))
    results.forEach((result, index) => expect({args: runs[index], code: result.code, stderr: result.stderr}).toMatchObject({code: 0}))
    const stored = storedProfiles(configDir)
    expect(Object.keys(stored.profiles).sort()).toEqual(['p5', 'p6', 'p7', 'p8', 'q1', 'q2', 'q3', 'q4', 'q5'])
    expect(stored.active).toBe('p8')
    expect(stored.profiles.p6).toMatchObject({organisation: 'org-changed', api_key: 'key-of-p6-0123456789'})
    expect(stored.profiles.q3).toMatchObject({env: 'production', base_url: 'https://api.spryngpayments.com/v1'})
  }, 120_000)

})
