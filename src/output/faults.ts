/** Fault rules as a person reads them: one row per rule, what it matches and does, and its counts. */
import {FAULT_KIND_TABLE, type FaultRule, type FaultRuleView, isRequestFault} from '../emulator/faults/index.js'
import {type TableColumn, type TableOptions, renderTable} from './table.js'

function matchText(rule: FaultRule): string {
  const match: Record<string, unknown> = ('request' in rule ? rule.request : 'webhook' in rule ? rule.webhook : undefined) ?? {}
  const {method, path, ...facts} = match
  const target = 'request' in rule || isRequestFault(rule) ? `${method ?? 'any'} ${path ?? '/**'}` : 'webhook'
  const filters = Object.entries(facts).map(([key, value]) => `${key}=${String(value)}`)
  return [target, ...filters].join(' ')
}

function effectText(rule: FaultRule): string {
  const summary = FAULT_KIND_TABLE[rule.fault].summary as ((rule: FaultRule) => string) | undefined
  return summary ? summary(rule) : rule.fault
}

function howOften(rule: FaultRule): string {
  const parts = [rule.times === undefined ? 'every match' : `next ${rule.times}`, ...(rule.probability === undefined ? [] : [`p=${rule.probability}`])]
  return parts.join(', ')
}

/** `f1  status 503 on GET /v1/transaction/*  (next 1)` */
export function describeFaultRule(view: FaultRuleView): string {
  return `${view.id}${view.name ? ` (${view.name})` : ''}: ${effectText(view.rule)} on ${matchText(view.rule)}, ${howOften(view.rule)}`
}

// A rule's id is what `faults clear` takes: never cut. What a rule does and matches wrap between
// words; its name is cut; the counts and how often it applies go when the terminal is narrow.
const FAULT_COLUMNS: TableColumn[] = [
  {header: 'ID', id: true},
  {header: 'NAME', shrink: 'truncate', minWidth: 8, priority: 4},
  {header: 'FAULT', shrink: 'wrap'},
  {header: 'MATCHES', shrink: 'wrap', minWidth: 16},
  {header: 'APPLIES', shrink: 'wrap', priority: 2},
  {header: 'HITS', priority: 3},
  {header: 'MATCHED', priority: 5},
]

/**
 * The rules as a table: on a terminal fitted to its width, then `seed N` (or one sentence when
 * there is no rule); in a pipe tab-separated rows under a header line only (the seed is
 * faultSeedNote's, for stderr).
 */
export function renderFaultList(seed: number, rules: readonly FaultRuleView[], options: TableOptions = {format: 'aligned'}): string {
  if (rules.length === 0 && options.format === 'aligned') return faultSeedNote(seed, 0)
  const rows = rules.map((view) => [view.id, view.name ?? '', effectText(view.rule), matchText(view.rule), howOften(view.rule), String(view.hits), String(view.matched)])
  const table = renderTable(FAULT_COLUMNS, rows, {tooNarrow: 'blocks', ...options})
  return options.format === 'aligned' ? `${table}\n${faultSeedNote(seed, rules.length)}` : table
}

/** `seed 42`, or that there is no rule. */
export function faultSeedNote(seed: number, rules: number): string {
  return rules === 0 ? `No fault rules (seed ${seed}).` : `seed ${seed}`
}
