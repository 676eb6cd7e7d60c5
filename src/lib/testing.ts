/**
 * `paytx/testing`: an emulator per test worker for vitest (a fixture), jest (global setup and
 * teardown) and node:test (before and after hooks). A facade: it only re-exports src/testing/.
 */
export {JEST_EMULATOR_VARIABLE, emulatorFixture, jestGlobalSetup, jestGlobalTeardown, publishedEmulator, startTestEmulator, useEmulator} from '../testing/test-emulator.js'
export type {PublishedEmulator, SuiteHooks, TestEmulator, TestEmulatorOptions} from '../testing/test-emulator.js'
