/**
 * An emulator for a merchant's test suite (`paytx/testing`): one per test worker, in that
 * worker's own process, with an in-memory store (nothing on disk, nothing shared with another
 * worker or with the developer's emulator), a free port, and instant settlement unless asked
 * otherwise. It lives in the worker's process, so a worker that ends however it ends (a runner
 * killed with SIGKILL included) takes it along; the hooks below also close it when the suite is
 * done. Three ways in: a vitest fixture, jest's global setup and teardown, and node:test's hooks.
 */
import {type EmulatorOptions, type RunningEmulator, startEmulator} from '../emulator/index.js'

/** What a test suite starts an emulator with: anything `startEmulator` takes, with test defaults. */
export type TestEmulatorOptions = EmulatorOptions

/** A running emulator that `await using` closes, and the environment that points paytx's CLI at it. */
export interface TestEmulator extends RunningEmulator, AsyncDisposable {
  /** PAYTX_BASE_URL, PAYTX_H2H_URL, PAYTX_API_KEY and PAYTX_PROXY_KEY for a `paytx` command run against it. */
  env: Record<string, string>
}

const TEST_DEFAULTS: EmulatorOptions = {port: 0, store: ':memory:', settleAfterMs: 0, pendingForMs: 0}

/** Starts an emulator for tests: a free port, an in-memory store, settlement at once (each overridable). */
export async function startTestEmulator(options: TestEmulatorOptions = {}): Promise<TestEmulator> {
  const emulator = await startEmulator({...TEST_DEFAULTS, ...options})
  const env = {PAYTX_BASE_URL: emulator.url, PAYTX_H2H_URL: emulator.proxyUrl, PAYTX_API_KEY: emulator.apiKey, PAYTX_PROXY_KEY: emulator.proxyKey}
  return Object.assign(emulator, {env, [Symbol.asyncDispose]: () => emulator.close()})
}

/**
 * A vitest fixture: one emulator per worker, started on first use and closed when the worker ends.
 *
 * ```ts
 * import {test as base} from 'vitest'
 * import {emulatorFixture} from 'paytx/testing'
 * const test = base.extend({emulator: emulatorFixture()})
 * test('pays', async ({emulator}) => { ... emulator.url ... })
 * ```
 */
export function emulatorFixture(options: TestEmulatorOptions = {}): [(context: object, use: (emulator: TestEmulator) => Promise<void>) => Promise<void>, {scope: 'worker'}] {
  // vitest reads a fixture's first parameter to learn what it depends on: it must be a destructuring pattern.
  const fixture = async ({}: object, use: (emulator: TestEmulator) => Promise<void>) => {
    const emulator = await startTestEmulator(options)
    try {
      await use(emulator)
    } finally {
      await emulator.close()
    }
  }
  return [fixture, {scope: 'worker'}]
}

/** The node:test (or any runner's) before and after hooks. */
export interface SuiteHooks {
  before(run: () => Promise<void>): unknown
  after(run: () => Promise<void>): unknown
}

/**
 * An emulator for a node:test suite: started in `before`, closed in `after`; read `current()`
 * inside the tests.
 *
 * ```ts
 * import {before, after, test} from 'node:test'
 * import {useEmulator} from 'paytx/testing'
 * const emulator = useEmulator({before, after})
 * test('pays', async () => { ... emulator.current().url ... })
 * ```
 */
export function useEmulator(hooks: SuiteHooks, options: TestEmulatorOptions = {}): {current(): TestEmulator} {
  let running: TestEmulator | undefined
  hooks.before(async () => {
    running = await startTestEmulator(options)
  })
  hooks.after(async () => {
    await running?.close()
    running = undefined
  })
  return {
    current() {
      if (!running) throw new Error('The emulator runs between the suite’s before and after hooks: read it inside a test.')
      return running
    },
  }
}

/** The variable jest's global setup leaves the emulator's address in, for every worker to read. */
export const JEST_EMULATOR_VARIABLE = 'PAYTX_TEST_EMULATOR'

/** What jest's global setup publishes: the emulator's addresses and keys (its env included). */
export type PublishedEmulator = Pick<TestEmulator, 'url' | 'proxyUrl' | 'apiKey' | 'apiKeyHeader' | 'proxyKey' | 'proxyId' | 'organisation' | 'paymentProfileId' | 'env'>

let jestEmulator: TestEmulator | undefined

/**
 * jest's `globalSetup`: one emulator for the run, in jest's own process, its addresses published
 * as JSON in PAYTX_TEST_EMULATOR for the workers (`publishedEmulator()`). jest calls the module's
 * export with its own configuration, so this makes that export: in `jest.global-setup.js`,
 * `module.exports = require('paytx/testing').jestGlobalSetup()`; pair it with `jestGlobalTeardown`.
 */
export function jestGlobalSetup(options: TestEmulatorOptions = {}): () => Promise<void> {
  return async () => {
    jestEmulator = await startTestEmulator(options)
    const {url, proxyUrl, apiKey, apiKeyHeader, proxyKey, proxyId, organisation, paymentProfileId, env} = jestEmulator
    const published: PublishedEmulator = {url, proxyUrl, apiKey, apiKeyHeader, proxyKey, proxyId, organisation, paymentProfileId, env}
    process.env[JEST_EMULATOR_VARIABLE] = JSON.stringify(published)
  }
}

/** jest's `globalTeardown` (`module.exports = require('paytx/testing').jestGlobalTeardown`): closes the emulator the global setup started. */
export async function jestGlobalTeardown(): Promise<void> {
  await jestEmulator?.close()
  jestEmulator = undefined
  delete process.env[JEST_EMULATOR_VARIABLE]
}

/** In a jest test: the emulator the global setup started. */
export function publishedEmulator(env: NodeJS.ProcessEnv = process.env): PublishedEmulator {
  const published = env[JEST_EMULATOR_VARIABLE]
  if (!published) throw new Error(`No emulator was published: add paytx/testing's jestGlobalSetup as jest's globalSetup (it sets ${JEST_EMULATOR_VARIABLE}).`)
  return JSON.parse(published) as PublishedEmulator
}
