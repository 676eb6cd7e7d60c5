/**
 * The profile file as the profile commands keep it, in-process: writes that survive, locks,
 * folders that cannot be written, permissions tightened on read. Many processes changing it at
 * once are in test/e2e/profile-store.test.ts.
 */
import {execFileSync} from 'node:child_process'
import {chmodSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {has} from '../../helpers/capabilities.js'
import {parseJsonOutput, tempConfigDir} from '../../helpers/cli.js'
import {runCommand} from '../../helpers/run-command.js'
import {ProfileStore, type ProfileStoreOptions} from '../../../src/profiles/store.js'

const profileFile = (dir: string) => join(dir, 'profiles.json')
const mode = (path: string) => statSync(path).mode & 0o777

function sandboxProfile(name: string) {
  return {env: 'sandbox', base_url: 'https://sandbox.spryngpayments.com/v1', api_key_header: 'X-APIKEY', api_key: `key-of-${name}-0123456789`}
}

describe('profile store held by another process', () => {
  let configDir: string
  beforeEach(() => {
    configDir = tempConfigDir()
  })

  it('gives up after a bounded wait with exit 2 and what to do when another process holds the lock', async () => {
    writeFileSync(profileFile(configDir), JSON.stringify({profiles: {p1: sandboxProfile('p1')}}), {mode: 0o600})
    const before = readFileSync(profileFile(configDir))
    const lock = `${profileFile(configDir)}.lock`
    mkdirSync(lock)
    // A live holder refreshes its lock; without this it would be taken over as stale.
    const refresh = setInterval(() => utimesSync(lock, new Date(), new Date()), 500)
    try {
      // The store's wait made short (the default is 10 s): what is tested is that it ends, and how.
      const profiles = (options?: ProfileStoreOptions) => new ProfileStore(configDir, {...options, lockWaitMs: 1_000})
      const result = await runCommand(['profile', 'use', 'p1'], {configDir, context: {profiles}})
      expect(result.exitCode).toBe(2)
      expect(result.stderr).toContain(`Another paytx command has been changing the profile file ${profileFile(configDir)} for over 1 s; nothing was changed.`)
      expect(result.stderr).toContain(`remove the folder ${lock}`)
      expect(result.stderr).not.toMatch(/looks like a bug|ELOCKED|\n\s+at /)
    } finally {
      clearInterval(refresh)
    }
    expect(readFileSync(profileFile(configDir)).equals(before)).toBe(true)
  })
})

describe('profile file of the wrong shape', () => {
  const cases: [label: string, content: string, field: RegExp][] = [
    ['profiles is a number', '{"profiles":5}', /profiles: must be an object of profiles by name \(got number 5\)/],
    ['a profile without base_url', '{"profiles":{"p1":{"env":"sandbox","api_key_header":"X-APIKEY"}}}', /profiles\.p1\.base_url: must be the service's base URL as a string \(got nothing\)/],
    ['base_url is a number', '{"profiles":{"p1":{"env":"sandbox","base_url":42}}}', /profiles\.p1\.base_url: .*\(got number 42\)/],
    ['env unknown', '{"profiles":{"p1":{"env":"staging","base_url":"https://x.example"}}}', /profiles\.p1\.env: must be one of local, sandbox, production/],
    ['a list at the top', '[1,2]', /\(top level\): must be an object with "profiles" \(got a list\)/],
  ]

  it.each(cases)('%s: exit 2 naming the file and the field, the file left byte for byte', async (_label, content, field) => {
    const configDir = tempConfigDir()
    writeFileSync(profileFile(configDir), content, {mode: 0o600})
    for (const args of [['profile', 'list'], ['profile', 'add', 'p2', '--env', 'sandbox'], ['profile', 'use', 'p1'], ['profile', 'remove', 'p1', '--yes']]) {
      const result = await runCommand(args, {configDir})
      expect(result.exitCode).toBe(2)
      expect(result.stdout).toBe('')
      expect(result.stderr).toContain(`The profile file ${profileFile(configDir)} does not hold valid profiles`)
      expect(result.stderr).toMatch(field)
      expect(result.stderr).not.toMatch(/looks like a bug|is not a function/)
      expect(readFileSync(profileFile(configDir), 'utf8')).toBe(content)
    }
  })

  it('invalid JSON: exit 2 naming the file and where, never quoting the key, in text and --json; the file left as it was', async () => {
    const configDir = tempConfigDir()
    const content = '{"profiles":{"p1":{"env":"sandbox","base_url":"https://x.example","api_key":"sk_live_do_not_print_me" oops'
    writeFileSync(profileFile(configDir), content, {mode: 0o600})
    const text = await runCommand(['profile', 'add', 'p2', '--env', 'sandbox'], {configDir})
    expect(text.exitCode).toBe(2)
    expect(text.stderr).toMatch(new RegExp(`The profile file ${profileFile(configDir)} is not valid JSON \\(at position \\d+`))
    const json = await runCommand(['profile', 'list', '--json'], {configDir})
    expect(json.exitCode).toBe(2)
    expect(parseJsonOutput(json).error).toMatchObject({kind: 'input', exitCode: 2, message: expect.stringContaining(profileFile(configDir))})
    for (const result of [text, json]) expect(result.stdout + result.stderr).not.toContain('do_not_print_me')
    expect(readFileSync(profileFile(configDir), 'utf8')).toBe(content)
  })
})

describe('profile file that is not a regular file, or too large', () => {
  // Every command reads the profile file: one that is a FIFO would hang each of them (a read that
  // waited for a writer would never return, and the test's timeout would say so), one that leads
  // to /dev/zero would fill the memory.
  it.each([
    ['a FIFO', (file: string) => execFileSync('mkfifo', [file], {timeout: 5_000}), 'it is a FIFO (named pipe), not a regular file'],
    ['a link to /dev/zero', (file: string) => symlinkSync('/dev/zero', file), 'it is a link to /dev/zero, a device, not a regular file'],
    ['a folder', (file: string) => mkdirSync(file), 'it is a folder'],
  ])('%s: every command refuses it at once with exit 2, naming the file and what it should be; nothing is written', async (_, make, reason) => {
    const configDir = tempConfigDir()
    make(profileFile(configDir))
    for (const args of [['profile', 'list'], ['status', 'tx-1'], ['profile', 'add', 'p1', '--env', 'sandbox']]) {
      const result = await runCommand(args, {configDir})
      expect(result.exitCode, result.stderr).toBe(2)
      expect(result.stderr).toContain(`The profile file ${profileFile(configDir)} cannot be read: ${reason}. Profiles are kept in a regular JSON file.`)
      expect(result.stderr).toContain('move it away and add the profiles again')
    }
    expect(readdirSync(configDir).filter((name) => name !== 'data' && name !== 'cache')).toEqual(['profiles.json'])
  })

  it('a file over 4 MiB is refused from its size, naming the cap, and never parsed', async () => {
    const configDir = tempConfigDir()
    writeFileSync(profileFile(configDir), `{"profiles":{"p":{"env":"sandbox","base_url":"${'x'.repeat(5 * 1024 * 1024)}"}}}`, {mode: 0o600})
    const result = await runCommand(['profile', 'list'], {configDir})
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain(`The profile file ${profileFile(configDir)} is larger than 4 MiB, the most paytx reads as profiles; it was not read.`)
  })

  it('thousands of wrong profiles and long values make a short message: the first 20 problems, the rest counted, values cut', async () => {
    const configDir = tempConfigDir()
    const profiles: Record<string, unknown> = {}
    for (let index = 0; index < 5000; index++) profiles[`p${index}-${'n'.repeat(200)}`] = {env: 'x'.repeat(300), base_url: 'https://x.example'}
    writeFileSync(profileFile(configDir), JSON.stringify({profiles}), {mode: 0o600})
    const result = await runCommand(['profile', 'list'], {configDir})
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain(`The profile file ${profileFile(configDir)} does not hold valid profiles:`)
    expect(result.stderr).toContain('  … and 4980 more')
    expect(result.stderr).toContain(`profiles.p0-${'n'.repeat(37)}….env: must be one of local, sandbox, production (got string "${'x'.repeat(40)}…" (300 characters))`)
    expect(result.stderr.length).toBeLessThan(8 * 1024)
  })
})

describe('config folder that cannot be written', () => {
  const isRoot = process.getuid?.() === 0
  // Root writes through any permission bits, so only a read-only mount is read-only for it: as
  // root without mount rights (a container), test/tiers.ts skips this group and says so.
  describe.skipIf(isRoot && !has('mount'))('a read-only folder', () => {
    let readOnlyDir: string

    beforeAll(() => {
      readOnlyDir = join(tempConfigDir(), 'read-only')
      mkdirSync(readOnlyDir)
      if (isRoot) execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', readOnlyDir], {timeout: 10_000})
      else chmodSync(readOnlyDir, 0o500)
    })

    afterAll(() => {
      if (isRoot) execFileSync('umount', [readOnlyDir], {timeout: 10_000})
      else chmodSync(readOnlyDir, 0o700)
    })

    it('exit 2 saying which folder and what to do, no stack, no "bug"', async () => {
      const result = await runCommand(['profile', 'add', 'p1', '--env', 'sandbox'], {env: {PAYTX_CONFIG_DIR: readOnlyDir}})
      expect(result.exitCode).toBe(2)
      expect(result.stderr).toContain(`Cannot save profiles: the config folder ${readOnlyDir}`)
      expect(result.stderr).toMatch(isRoot ? /is on a read-only file system \(EROFS\)/ : /is not writable by you \(EACCES\)/)
      expect(result.stderr).toContain('point PAYTX_CONFIG_DIR at')
      expect(result.stderr).not.toMatch(/looks like a bug|\n\s+at /)
    })
  })

  it('a folder that cannot be created (its path runs through a file): exit 2 saying which folder; read-only commands still work', async () => {
    const base = tempConfigDir()
    writeFileSync(join(base, 'a-file'), 'not a folder')
    const configDir = join(base, 'a-file', 'paytx')
    const add = await runCommand(['profile', 'use', 'local'], {env: {PAYTX_CONFIG_DIR: configDir}})
    expect(add.exitCode).toBe(2)
    expect(add.stderr).toContain(`Cannot save profiles: the config folder ${configDir} cannot be created: part of its path is a file, not a folder (ENOTDIR)`)
    expect(add.stderr).not.toMatch(/looks like a bug|\n\s+at /)
    const list = await runCommand(['profile', 'list', '--json'], {env: {PAYTX_CONFIG_DIR: configDir}})
    expect(list.exitCode).toBe(0)
    expect(parseJsonOutput(list).active).toBe('local')
  })
})

describe('profile file permissions', () => {
  it('a profile file and folder open to others are tightened to 0600 / 0700 when read, with one notice line each', async () => {
    const configDir = tempConfigDir()
    writeFileSync(profileFile(configDir), JSON.stringify({profiles: {p1: sandboxProfile('p1')}}))
    chmodSync(profileFile(configDir), 0o644)
    chmodSync(configDir, 0o755)
    const before = readFileSync(profileFile(configDir), 'utf8')

    const first = await runCommand(['profile', 'list', '--json'], {configDir})
    expect(first.exitCode).toBe(0)
    expect(parseJsonOutput(first).profiles.map((view: {name: string}) => view.name)).toEqual(['local', 'p1'])
    expect(mode(profileFile(configDir))).toBe(0o600)
    expect(mode(configDir)).toBe(0o700)
    const notices = first.stderr.trim().split('\n')
    expect(notices).toEqual([
      `The profile file ${profileFile(configDir)} was open to others (0644); it is now 0600, as it holds API keys.`,
      `The profile folder ${configDir} was open to others (0755); it is now 0700, as it holds API keys.`,
    ])
    expect(readFileSync(profileFile(configDir), 'utf8')).toBe(before)

    const second = await runCommand(['profile', 'list'], {configDir})
    expect(second.exitCode).toBe(0)
    expect(second.stderr).toBe('')
  })

  it('leaves a shared folder (sticky bit) alone', async () => {
    const configDir = tempConfigDir()
    writeFileSync(profileFile(configDir), JSON.stringify({profiles: {}}), {mode: 0o600})
    chmodSync(configDir, 0o1777)
    try {
      const result = await runCommand(['profile', 'list'], {configDir})
      expect(result.exitCode).toBe(0)
      expect(statSync(configDir).mode & 0o7777).toBe(0o1777)
    } finally {
      rmSync(configDir, {recursive: true, force: true})
    }
  })
})
