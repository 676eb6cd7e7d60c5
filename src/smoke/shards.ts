/**
 * Splitting a scenario over the machines of a CI matrix. Cases that refer to each other
 * (`${cases.<name>...}`, directly or through others) form one group and always land in the same
 * shard. Groups are dealt out largest first, each to the shard with the fewest cases so far
 * (ties to the lowest shard), in an order fixed by the file alone: the same file gives the same
 * shards on every machine, whatever its Node version, clock or locale.
 */
import {InputError} from '../errors.js'
import type {SmokeCase} from './scenario.js'

export interface Shard {
  /** From 1. */
  index: number
  total: number
}

/** Where the shard came from, for messages: `--shard`, or the CI variables read. */
export interface ShardChoice extends Shard {
  source: string
}

export const MAX_SHARDS = 1000

/** Parses `2/4` (the second of four shards). */
export function parseShard(text: string, source = '--shard'): Shard {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text)
  const index = Number(match?.[1])
  const total = Number(match?.[2])
  if (!match || total < 1 || total > MAX_SHARDS || index < 1 || index > total) {
    throw new InputError(`${source} must be <index>/<total> with 1 ≤ index ≤ total ≤ ${MAX_SHARDS}, e.g. 2/4 (got "${text}").`, {flag: '--shard'})
  }
  return {index, total}
}

/**
 * The parallel-job variables of CI systems: which job of how many this is. `base` is the index
 * of the first job (GitLab counts from 1, CircleCI and Buildkite from 0).
 */
const CI_SHARD_VARIABLES = [
  {name: 'GitLab CI', index: 'CI_NODE_INDEX', total: 'CI_NODE_TOTAL', base: 1},
  {name: 'CircleCI', index: 'CIRCLE_NODE_INDEX', total: 'CIRCLE_NODE_TOTAL', base: 0},
  {name: 'Buildkite', index: 'BUILDKITE_PARALLEL_JOB', total: 'BUILDKITE_PARALLEL_JOB_COUNT', base: 0},
] as const

/** The shard a CI job's own variables name, or undefined outside a parallel CI job. */
export function shardFromEnvironment(env: Record<string, string | undefined>): ShardChoice | undefined {
  for (const ci of CI_SHARD_VARIABLES) {
    const index = env[ci.index]?.trim()
    const total = env[ci.total]?.trim()
    if (!index || !total) continue
    const source = `${ci.index}=${index} and ${ci.total}=${total} (${ci.name})`
    if (!/^\d+$/.test(index) || !/^\d+$/.test(total)) {
      throw new InputError(`${source} are not whole numbers; set them as ${ci.name} does, or pass --shard <index>/<total>.`, {flag: '--shard'})
    }
    return {...parseShard(`${Number(index) + 1 - ci.base}/${total}`, source), source}
  }
  return undefined
}

/** Cases that refer to each other, directly or through others: each group in file order. */
export function referenceGroups(cases: readonly SmokeCase[]): SmokeCase[][] {
  const parent = new Map(cases.map((smokeCase) => [smokeCase.name, smokeCase.name]))
  const root = (name: string): string => {
    let current = name
    while (parent.get(current) !== current) current = parent.get(current)!
    return current
  }
  for (const smokeCase of cases) {
    for (const dependency of smokeCase.dependsOn) {
      if (!parent.has(dependency)) continue
      const [a, b] = [root(smokeCase.name), root(dependency)]
      if (a !== b) parent.set(b, a)
    }
  }
  const groups = new Map<string, SmokeCase[]>()
  for (const smokeCase of cases) {
    const key = root(smokeCase.name)
    groups.set(key, [...(groups.get(key) ?? []), smokeCase])
  }
  return [...groups.values()]
}

/** Every shard's cases (in file order), index 0 for shard 1. */
export function splitIntoShards(cases: readonly SmokeCase[], total: number): SmokeCase[][] {
  const position = new Map(cases.map((smokeCase, index) => [smokeCase.name, index]))
  const groups = referenceGroups(cases).sort((a, b) => b.length - a.length || position.get(a[0].name)! - position.get(b[0].name)!)
  const shards: SmokeCase[][] = Array.from({length: total}, () => [])
  for (const group of groups) {
    const lightest = shards.reduce((best, shard, index) => (shard.length < shards[best].length ? index : best), 0)
    shards[lightest].push(...group)
  }
  return shards.map((shard) => shard.sort((a, b) => position.get(a.name)! - position.get(b.name)!))
}

/** The cases of one shard. */
export function casesOfShard(cases: readonly SmokeCase[], shard: Shard): SmokeCase[] {
  return splitIntoShards(cases, shard.total)[shard.index - 1]
}
