/**
 * The CLI's entry point, dist/main.js: bin/run.js calls run(). The files oclif loads for a
 * command, a hook or the help class take their module from here (appModule), so that every part
 * of a run shares one loaded bundle.
 */
import {once} from 'node:events'

import type * as Handle from '@oclif/core/handle'
import type * as Run from '@oclif/core/run'

import {oclifCoreModule} from '../process/app-bundle.js'

export {appModule} from '../process/app-bundle.js'

/** Runs the command line; `root` is the package's folder, where oclif reads package.json and the manifest. */
export async function run(root: string): Promise<void> {
  // Debug logs print the command line as typed: a card number in it must not be echoed.
  if (process.env.DEBUG) (await import('../secrets/debug-output.js')).maskDigitRunsOnStderr()
  // oclif's execute() is run() then handle() on failure, plus a flush it does not wait for, whose
  // 10 s timer rejects unhandled while a slow reader (`paytx ... | less`) holds stdout: Node then
  // ends paytx with a stack trace. The flush is done below, without a deadline.
  const {run: runCommandLine} = oclifCoreModule('@oclif/core/run') as typeof Run
  const {handle} = oclifCoreModule('@oclif/core/handle') as typeof Handle
  try {
    if (process.argv.length === 2) await printStartScreen()
    else await runCommandLine(process.argv.slice(2), root)
  } catch (error) {
    await handle(error as Error)
  }
  // Done: the command has written its output, and the command has stopped what it started (services,
  // the embedded emulator, listeners) as it finished. Exiting now, as oclif does after an error,
  // spares Node tearing V8's heap down first: 2 to 3 ms of every run.
  // Output still queued for a pipe (a reader slower than paytx) would be cut at the pipe's 64 KiB.
  await Promise.all([process.stdout, process.stderr].map((stream) => writtenOut(stream)))
  process.exit()
}

/** Bare `paytx`: the two commands to start with and where help is (start-screen.ts), instead of every command. */
async function printStartScreen(): Promise<void> {
  const [{startScreen}, {invokedName}, {lineWidth}] = await Promise.all([import('./start-screen.js'), import('../terminal/invoked-name.js'), import('../output/wrap.js')])
  process.stdout.write(`${startScreen(invokedName(), lineWidth(process.stdout))}\n`)
}

/** Resolves once the stream has handed everything queued to the system, or can take no more (closed, broken pipe). */
async function writtenOut(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.writableLength === 0 || stream.destroyed) return
  await Promise.race([once(stream, 'drain'), once(stream, 'close'), once(stream, 'error')]).catch(() => {})
}
