/**
 * The CLI's entry point, dist/main.js: bin/run.js calls run(). The files oclif loads for a
 * command, a hook or the help class take their module from here (appModule), so that every part
 * of a run shares one loaded bundle.
 */
import {once} from 'node:events'

import type * as Execute from '@oclif/core/execute'

import {oclifCoreModule} from './process/app-bundle.js'

export {appModule} from './process/app-bundle.js'

/** Runs the command line; `root` is the package's folder, where oclif reads package.json and the manifest. */
export async function run(root: string): Promise<void> {
  // Debug logs print the command line as typed: a card number in it must not be echoed.
  if (process.env.DEBUG) (await import('./secrets/debug-output.js')).maskDigitRunsOnStderr()
  const {execute} = oclifCoreModule('@oclif/core/execute') as typeof Execute
  await execute({dir: root})
  // Done: the command has written its output, and the command has stopped what it started (services,
  // the embedded emulator, listeners) as it finished. Exiting now, as oclif does after an error,
  // spares Node tearing V8's heap down first: 2 to 3 ms of every run.
  // Output still queued for a pipe (a reader slower than paytx) would be cut at the pipe's 64 KiB.
  await Promise.all([process.stdout, process.stderr].map((stream) => writtenOut(stream)))
  process.exit()
}

/** Resolves once the stream has handed everything queued to the system, or can take no more (closed, broken pipe). */
async function writtenOut(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.writableLength === 0 || stream.destroyed) return
  await Promise.race([once(stream, 'drain'), once(stream, 'close'), once(stream, 'error')]).catch(() => {})
}
