import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import type {Interfaces} from '@oclif/core'

import {InputError} from '../../errors.js'
import {BaseCommand} from '../../cli/base-command.js'
import type {MergeSummary} from '../../smoke/junit-merge.js'

/** A shard's report with every case's output in it stays far below this. */
const MAX_REPORT_BYTES = 64 * 1024 * 1024

export default class SmokeMerge extends BaseCommand<typeof SmokeMerge> {
  static override strict = false
  static override summary = 'Join the JUnit reports of the shards of a smoke run into one.'
  static override description = `Reads the JUnit files written by \`paytx smoke run --shard i/n --junit ...\` on each CI machine and writes one report: the suites of the same scenario file become one suite with its cases in the file's order, the counts summed again, and a "shards" property listing the shards joined. A shard missing from the files is named in a warning on stderr. The same case in two files (one shard's report given twice) is refused. Any JUnit XML with <testsuites> or <testsuite> at its root is read.

The merged XML goes to stdout, or to --output. With --json (which needs --output), stdout holds a summary: files, suites, tests, failures, errors, skipped, shards and missingShards.

EXIT CODES
  0    the reports were joined (whatever their results: each shard's job already failed on its own)
  2    a file cannot be read or is not JUnit XML, or a case is in two files; nothing was written`

  static override examples = [
    '<%= config.bin %> smoke merge smoke-1.xml smoke-2.xml smoke-3.xml smoke-4.xml --output smoke-results.xml',
    '<%= config.bin %> smoke merge shards/*.xml > smoke-results.xml',
  ]

  static override args = {
    files: Args.string({description: 'JUnit files to join (at least one)'}),
  }

  static override flags = {
    output: Flags.string({char: 'o', summary: 'Write the merged report to this file instead of stdout.'}),
  }

  public async run(): Promise<MergeSummary & {output?: string}> {
    const {files, output} = toSmokeMergeOptions(this.flags, this.argList, {json: this.jsonEnabled(), invokedAs: this.ctx.invokedAs})
    const [{writeFile}, {readFileCapped}] = await Promise.all([import('node:fs/promises'), import('../../input/bounded-read.js')])
    const inputs = await Promise.all(
      files.map(async (name) => {
        try {
          return {name, xml: await readFileCapped(name, {flag: 'files', maxBytes: MAX_REPORT_BYTES})}
        } catch (error) {
          if (error instanceof InputError) throw error
          const code = (error as NodeJS.ErrnoException).code
          throw new InputError(`${name} cannot be read: ${code === 'ENOENT' ? 'it does not exist' : code === 'EISDIR' ? 'it is a folder' : (error as Error).message}.`, {flag: 'files'})
        }
      }),
    )
    const {mergeJUnit} = await import('../../smoke/junit-merge.js')
    const {xml, summary} = mergeJUnit(inputs)
    if (summary.missingShards.length > 0) {
      this.warnUser(`no report for shard${summary.missingShards.length === 1 ? '' : 's'} ${summary.missingShards.join(', ')}; the merged report lacks their cases.`)
    }
    if (output === undefined) {
      this.ctx.io.stdout.write(xml)
    } else {
      try {
        await writeFile(output, xml)
      } catch (error) {
        throw new InputError(`--output ${output} cannot be written: ${(error as Error).message}.`, {flag: '--output'})
      }
      this.note(`Joined ${files.length} report${files.length === 1 ? '' : 's'} (${summary.tests} cases: ${summary.failures} failed, ${summary.errors} with errors, ${summary.skipped} skipped) into ${output}.`)
    }
    return {...summary, ...(output === undefined ? {} : {output})}
  }
}

export type SmokeMergeFlags = Interfaces.InferredFlags<typeof SmokeMerge.flags>

export interface SmokeMergeOptions {
  files: string[]
  /** Where the merged XML goes; stdout when undefined. */
  output?: string
}

/** `smoke merge`'s files and flags: at least one file, and --output under --json (stdout holds one document). */
export function toSmokeMergeOptions(flags: SmokeMergeFlags, files: string[], env: {json: boolean; invokedAs: string}): SmokeMergeOptions {
  if (files.length === 0) throw new InputError(`Give the JUnit files to join, e.g. \`${env.invokedAs} smoke merge smoke-*.xml\`.`, {flag: 'files'})
  if (env.json && flags.output === undefined) {
    throw new InputError('--json needs --output: stdout holds either the merged XML or the JSON summary.', {flag: '--output'})
  }
  return {files, output: flags.output}
}
