/**
 * Progress of a multi-step command on stderr: an ora spinner per step on a terminal, plain
 * `✔ …` lines when stderr is a pipe or a CI log. stdout is never touched.
 */
import type {FlowReporter} from '../flow/run-flow.js'
import {scrubSecrets} from '../secrets/redact.js'

export interface StepReporter extends FlowReporter {
  /** Stops a spinner left running (after an error or Ctrl-C). */
  stop(): void
}

export interface StepReporterOptions {
  stream?: NodeJS.WriteStream
  /** Default: stderr is a terminal with a width, TERM is not dumb and CI is not set. */
  interactive?: boolean
  /** Values never to print (keys, a PAN). */
  secrets?: readonly string[]
}

type Spinner = import('ora').Ora

export async function createStepReporter(options: StepReporterOptions = {}): Promise<StepReporter> {
  const stream = options.stream ?? process.stderr
  const secrets = options.secrets ?? []
  // A terminal that reports no width (some ptys) would make ora clear lines without end.
  const interactive = options.interactive ?? Boolean(stream.isTTY && (stream.columns ?? 0) > 0 && process.env.TERM !== 'dumb' && !process.env.CI)
  const clean = (text: string) => scrubSecrets(text, secrets)

  if (!interactive) {
    const write = (text: string) => stream.write(`${clean(text)}\n`)
    return {
      start() {},
      succeed: (_step, text) => write(`✔ ${text}`),
      fail: (_step, text) => write(`✖ ${text}`),
      info: (text) => write(`  ${text}`),
      stop() {},
    }
  }

  const {default: ora} = await import('ora')
  let spinner: Spinner | undefined
  let spinning: string | undefined
  const persist = (symbol: 'succeed' | 'fail', step: string, text: string) => {
    if (spinner && spinning === step) {
      spinner[symbol](clean(text))
      spinner = undefined
      spinning = undefined
      return
    }
    // Another step's line while a spinner runs: ora keeps its spinner below external writes.
    ora({stream, discardStdin: false})[symbol](clean(text))
    spinner?.render()
  }
  return {
    start(step, text) {
      spinner?.stop()
      spinning = step
      spinner = ora({text: clean(text), stream, discardStdin: false}).start()
    },
    succeed: (step, text) => persist('succeed', step, text),
    fail: (step, text) => persist('fail', step, text),
    info(text) {
      if (spinner) {
        spinner.clear()
        stream.write(`  ${clean(text)}\n`)
        spinner.render()
      } else stream.write(`  ${clean(text)}\n`)
    },
    stop() {
      spinner?.stop()
      spinner = undefined
      spinning = undefined
    },
  }
}
