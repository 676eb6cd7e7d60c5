/**
 * JUnit XML for CI systems (GitLab, Jenkins, GitHub test reporters): one <testsuite> for the
 * scenario file, one <testcase> per case, <failure> for unmet expectations, <error> for service
 * or network trouble, <skipped> for cases that did not run. Every text is escaped, and
 * characters XML 1.0 cannot carry are dropped, so the file always parses.
 */
import {basename, extname} from 'node:path'

import {formatDifference} from './expectations.js'
import type {SmokeCaseResult, SmokeReport} from './runner.js'

// Characters outside XML 1.0's Char production (controls, lone surrogates, U+FFFE/U+FFFF).
const NOT_XML_CHAR = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu

export function escapeXmlText(text: string): string {
  return text.replace(NOT_XML_CHAR, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

export function escapeXmlAttribute(text: string): string {
  return escapeXmlText(text).replace(/"/g, '&quot;').replace(/'/g, '&apos;').replace(/\t/g, '&#9;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;')
}

function attributes(values: Record<string, string | number | undefined>): string {
  return Object.entries(values)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => ` ${name}="${escapeXmlAttribute(String(value))}"`)
    .join('')
}

const seconds = (ms: number) => (ms / 1000).toFixed(3)

function caseDetails(result: SmokeCaseResult): string {
  const lines = [
    `transaction: ${result.transactionId ?? '(none)'}`,
    `customer: ${result.customerId ?? '(none)'}`,
    ...(result.cardId ? [`card: ${result.cardId}${result.cardLast4 ? ` (•••• ${result.cardLast4})` : ''}`] : []),
    `expected: ${result.expected}`,
    `got: ${result.got ?? '(no result)'}`,
    ...deliveryLines(result),
    ...(result.check ? [`check: ${result.check.status === undefined ? 'no answer' : `HTTP ${result.check.status}`} at the last of ${result.check.reads} reads`] : []),
  ]
  return lines.join('\n')
}

/** Each webhook the emulator sent for the case's transaction: where to, and each attempt's answer and time. */
function deliveryLines(result: SmokeCaseResult): string[] {
  if (!result.deliveries) return []
  return [
    `webhook deliveries: ${result.delivered ?? result.deliveries.length}`,
    ...result.deliveries.map((delivery) => {
      const attempts = delivery.attempts.map((attempt) => `${attempt.httpStatus === undefined ? (attempt.error ?? 'no answer') : `HTTP ${attempt.httpStatus}`} at ${attempt.at}`)
      return `  ${delivery.status} to ${delivery.url}: ${attempts.length === 0 ? `not sent (${delivery.state})` : attempts.join(', ')}`
    }),
  ]
}

function testcase(result: SmokeCaseResult, suite: string, file: string): string {
  const open = `    <testcase${attributes({name: result.name, classname: `${suite}.${result.product ?? 'merchant'}`, file, line: result.line, time: seconds(result.durationMs)})}`
  const body: string[] = []
  if (result.verdict === 'failed') {
    const text = result.differences.map(formatDifference).join('\n')
    body.push(`      <failure${attributes({message: result.reason, type: 'ExpectationNotMet'})}>${escapeXmlText(text)}</failure>`)
  } else if (result.verdict === 'error') {
    const text = [result.error?.message, result.error?.hint ? `Hint: ${result.error.hint}` : undefined].filter(Boolean).join('\n')
    body.push(`      <error${attributes({message: result.reason, type: result.error?.kind ?? 'internal'})}>${escapeXmlText(text)}</error>`)
  } else if (result.verdict === 'skipped') {
    body.push(`      <skipped${attributes({message: result.reason})}/>`)
  }
  if (result.verdict !== 'skipped') body.push(`      <system-out>${escapeXmlText(caseDetails(result))}</system-out>`)
  return body.length === 0 ? `${open}/>` : `${open}>\n${body.join('\n')}\n    </testcase>`
}

/** The suite's name: --name, else the scenario file's name without its extension (`smoke` for stdin). */
export function suiteNameFor(file: string, given?: string): string {
  if (given !== undefined) return given
  return file === '-' ? 'smoke' : basename(file, extname(file)) || 'smoke'
}

export function renderJUnit(report: SmokeReport, options: {suiteName?: string} = {}): string {
  const suite = suiteNameFor(report.file, options.suiteName)
  const {summary} = report
  const counts = {tests: summary.total, failures: summary.failed, errors: summary.errors, skipped: summary.skipped, time: seconds(report.durationMs)}
  const shard = report.shard ? `${report.shard.index}/${report.shard.total}` : undefined
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attributes({name: shard ? `paytx smoke (shard ${shard})` : 'paytx smoke', ...counts})}>`,
    `  <testsuite${attributes({name: suite, ...counts, timestamp: report.startedAt, file: report.file})}>`,
    '    <properties>',
    `      <property${attributes({name: 'profile', value: report.profile})}/>`,
    `      <property${attributes({name: 'environment', value: report.environment})}/>`,
    `      <property${attributes({name: 'concurrency', value: report.concurrency})}/>`,
    ...(shard ? [`      <property${attributes({name: 'shard', value: shard})}/>`] : []),
    '    </properties>',
    ...report.cases.map((result) => testcase(result, suite, report.file)),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n')
}
