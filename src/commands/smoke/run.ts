import {writeFile} from 'node:fs/promises'

import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'

import {InputError} from '../../errors.js'
import {BaseCommand} from '../../cli/base-command.js'
import type {PaymentService} from '../../api/service.js'
import type {ResolvedProfile} from '../../profiles/resolve.js'
import {redactUrl} from '../../secrets/redact-url.js'
import type {CaseFaults} from '../../smoke/case-faults.js'
import type {SmokeReport} from '../../smoke/runner.js'
import {type SmokeRunCommandOptions, toSmokeRunOptions} from '../../smoke/run-options.js'

export default class SmokeRun extends BaseCommand<typeof SmokeRun, SmokeReport> {
  static override summary = 'Run a scenario file of payment flows with expected outcomes, for scripts and CI.'
  static override description = `Reads a scenario file (YAML or JSON; - reads stdin), checks all of it first (every problem is
reported with its line, and then nothing runs), then runs each case as a whole flow, the same
flow as \`paytx flow\`: customer, card, transaction, the approval page completed with the case's
outcome (or by a person for "manual" cases), the redirect and webhooks caught on a listener of
its own (a free port per case), and the final status read from the service. Cases run in
parallel up to --concurrency; a case that refers to another's results runs after it.

Progress goes to stderr (a live line per running case on a terminal); stdout gets a table (case, transaction, expected, got, duration, result with the reason) fitted to the terminal, or tab-separated under a header line in a pipe (the summary line then goes to stderr), or one JSON report with --json. --junit writes JUnit XML for CI.

--shard 2/4 runs the second of four parts of the file, for a CI matrix: cases that refer to each other stay in one part, and the split depends on the file alone (the same on every machine). Without --shard, GitLab's CI_NODE_INDEX/CI_NODE_TOTAL (parallel:), CircleCI's CIRCLE_NODE_INDEX/CIRCLE_NODE_TOTAL and Buildkite's BUILDKITE_PARALLEL_JOB/_COUNT are read when set. The JUnit file and the JSON report name the shard; \`paytx smoke merge\` joins the JUnit files.

On the local profile with nothing listening at its address, the emulator starts inside this
process for the run, with a store in memory: the run leaves nothing in paytx's data folder.
--store <file> keeps that emulator's state in a file (to look at it afterwards with
\`PAYTX_BASE_URL=... paytx status\` or \`emulator start --store <file>\`). Outcomes other than "manual"
need the emulator (a profile with env local).

EXIT CODES
  0    every case passed
  1    the service or the network failed in some case
  2    the scenario file or a flag is wrong; no case was run
  3    some case did not meet its expectations (or did not run because of --bail)
  130  interrupted (Ctrl-C or SIGTERM), after the running cases stopped`

  static override examples = [
    '<%= config.bin %> smoke run examples/smoke.yaml',
    '<%= config.bin %> smoke run examples/smoke.yaml --concurrency 8 --junit smoke-results.xml',
    '<%= config.bin %> smoke run examples/smoke.yaml --only card-declined --json',
    '<%= config.bin %> smoke run sandbox-smoke.yaml --profile sandbox --concurrency 1 --bail',
    '<%= config.bin %> smoke run examples/smoke.yaml --shard 2/4 --junit smoke-2.xml',
    '<%= config.bin %> smoke run examples/smoke.yaml --store smoke.db',
  ]

  static override args = {
    file: Args.string({description: 'Scenario file, YAML or JSON (- reads stdin)', required: true}),
  }

  static override flags = {
    concurrency: Flags.integer({summary: 'Cases to run at the same time.', default: 4, min: 1, max: 200}),
    only: Flags.string({
      summary: 'Run only this case (repeatable); the cases it refers to run too.',
      multiple: true,
      delimiter: ',',
    }),
    bail: Flags.boolean({summary: 'Start no further case after the first one fails.', default: false}),
    store: Flags.string({summary: 'Keep the state of the emulator started for the run in this SQLite file (default: in memory, nothing kept).'}),
    junit: Flags.string({summary: 'Write a JUnit XML report to this file.'}),
    name: Flags.string({summary: "The JUnit suite's name (default: the scenario file's name without its extension; smoke for stdin)."}),
    open: Flags.boolean({
      summary: 'Open the approval page of manual cases in the browser; --no-open prints it and waits.',
      default: true,
      allowNo: true,
    }),
    yes: Flags.boolean({summary: 'Confirm a run on a production profile without asking.', default: false}),
    shard: Flags.string({
      summary: 'Run one part of the file, <index>/<total> (e.g. 2/4); default from the CI’s parallel-job variables.',
    }),
  }

  public async run(): Promise<SmokeReport> {
    const options = toSmokeRunOptions(this.flags, this.ctx.env)
    const {scenario, cases} = await this.casesToRun(options)
    const {runScenario} = await import('../../smoke/runner.js')

    const profile = await this.profileWithKeys()
    if (options.store !== undefined && profile.profile.env !== 'local') throw storeNotUsed(options.store, profile, 'not-local')
    const {checkCasesForProfile} = await import('../../smoke/case-checks.js')
    await checkCasesForProfile(cases, scenario.file, profile, {openBrowser: options.openBrowser})
    await this.confirmProduction(`run ${cases.length} smoke case${cases.length === 1 ? '' : 's'} (creating customers, cards and transactions)`, options.yes)

    const emulator = await this.ctx.emulator(profile, {store: options.store ?? ':memory:'})
    if (options.store !== undefined && !emulator.started) {
      await emulator.stop()
      const {embeddableAddress} = await import('../../flow/embedded-emulator.js')
      throw storeNotUsed(options.store, profile, embeddableAddress(profile) ? 'running' : 'elsewhere')
    }
    if (emulator.started) {
      const kept = options.store === undefined ? 'its store is in memory' : `its state is kept in ${options.store}`
      this.note(`Started the emulator in this process at ${emulator.url} (${kept}); it stops when the run ends.`)
    }
    const service = await this.service()
    const {runFlow} = await import('../../flow/run-flow.js')
    const {LiveProgress} = await import('../../output/smoke-live-progress.js')
    const color = !this.ctx.env.NO_COLOR
    const interactive = this.interactive()
    const progress = new LiveProgress(this.ctx.io.stderr, {interactive, color: color && interactive, keys: interactive ? this.ctx.io.stdin : undefined, now: () => this.ctx.clock.now()})

    const interrupt = this.interruptSignal()
    // Through the progress display, above its live lines, so that no spinner frame is left behind.
    interrupt.addEventListener('abort', () => progress.notice('Interrupted: stopping the running cases (Ctrl-C again to quit at once).'), {once: true})
    const part = options.shard ? `, shard ${options.shard.index}/${options.shard.total} from ${options.shard.source}` : ''
    this.note(`Running ${cases.length} case${cases.length === 1 ? '' : 's'} of ${scenario.file} on profile ${profile.name} (concurrency ${options.concurrency}${part}).`)
    let report: SmokeReport
    try {
      report = await runScenario(scenario, cases, {
        runFlow: (options, onEvent) => runFlow(service, profile, options, {onEvent, openUrl: this.ctx.browser, timer: this.ctx.clock}),
        profile: profile.name,
        environment: profile.profile.env,
        concurrency: options.concurrency,
        shard: options.shard ? {index: options.shard.index, total: options.shard.total} : undefined,
        bail: options.bail,
        openBrowser: options.openBrowser,
        signal: interrupt,
        progress,
        ...(cases.some((smokeCase) => smokeCase.faults?.length) ? {caseFaults: await caseFaultsOf(service)} : {}),
        ...(cases.some((smokeCase) => smokeCase.start || smokeCase.expect.delivered)
          ? {services: {service, deliveries: (await import('../../smoke/delivery-log.js')).deliveryLogOf(service)}}
          : {}),
      })
    } finally {
      progress.close()
      await emulator.stop()
    }
    for (const result of report.cases) if (result.error) this.sayRemedies(result.error)
    await this.showReport(report, options, color, interactive)
    this.setOutcomeExitCode(report.exitCode)
    return report
  }

  /** The scenario and the cases of this run (--only, or this shard's), checked before anything is sent. */
  private async casesToRun(options: SmokeRunCommandOptions) {
    const [{loadScenario}, {selectCases}, {casesOfShard}] = await Promise.all([import('../../smoke/scenario.js'), import('../../smoke/runner.js'), import('../../smoke/shards.js')])
    const scenario = await loadScenario(this.args.file, this.ctx.env, this.ctx.io.stdin)
    const cases = options.shard ? casesOfShard(scenario.cases, options.shard) : selectCases(scenario, options.only)
    if (options.shard && cases.length === 0) {
      this.note(`Shard ${options.shard.index}/${options.shard.total} holds no case: ${scenario.file} has fewer groups of cases than shards.`)
    }
    for (const smokeCase of cases) if (smokeCase.card?.kind === 'pan') this.secrets.push(smokeCase.card.pan)
    if (options.junit !== undefined) await checkWritable(options.junit)
    return {scenario, cases}
  }

  /** The JUnit file (--junit), then the results table on stdout and the summary. */
  private async showReport(report: SmokeReport, {junit, suiteName}: Pick<SmokeRunCommandOptions, 'junit' | 'suiteName'>, color: boolean, drawnLive: boolean): Promise<void> {
    if (junit !== undefined) {
      const {renderJUnit} = await import('../../smoke/junit-report.js')
      await writeFile(junit, renderJUnit(report, {suiteName}))
      this.note(`JUnit report written to ${junit}.`)
    }
    const [{renderResultsSummary, renderResultsTable}, {tableFormatFor, terminalWidth}, {lineWidth, wrapHanging}] = await Promise.all([
      import('../../output/smoke-results-table.js'),
      import('../../output/table.js'),
      import('../../output/wrap.js'),
    ])
    const format = tableFormatFor(this.ctx.io.stdout)
    // At a terminal whose live view already showed each case (one line, details under a failure), the summary is what is left to say.
    if (drawnLive && format === 'aligned') {
      return this.print(wrapHanging(renderResultsSummary(report), lineWidth(this.ctx.io.stdout)).join('\n'))
    }
    this.print(renderResultsTable(report, {color: color && format === 'aligned', format, width: terminalWidth(this.ctx.io.stdout)}))
    // In a pipe stdout holds only the tab-separated rows; the summary is for the person or the log.
    if (format === 'aligned') this.print(`\n${wrapHanging(renderResultsSummary(report), lineWidth(this.ctx.io.stdout)).join('\n')}`)
    else if (!this.jsonEnabled()) this.note(renderResultsSummary(report))
  }
}

/** Fault rules of cases go to the emulator the service points at (the embedded one, when it runs). */
async function caseFaultsOf(service: PaymentService): Promise<CaseFaults> {
  const {FaultsClient} = await import('../../emulator/faults/index.js')
  const client = FaultsClient.over(service)
  return {
    async add(rules) {
      const {added} = await client.add(rules)
      return async () => {
        for (const rule of added) await client.remove(rule.id)
      }
    },
  }
}

/** A JUnit path that cannot be written is found before any case runs, not after all of them. */
async function checkWritable(file: string): Promise<void> {
  const {access, stat} = await import('node:fs/promises')
  const {constants} = await import('node:fs')
  const {dirname} = await import('node:path')
  try {
    if ((await stat(file).catch(() => undefined))?.isDirectory()) throw new Error('it is a folder')
    await access(dirname(file), constants.W_OK)
  } catch (error) {
    throw new InputError(`--junit ${file} cannot be written: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'its folder does not exist' : (error as Error).message}.`, {
      flag: '--junit',
    })
  }
}

/** The parser lives in src/smoke/ with the shard rules it applies; the command exports it like every other's. */
export {toSmokeRunOptions}

/** --store names the store of an emulator the run starts; none was started, so the file would be left as it is. */
function storeNotUsed(store: string, profile: ResolvedProfile, why: 'not-local' | 'running' | 'elsewhere'): InputError {
  const address = redactUrl(profile.profile.base_url)
  if (why === 'not-local') {
    return new InputError(`--store is for the emulator that a run on a local profile starts; profile ${profile.name} is ${profile.profile.env} (${address}).`, {flag: '--store', hint: 'Drop --store.'})
  }
  if (why === 'elsewhere') {
    return new InputError(`--store ${store} cannot be used: paytx starts an emulator only at an address of this machine, and profile ${profile.name} points at ${address}.`, {flag: '--store', hint: 'Drop --store.'})
  }
  return new InputError(`--store ${store} cannot be used: an emulator already runs at ${address} and keeps its own store.`, {
    flag: '--store',
    hint: 'Drop --store to use that emulator, or stop it so that the run starts its own.',
  })
}
