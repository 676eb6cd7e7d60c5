/**
 * `emulator verify`'s report: each request with its two HTTP status codes and its differences
 * (class, what, the assumption touched), what the sides did beside answering, every listed
 * assumption checked or why not, the ids created on the service, and a summary. Every line is
 * fitted to the width given (80 columns in a pipe) with hanging indents.
 */
import type {Difference} from '../emulator-verify/compare.js'
import {NO_ASSUMPTION} from '../emulator-verify/attribution.js'
import type {VerifyReport} from '../emulator-verify/run-verify.js'
import {visibleText} from '../terminal/visible-text.js'
import {wrapHanging} from './wrap.js'

const BEHAVIOUR_LABEL: Record<string, string> = {webhook: 'webhooks', 'webhook-retry': 'webhook retries', 'api-key': 'API key header', 'status-moves': 'the dummy transaction'}

export function differenceText(difference: Difference): string {
  const {real, emulator} = difference
  // A field of the webhook body, told apart from a field of an answer.
  const path = difference.probe === 'webhook' ? `webhook body ${difference.path}` : difference.path
  switch (difference.kind) {
    case 'http-status':
      return `HTTP status ${real} from the service, ${emulator} from the emulator`
    case 'only-real':
      return `${path}: only the service sends it (${real})`
    case 'only-emulator':
      return `${path}: only the emulator sends it (${emulator})`
    case 'type':
      return `${path}: a ${real} from the service, a ${emulator} from the emulator`
    case 'enum':
    case 'value':
      return `${path}: ${real} from the service, ${emulator} from the emulator`
    case 'behaviour':
      return `${BEHAVIOUR_LABEL[difference.probe] ?? difference.probe}: the service ${real}; the emulator ${emulator}`
  }
}

function differenceLine(difference: Difference, width: number): string[] {
  const touches = difference.assumptions.length > 0 ? `[assumption: ${difference.assumptions.join(', ')}]` : `[${NO_ASSUMPTION}]`
  const text = `    ${difference.class.padEnd(8)}  ${visibleText(differenceText(difference))}  ${touches}`
  return wrapHanging(text, width, 14)
}

function probeLines(report: VerifyReport, width: number): string[] {
  const lines: string[] = []
  for (const result of report.probes) {
    if (result.skipped) {
      lines.push(...wrapHanging(`- ${result.title}: not sent to either side (${result.skipped})`, width, 4))
      continue
    }
    const same = result.differences.length === 0
    const head = `${same ? '✔' : '✖'} ${result.title}  HTTP ${result.real!.status} / ${result.emulator!.status}${same ? '  same' : ''}`
    lines.push(...wrapHanging(head, width, 4))
    for (const difference of result.differences) lines.push(...differenceLine(difference, width))
  }
  return lines
}

const CHECK_MARK = {yes: '✔', partly: '~', no: '-'} as const

function checkLines(report: VerifyReport, width: number): string[] {
  const longest = Math.max(...report.checks.map((check) => check.assumption.length))
  return report.checks.map((check) => `  ${CHECK_MARK[check.checked]} ${check.assumption.padEnd(longest)}  ${check.how}`).flatMap((line) => wrapHanging(line, width, longest + 6))
}

function summary(report: VerifyReport): string {
  const {breaking, additive, value} = report.counts
  if (breaking + additive + value === 0) return `The emulator answered as the service did to every request (profile "${report.profile}").`
  return `${breaking} breaking, ${value} value and ${additive} additive difference${breaking + value + additive === 1 ? '' : 's'} between profile "${report.profile}" and the emulator. Additive ones are harmless to readers; \`paytx emulator assumptions\` explains each assumption and its switch.`
}

export function renderVerifyReport(report: VerifyReport, width = 80): string {
  const lines: string[] = []
  const created = report.created.map((item) => `${item.what} ${item.id}`).join(', ')
  if (report.refused) {
    const said = report.refused.message ? `: ${visibleText(report.refused.message)}` : ''
    lines.push(...wrapHanging(`✖ The service refused the API key of profile "${report.profile}", sent in ${report.refused.header} (HTTP ${report.refused.status}${said}). Nothing more was sent: check the key, and the header the service reads it from (assumption api-key-header).`, width, 2))
    return lines.join('\n')
  }
  lines.push(...probeLines(report, width))
  if (report.behaviour.length > 0) {
    lines.push('', 'Beside the answers:')
    for (const difference of report.behaviour) lines.push(...differenceLine(difference, width))
  }
  lines.push('', ...wrapHanging('Assumptions (paytx emulator assumptions):', width, 2), ...checkLines(report, width))
  lines.push('', ...wrapHanging(`Created on the service: ${created || 'nothing'}.`, width, 2))
  lines.push(...wrapHanging(summary(report), width, 2))
  return lines.join('\n')
}
