/** Fault rules as a person reads them: one line per rule, what it matches and does, and its counts. */
import {FAULT_KIND_TABLE, type FaultRule, type FaultRuleView, isRequestFault} from '../emulator/faults/index.js'

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

export function renderFaultList(seed: number, rules: readonly FaultRuleView[]): string {
  if (rules.length === 0) return `No fault rules (seed ${seed}).`
  const rows = [
    ['ID', 'NAME', 'FAULT', 'MATCHES', 'APPLIES', 'HITS', 'MATCHED'],
    ...rules.map((view) => [view.id, view.name ?? '', effectText(view.rule), matchText(view.rule), howOften(view.rule), String(view.hits), String(view.matched)]),
  ]
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)))
  const lines = rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column])).join('  ').trimEnd())
  return [...lines, `seed ${seed}`].join('\n')
}
