/**
 * Problems found in a scenario file (or another document read the same way), each with where it is: the file, the line and column when
 * the source shows them, and the path of the value (`cases[2].amount`). A scenario with any
 * problem is an input error (exit 2) and no case runs.
 */
import {type ErrorJson, InputError} from '../errors.js'

export interface ScenarioProblem {
  /** Path of the value in the document, e.g. `cases[2].expect.status`; empty for the document. */
  path: string
  line?: number
  column?: number
  message: string
}

/** `file:line:column` (or less, when the position is not known). */
export function formatLocation(file: string, problem: Pick<ScenarioProblem, 'line' | 'column'>): string {
  if (problem.line === undefined) return file
  return problem.column === undefined ? `${file}:${problem.line}` : `${file}:${problem.line}:${problem.column}`
}

export function formatProblem(file: string, problem: ScenarioProblem): string {
  const where = formatLocation(file, problem)
  return problem.path ? `${where}: ${problem.path}: ${problem.message}` : `${where}: ${problem.message}`
}

/** What kind of document a file is, for the messages about it (a scenario, a fault file). */
export interface DocumentKind {
  /** `scenario file` */
  noun: string
  /** What the problems prevented: `no case was run`. */
  consequence: string
  /** Where the format is described. */
  hint: string
  /** The problem of an empty file. */
  whenEmpty: string
}

export const SCENARIO_DOCUMENT: DocumentKind = {
  noun: 'scenario file',
  consequence: 'no case was run',
  hint: 'The scenario format is described in the README (section "Smoke tests") and in schemas/smoke-scenario.schema.json.',
  whenEmpty: 'the file is empty; a scenario needs at least `cases:` with one case',
}

export class ScenarioError extends InputError {
  readonly file: string
  readonly problems: ScenarioProblem[]

  constructor(file: string, problems: ScenarioProblem[], kind: DocumentKind = SCENARIO_DOCUMENT) {
    const sorted = [...problems].sort((a, b) => (a.line ?? Number.MAX_SAFE_INTEGER) - (b.line ?? Number.MAX_SAFE_INTEGER) || (a.column ?? 0) - (b.column ?? 0))
    const heading = `The ${kind.noun} ${file} has ${sorted.length === 1 ? 'a problem' : `${sorted.length} problems`}; ${kind.consequence}:`
    super([heading, ...sorted.map((problem) => `  ${formatProblem(file, problem)}`)].join('\n'), {hint: kind.hint})
    this.name = 'ScenarioError'
    this.file = file
    this.problems = sorted
  }

  override toJSON(): ErrorJson {
    return {...super.toJSON(), file: this.file, problems: this.problems}
  }
}
