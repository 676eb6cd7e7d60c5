/** The CLI's entry point (bin/run.js loads its bundle, dist/main.js): oclif finds the package root from here. */
import {execute} from '@oclif/core'

await execute({dir: import.meta.url})
