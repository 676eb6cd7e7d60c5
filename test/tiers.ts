/**
 * The test tiers, by what their tests need beyond a fresh clone (README, "Tests"):
 * - `npm test`: what any clone passes, offline, as root or not, with or without Chromium;
 * - `npm run test:browser` (Chromium), `test:package` (the npm registry), `test:system` (mount
 *   rights, a keychain daemon), and `test:all`, every tier in one run.
 * A group whose capability is missing is skipped with one line saying what is missing and how to
 * get it; under CI (CI=true or PAYTX_REQUIRE_ALL=1, which .ci/run sets) it fails the run instead.
 * Groups inside files of the default tier (a terminal, openssl, a read-only mount as root) are
 * gated the same way: the tests read the verdicts with `inject('paytxMissing')`.
 */
import {spawnSync} from 'node:child_process'
import {existsSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

import {type ViteUserConfig, defineConfig} from 'vitest/config'

export const ROOT = resolve(import.meta.dirname, '..')

export type TierName = 'default' | 'browser' | 'package' | 'system'
export type CapabilityName = 'chromium' | 'registry' | 'mount' | 'keychain' | 'terminal' | 'openssl'

declare module 'vitest' {
  interface ProvidedContext {
    /** The capabilities this machine lacks (the tests of a gated group skip themselves). */
    paytxMissing: CapabilityName[]
  }
}

const commandExists = (program: string) => spawnSync('sh', ['-c', `command -v ${program}`], {timeout: 5_000}).status === 0

/** Root can make a read-only folder only with a read-only mount: a tmpfs mounted and unmounted here. */
function mountRights(): string | undefined {
  if (process.getuid?.() !== 0) return 'not running as root'
  const dir = mkdtempSync(join(tmpdir(), 'paytx-mount-probe-'))
  try {
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], {timeout: 5_000, encoding: 'utf8'})
    if (mounted.status !== 0) return 'root here cannot mount a tmpfs (no CAP_SYS_ADMIN, as in most containers)'
    spawnSync('umount', [dir], {timeout: 5_000})
    return undefined
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
}

async function registryReachable(): Promise<string | undefined> {
  const registry = process.env.npm_config_registry ?? 'https://registry.npmjs.org/'
  try {
    const answer = await fetch(new URL('-/ping', registry), {signal: AbortSignal.timeout(5_000)})
    return answer.ok ? undefined : `the npm registry ${registry} answered ${answer.status}`
  } catch {
    return `the npm registry ${registry} cannot be reached`
  }
}

interface Capability {
  /** What is missing, or undefined when the machine has it. */
  check(): string | undefined | Promise<string | undefined>
  remedy: string
}

const CAPABILITIES: Record<CapabilityName, Capability> = {
  chromium: {
    check: () =>
      process.env.PAYTX_TEST_NO_CHROMIUM ? 'PAYTX_TEST_NO_CHROMIUM is set' : existsSync('/usr/bin/chromium') ? undefined : '/usr/bin/chromium not found',
    remedy: "install Debian's chromium (apt-get install chromium)",
  },
  registry: {check: registryReachable, remedy: 'connect to the npm registry'},
  mount: {check: mountRights, remedy: 'run as root with mount rights (outside a container, or in one started with --privileged)'},
  keychain: {
    check: () => {
      const missing = ['dbus-daemon', 'dbus-send', 'gnome-keyring-daemon', 'secret-tool'].filter((program) => !commandExists(program))
      return missing.length === 0 ? undefined : `${missing.join(', ')} not found`
    },
    remedy: 'install dbus, gnome-keyring and libsecret-tools (Debian)',
  },
  terminal: {check: () => (commandExists('script') ? undefined : 'script (util-linux) not found'), remedy: 'install util-linux'},
  openssl: {check: () => (commandExists('openssl') ? undefined : 'openssl not found'), remedy: 'install openssl'},
}

interface Group {
  /** What the line says was skipped. */
  what: string
  tier: TierName
  /** None for a group in its tier for its cost alone (it loads every core for seconds). */
  needs?: CapabilityName
  /** Files of their own tier; a group without files is gated inside files of the default tier. */
  files?: string[]
  /** Whether the group exists on this machine at all (the read-only mount is root's way only). */
  applies?: () => boolean
}

const GROUPS: Group[] = [
  {what: 'the browser suites (test/browser)', tier: 'browser', needs: 'chromium', files: ['test/browser/**/*.test.ts']},
  {what: 'the packed-package suites (installed globally, and as a dependency of a merchant project)', tier: 'package', needs: 'registry', files: ['test/package/pack-install-run.test.ts', 'test/package/library.test.ts']},
  {what: 'the full-disk suites', tier: 'system', needs: 'mount', files: ['test/system/webhook-save-full-disk.test.ts', 'test/system/emulator-full-disk.test.ts', 'test/system/profile-full-disk.test.ts', 'test/system/flow-full-disk.test.ts']},
  {what: 'the keychain suite', tier: 'system', needs: 'keychain', files: ['test/system/keychain.test.ts']},
  {what: 'the kill -9 stress suite', tier: 'system', files: ['test/system/webhook-save-kill-stress.test.ts']},
  {what: 'the read-only config folder tests', tier: 'default', needs: 'mount', applies: () => process.getuid?.() === 0},
  {what: 'the terminal (pty) tests', tier: 'default', needs: 'terminal'},
  {what: 'the HTTPS service tests', tier: 'default', needs: 'openssl'},
]

/** CI installs every capability and allows no skip. */
const requireAll = () => process.env.PAYTX_REQUIRE_ALL === '1' || process.env.CI === 'true' || process.env.CI === '1'

/**
 * Every temporary folder of this run (the tests' config folders, stores, the CLIs they start) in
 * one folder of its own, removed when vitest ends: TMPDIR is set before the workers start, and they
 * and whatever they spawn inherit it. Each test file made folders it never removed, 700 a run,
 * 71,000 (29 GB) in the system's temporary folder of a machine that ran the suite for a few days.
 */
function useRunTemporaryFolder(): void {
  if (process.env.PAYTX_TEST_RUN_TMPDIR !== undefined) return
  const folder = mkdtempSync(join(tmpdir(), 'paytx-run-'))
  process.env.PAYTX_TEST_RUN_TMPDIR = folder
  process.env.TMPDIR = folder
  process.once('exit', () => {
    try {
      rmSync(folder, {recursive: true, force: true, maxRetries: 2})
    } catch {
      // A process a test started and left may still hold part of it: the system's folder keeps that.
    }
  })
}

/**
 * The vitest config of a run of the given tiers: their files, minus the groups whose capability
 * is missing (one line each), with the missing capabilities provided to the tests.
 */
export function tierConfig(tiers: TierName[]): ReturnType<typeof defineConfig> {
  return defineConfig(async (): Promise<ViteUserConfig> => {
    useRunTemporaryFolder()
    const groups = GROUPS.filter((group) => tiers.includes(group.tier) && (group.applies?.() ?? true))
    const verdicts = new Map<CapabilityName, string | undefined>()
    for (const needs of new Set(groups.flatMap((group) => group.needs ?? []))) verdicts.set(needs, await CAPABILITIES[needs].check())
    const missing = [...verdicts].filter(([, reason]) => reason !== undefined).map(([name]) => name)
    const lines = groups
      .filter((group) => group.needs !== undefined && verdicts.get(group.needs) !== undefined)
      .map((group) => `${group.what}: ${verdicts.get(group.needs!)}; ${CAPABILITIES[group.needs!].remedy}, then run ${group.tier === 'default' ? 'npm test' : `npm run test:${group.tier}`}`)
    if (lines.length > 0 && requireAll()) {
      throw new Error(`CI allows no skipped tests, and this machine cannot run:\n${lines.map((line) => `  ${line}`).join('\n')}`)
    }
    for (const line of lines) console.log(`skipped ${line}`)
    const otherTiers = GROUPS.filter((group) => group.files && !tiers.includes(group.tier))
    if (tiers.includes('default') && otherTiers.length > 0) {
      const names = [...new Set(otherTiers.map((group) => group.tier))]
      console.log(`not in this run: the ${names.join(', ')} tiers (npm run test:${names.join(', test:')}; npm run test:all runs every tier)`)
    }
    const skippedFiles = groups.filter((group) => group.needs !== undefined && missing.includes(group.needs)).flatMap((group) => group.files ?? [])
    return {
      test: {
        root: ROOT,
        include: tiers.includes('default') ? ['test/**/*.test.ts'] : groups.flatMap((group) => group.files ?? []),
        exclude: ['**/node_modules/**', ...skippedFiles, ...otherTiers.flatMap((group) => group.files!)],
        setupFiles: ['test/helpers/setup.ts'],
        provide: {paytxMissing: missing},
        testTimeout: 30_000,
        hookTimeout: 30_000,
        pool: 'forks',
        // One module graph per worker, not per file: with isolation every file imported src/, oclif
        // and their transforms again (test/commands: 37 s of CPU with it, 17 s without).
        isolate: false,
        // Most tests wait on spawned CLIs, servers and timers rather than on the CPU; vitest's default
        // (cores - 1) would run one file at a time on a 2-core machine. Three at once halved the suite
        // there (258 s -> 126 s); with most command tests in-process, four take `npm test` from 86 s
        // to 78 s on an otherwise idle 2-core machine (offline, as root without mount rights).
        maxWorkers: 4,
      },
    }
  })
}
