import {tmpdir} from 'node:os'
import {dirname} from 'node:path'
import {expect, it} from 'vitest'

import {cleanEnv, tempConfigDir} from './helpers/cli.js'

// test/tiers.ts makes the folder and removes it when vitest ends (a run left ~700 folders in /tmp).
it("keeps the run's temporary folders in a folder of its own, which the CLIs the tests start inherit", () => {
  const runFolder = process.env.PAYTX_TEST_RUN_TMPDIR
  expect(runFolder).toMatch(/paytx-run-/)
  expect(tmpdir()).toBe(runFolder)
  expect(dirname(tempConfigDir())).toBe(runFolder)
  expect(cleanEnv().TMPDIR).toBe(runFolder)
})
