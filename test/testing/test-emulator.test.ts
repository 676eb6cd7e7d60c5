/** paytx/testing's core (src/testing/test-emulator.ts) in-process; in a merchant's project, with real runners: test/package/library.test.ts. */
import {describe, expect, it} from 'vitest'

import {JEST_EMULATOR_VARIABLE, emulatorFixture, jestGlobalSetup, jestGlobalTeardown, publishedEmulator, startTestEmulator, useEmulator} from '../../src/testing/test-emulator.js'

const isListening = (url: string) => fetch(`${url}/_emulator/health`).then(() => true, () => false)

describe('a test emulator', () => {
  it('starts on a free port with an in-memory store and instant settlement, gives the CLI its env, and await using closes it', async () => {
    let url: string
    {
      await using emulator = await startTestEmulator()
      url = emulator.url
      expect(emulator.port).not.toBe(4010)
      expect(emulator.store).toBe(':memory:')
      expect(emulator.env).toEqual({PAYTX_BASE_URL: emulator.url, PAYTX_H2H_URL: emulator.proxyUrl, PAYTX_API_KEY: emulator.apiKey, PAYTX_PROXY_KEY: emulator.proxyKey})
      expect(await isListening(url)).toBe(true)
    }
    expect(await isListening(url)).toBe(false)
  })

  it('the vitest fixture is worker-scoped, starts one for the test and closes it after', async () => {
    const [fixture, options] = emulatorFixture()
    expect(options).toEqual({scope: 'worker'})
    let seen: string | undefined
    await fixture({}, async (emulator) => {
      seen = emulator.url
      expect(await isListening(emulator.url)).toBe(true)
    })
    expect(await isListening(seen!)).toBe(false)
  })

  it('useEmulator runs between the suite’s hooks, and says so when read outside them', async () => {
    const hooks: {before?: () => Promise<void>; after?: () => Promise<void>} = {}
    const emulator = useEmulator({before: (run) => (hooks.before = run), after: (run) => (hooks.after = run)})
    expect(() => emulator.current()).toThrow(/between the suite’s before and after hooks/)
    await hooks.before!()
    const {url} = emulator.current()
    expect(await isListening(url)).toBe(true)
    await hooks.after!()
    expect(await isListening(url)).toBe(false)
  })

  it('jest’s global setup publishes the emulator to the workers’ environment, and the teardown closes it', async () => {
    expect(() => publishedEmulator({})).toThrow(/jestGlobalSetup as jest's globalSetup/)
    await jestGlobalSetup({settleAfterMs: 5})()
    try {
      const published = publishedEmulator()
      expect(await isListening(published.url)).toBe(true)
      expect(JSON.parse(process.env[JEST_EMULATOR_VARIABLE]!)).toEqual(published)
      await jestGlobalTeardown()
      expect(await isListening(published.url)).toBe(false)
      expect(process.env[JEST_EMULATOR_VARIABLE]).toBeUndefined()
    } finally {
      await jestGlobalTeardown()
    }
  })
})
