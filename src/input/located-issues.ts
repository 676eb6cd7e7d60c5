/**
 * Zod's issues on a document read from YAML or JSON (a scenario, a fault file) as problems with
 * line and column: unknown fields with a "did you mean", and for a union the branch that fits
 * the value best.
 */
import type {z} from 'zod'

import {closestName} from '../closest-name.js'

import type {ScenarioProblem} from './scenario-error.js'
import {type ScenarioSource, type ValuePath, formatPath} from './scenario-source.js'

type ZodIssue = z.core.$ZodIssue

/** What a kind of document allows, for its messages. */
export interface DocumentShape {
  /** The fields a mapping at this path may hold (given the mapping itself). */
  allowedKeysAt(path: ValuePath, value: unknown): string[]
  /** The message when the whole document is not the mapping it should be. */
  notAMapping: string
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return Boolean(value) && typeof value === 'object' && !Array.isArray(value)
}

export function valueAt(data: unknown, path: ValuePath): unknown {
  let current = data
  for (const part of path) {
    if (current === null || typeof current !== 'object') return undefined
    current = (current as Record<string | number, unknown>)[part]
  }
  return current
}

/** ` (did you mean "amount"?)` when one candidate is close to what was written. */
export function suggestion(written: string, candidates: readonly string[]): string {
  const best = closestName(written, candidates)
  return best ? ` (did you mean "${best}"?)` : ''
}

/** Zod's issues as located problems; for a union, the branch that fits the value best. */
export function structureProblems(
  issues: readonly ZodIssue[],
  data: unknown,
  locate: ScenarioSource['locate'],
  document: DocumentShape,
  prefix: ValuePath = [],
): ScenarioProblem[] {
  const problems: ScenarioProblem[] = []
  for (const issue of issues) {
    const path = [...prefix, ...issue.path] as (string | number)[]
    if (issue.code === 'unrecognized_keys') {
      const allowed = document.allowedKeysAt(path, valueAt(data, path))
      for (const key of issue.keys) {
        const keyPath = [...path, key]
        problems.push({
          path: formatPath(keyPath),
          ...locate(keyPath, {key: true}),
          message: `unknown field "${key}"${suggestion(key, allowed)}${allowed.length > 0 ? `; allowed: ${allowed.join(', ')}` : ''}`,
        })
      }
      continue
    }
    if (issue.code === 'invalid_union' && isPlainObject(valueAt(data, path))) {
      const fitting = issue.errors.filter((branch) => !branch.some((inner) => inner.path.length === 0 && inner.code === 'invalid_type'))
      const fewest = Math.min(...fitting.map((branch) => branch.length))
      const best = fitting.filter((branch) => branch.length === fewest)
      if (best.length === 1) {
        problems.push(...structureProblems(best[0], data, locate, document, path))
        continue
      }
    }
    const value = valueAt(data, path)
    const message = value === undefined && (issue.code === 'invalid_type' || issue.code === 'invalid_union') ? 'is required' : issue.message
    problems.push({path: formatPath(path), ...locate(path), message: path.length === 0 && value !== undefined ? document.notAMapping : message})
  }
  return problems
}

/** `/pattern/flags` or a plain pattern. */
