/**
 * The CLI's entry point (bin/run.js loads its bundle, dist/main.js): oclif finds the package root
 * from here. It imports oclif's `execute` alone, so that `--version` and `--help` evaluate only the
 * part of oclif they use; a command's module brings the rest (Command, Flags) when it runs.
 */
import {execute} from '@oclif/core/execute'

// Debug logs print the command line as typed: a card number in it must not be echoed.
if (process.env.DEBUG) (await import('./secrets/debug-output.js')).maskDigitRunsOnStderr()
await execute({dir: import.meta.url})
