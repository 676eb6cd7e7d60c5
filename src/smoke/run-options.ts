/**
 * `paytx smoke run`'s flags and environment as options, parsed without touching the world (the
 * command reads the file and runs; tests call this with tables of flags and variables).
 */
import {resolve} from 'node:path'

import {InputError} from '../errors.js'
import {type ShardChoice, parseShard, shardFromEnvironment} from './shards.js'

export interface SmokeRunFlags {
  concurrency: number
  only?: string[]
  bail: boolean
  junit?: string
  open: boolean
  yes: boolean
  shard?: string
  name?: string
  store?: string
}

export interface SmokeRunCommandOptions {
  concurrency: number
  only: string[]
  bail: boolean
  junit?: string
  /** The JUnit suite's name (--name); default: the file's name without its extension. */
  suiteName?: string
  openBrowser: boolean
  yes: boolean
  /** The part of the file to run: from --shard, else the CI's parallel-job variables, else all. */
  shard?: ShardChoice
  /** The store of the emulator the run starts (--store): a file's absolute path or :memory:; default in memory. */
  store?: string
}

export function toSmokeRunOptions(flags: SmokeRunFlags, env: Record<string, string | undefined>): SmokeRunCommandOptions {
  const chosen = flags.shard === undefined ? shardFromEnvironment(env) : {...parseShard(flags.shard), source: `--shard ${flags.shard.trim()}`}
  // One shard of one is the whole file: the run and its report need not name it.
  const shard = chosen && chosen.total > 1 ? chosen : undefined
  if (shard && flags.only?.length) {
    throw new InputError(`--only and a shard (${shard.source}) cannot be combined: a shard is a part of the whole file.`, {
      flag: '--only',
      hint: 'Drop --only, or run without --shard (unset the CI variables, or pass --shard 1/1).',
    })
  }
  return {
    concurrency: flags.concurrency,
    only: flags.only ?? [],
    bail: flags.bail,
    junit: flags.junit,
    ...(flags.name === undefined ? {} : {suiteName: suiteNameOf(flags.name)}),
    openBrowser: flags.open,
    yes: flags.yes,
    shard,
    ...(flags.store === undefined ? {} : {store: storeOf(flags.store)}),
  }
}

/** --name: a JUnit suite's name, one line of text. */
function suiteNameOf(name: string): string {
  const trimmed = name.trim()
  if (trimmed === '' || /[\u0000-\u001f\u007f]/.test(trimmed)) {
    throw new InputError(`--name must be a suite name on one line, such as checkout-smoke (got ${JSON.stringify(name)}).`, {flag: '--name'})
  }
  return trimmed
}

/** --store: `:memory:`, or a file, by its absolute path (checked as a store when the emulator opens it). */
function storeOf(store: string): string {
  if (store.trim() === '') throw new InputError('--store must name a file (or :memory:).', {flag: '--store'})
  return store === ':memory:' ? store : resolve(store)
}
