/**
 * The context of a real run: this process's streams and environment, the system clock, and
 * modules that are loaded only when a command uses them (the service client, the embedded
 * emulator, the keychain, the browser opener), so that `--help` and quick commands stay quick.
 */
import {systemTimer} from '../flow/timer.js'
import {ProfileStore} from '../profiles/store.js'
import {invokedName} from '../terminal/invoked-name.js'
import type {CommandContext} from './command-context.js'

export function processContext(configDir: string): CommandContext {
  let invokedAs: string | undefined
  return {
    // Each stream is made when first used: most commands never read stdin, and Node makes a file's
    // or a device's stdin (`< /dev/null`, cron) a file stream, loading its file streams (2 ms on Node 20).
    io: {
      get stdin() {
        return process.stdin
      },
      get stdout() {
        return process.stdout
      },
      get stderr() {
        return process.stderr
      },
    },
    env: process.env,
    clock: systemTimer,
    get invokedAs() {
      invokedAs ??= invokedName()
      return invokedAs
    },
    configDir,
    setExitCode(code) {
      process.exitCode = code
    },
    profiles: (options) => new ProfileStore(configDir, options),
    async service(resolved, settings) {
      const {PaymentService} = await import('../api/service.js')
      return new PaymentService({profileName: resolved.name, profile: resolved.profile}, settings)
    },
    async browser(url) {
      const {openInBrowser} = await import('../terminal/browser.js')
      return openInBrowser(url, process.env)
    },
    async emulator(resolved, options) {
      const {ensureEmulator} = await import('../flow/embedded-emulator.js')
      return ensureEmulator(resolved, process.env, options)
    },
    keychain: {
      async run(ops) {
        const {runKeychain} = await import('../profiles/keychain.js')
        return runKeychain(ops)
      },
    },
  }
}
