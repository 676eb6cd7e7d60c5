/**
 * Joins the JUnit reports of the shards of one run (`paytx smoke run --shard i/n` on each CI
 * machine) into one: the test suites of the same scenario file become one suite, its cases in
 * the file's order, the counts summed again. Written for paytx's reports, and reads any JUnit
 * XML with <testsuites> or <testsuite> at its root. The XML is read by a strict XML 1.0 parser.
 */
import {SaxesParser} from 'saxes'

import {InputError} from '../errors.js'
import {escapeXmlAttribute, escapeXmlText} from './junit-report.js'

interface XmlElement {
  name: string
  attributes: Record<string, string>
  children: (XmlElement | string)[]
}

export interface JUnitInput {
  /** The file's name, for messages. */
  name: string
  xml: string
}

export interface MergeSummary {
  files: number
  suites: number
  tests: number
  failures: number
  errors: number
  skipped: number
  /** The shards the reports name (`1/4`, `2/4`, …), in order. */
  shards: string[]
  /** Shards of the run with no report among the files. */
  missingShards: string[]
}

export interface MergedJUnit {
  xml: string
  summary: MergeSummary
}

/**
 * A JUnit report nests a handful of elements (testsuites > testsuite > testcase > failure); the
 * merge walks the tree recursively, so a file nested deeper is refused rather than overflowing it.
 */
export const MAX_XML_DEPTH = 64

function parseXml(input: JUnitInput): XmlElement {
  const parser = new SaxesParser()
  const stack: XmlElement[] = []
  let root: XmlElement | undefined
  let failure: Error | undefined
  parser.on('error', (error) => {
    failure ??= error
  })
  parser.on('opentag', (tag) => {
    // Thrown out of the parser's write, which stops reading there.
    if (stack.length >= MAX_XML_DEPTH) throw new Error(`elements are nested more than ${MAX_XML_DEPTH} deep (at <${tag.name}>), far deeper than any JUnit report`)
    const element: XmlElement = {name: tag.name, attributes: Object.fromEntries(Object.entries(tag.attributes).map(([key, value]) => [key, String(value)])), children: []}
    if (stack.length > 0) stack.at(-1)!.children.push(element)
    else root = element
    stack.push(element)
  })
  const addText = (text: string) => stack.at(-1)?.children.push(text)
  parser.on('text', addText)
  parser.on('cdata', addText)
  parser.on('closetag', () => stack.pop())
  try {
    parser.write(input.xml).close()
  } catch (error) {
    failure ??= error as Error
  }
  if (failure || !root) throw new InputError(`${input.name} is not well-formed XML: ${failure?.message ?? 'it is empty'}.`, {flag: 'files'})
  if (root.name !== 'testsuites' && root.name !== 'testsuite') {
    throw new InputError(`${input.name} is not a JUnit report: its root element is <${root.name}>, not <testsuites> or <testsuite>.`, {flag: 'files'})
  }
  return root
}

const elements = (element: XmlElement, name?: string) => element.children.filter((child): child is XmlElement => typeof child !== 'string' && (!name || child.name === name))

function property(suite: XmlElement, name: string): string | undefined {
  for (const properties of elements(suite, 'properties')) for (const entry of elements(properties, 'property')) if (entry.attributes.name === name) return entry.attributes.value
  return undefined
}

const SHARD_SUFFIX = / \(shard \d+\/\d+\)$/

/** The shards named by the reports, and those of the same run that none of them holds. */
function shardCoverage(suites: XmlElement[]): {shards: string[]; missing: string[]} {
  const named = [...new Set(suites.map((suite) => property(suite, 'shard')).filter((shard): shard is string => Boolean(shard)))]
  const parsed = named.map((shard) => shard.split('/').map(Number))
  parsed.sort((a, b) => a[1] - b[1] || a[0] - b[0])
  const totals = new Set(parsed.map(([, total]) => total))
  const missing: string[] = []
  for (const total of totals) for (let index = 1; index <= total; index++) if (!named.includes(`${index}/${total}`)) missing.push(`${index}/${total}`)
  return {shards: parsed.map(([index, total]) => `${index}/${total}`), missing}
}

const seconds = (element: XmlElement) => Number(element.attributes.time) || 0

/** Attributes recounted for the merged suites, never copied from one report. */
const COUNT_ATTRIBUTES = new Set(['tests', 'failures', 'errors', 'skipped', 'time'])

/** The suites of several reports, one entry per suite name and file, with every case once. */
interface SuiteEntry {
  suite: XmlElement
  from: string[]
  testcases: XmlElement[]
  time: number
  shardsOf: XmlElement[]
}

type Counts = {tests: number; failures: number; errors: number; skipped: number; time: number}

/** Every report's suites gathered by name and file; a case found in two reports is an input error. */
function gatherSuites(inputs: readonly JUnitInput[]): {merged: Map<string, SuiteEntry>; allSuites: XmlElement[]; runName?: string} {
  const merged = new Map<string, SuiteEntry>()
  const caseOwner = new Map<string, string>()
  const allSuites: XmlElement[] = []
  let runName: string | undefined
  for (const input of inputs) {
    const root = parseXml(input)
    if (root.name === 'testsuites') runName ??= root.attributes.name?.replace(SHARD_SUFFIX, '')
    for (const suite of root.name === 'testsuite' ? [root] : elements(root, 'testsuite')) {
      allSuites.push(suite)
      const key = `${suite.attributes.name ?? ''}\u0000${suite.attributes.file ?? ''}`
      const entry = merged.get(key) ?? {suite, from: [], testcases: [], time: 0, shardsOf: []}
      merged.set(key, entry)
      entry.from.push(input.name)
      entry.time += seconds(suite)
      entry.shardsOf.push(suite)
      if (suite.attributes.timestamp && (!entry.suite.attributes.timestamp || suite.attributes.timestamp < entry.suite.attributes.timestamp)) {
        entry.suite = {...entry.suite, attributes: {...entry.suite.attributes, timestamp: suite.attributes.timestamp}}
      }
      for (const testcase of elements(suite, 'testcase')) {
        const id = `${key}\u0000${testcase.attributes.classname ?? ''}\u0000${testcase.attributes.name ?? ''}`
        const owner = caseOwner.get(id)
        if (owner) {
          throw new InputError(`Case "${testcase.attributes.name}" of suite "${suite.attributes.name}" is in both ${owner} and ${input.name}; is one shard's report given twice?`, {flag: 'files'})
        }
        caseOwner.set(id, input.name)
        entry.testcases.push(testcase)
      }
    }
  }
  return {merged, allSuites, runName}
}

/** One merged suite: its cases in file order when every case has a line, the counts recounted. */
function mergedSuite(entry: SuiteEntry): {suite: XmlElement; counts: Counts} {
  const byLine = entry.testcases.every((testcase) => /^\d+$/.test(testcase.attributes.line ?? ''))
  const testcases = byLine ? entry.testcases.toSorted((a, b) => Number(a.attributes.line) - Number(b.attributes.line)) : entry.testcases
  const count = (name: string) => testcases.filter((testcase) => elements(testcase, name).length > 0).length
  const counts = {tests: testcases.length, failures: count('failure'), errors: count('error'), skipped: count('skipped'), time: entry.time}
  const properties = mergedProperties(entry.suite, shardCoverage(entry.shardsOf).shards)
  const others = entry.shardsOf.flatMap((suite) => elements(suite).filter((child) => child.name !== 'testcase' && child.name !== 'properties'))
  const kept = Object.fromEntries(Object.entries(entry.suite.attributes).filter(([name]) => !COUNT_ATTRIBUTES.has(name)))
  return {
    suite: {name: 'testsuite', attributes: {name: kept.name ?? '', ...stringCounts(counts), ...kept}, children: [...(properties ? [properties] : []), ...testcases, ...others]},
    counts,
  }
}

export function mergeJUnit(inputs: readonly JUnitInput[]): MergedJUnit {
  const {merged, allSuites, runName} = gatherSuites(inputs)
  const totals: Counts = {tests: 0, failures: 0, errors: 0, skipped: 0, time: 0}
  const suites = [...merged.values()].map((entry) => {
    const {suite, counts} = mergedSuite(entry)
    for (const key of Object.keys(totals) as (keyof Counts)[]) totals[key] += counts[key]
    return suite
  })
  const coverage = shardCoverage(allSuites)
  const root: XmlElement = {name: 'testsuites', attributes: {name: runName ?? 'paytx smoke', ...stringCounts(totals)}, children: suites}
  return {
    xml: `<?xml version="1.0" encoding="UTF-8"?>\n${serialize(root, '')}\n`,
    summary: {
      files: inputs.length,
      suites: suites.length,
      tests: totals.tests,
      failures: totals.failures,
      errors: totals.errors,
      skipped: totals.skipped,
      shards: coverage.shards,
      missingShards: coverage.missing,
    },
  }
}

/** The first report's properties, with the one `shard` replaced by the `shards` joined. */
function mergedProperties(suite: XmlElement, shards: string[]): XmlElement | undefined {
  const kept = elements(suite, 'properties').flatMap((properties) => elements(properties, 'property').filter((entry) => entry.attributes.name !== 'shard'))
  const children = [...kept, ...(shards.length > 0 ? [{name: 'property', attributes: {name: 'shards', value: shards.join(', ')}, children: []}] : [])]
  return children.length > 0 ? {name: 'properties', attributes: {}, children} : undefined
}

function stringCounts(counts: {tests: number; failures: number; errors: number; skipped: number; time: number}): Record<string, string> {
  return {
    tests: String(counts.tests),
    failures: String(counts.failures),
    errors: String(counts.errors),
    skipped: String(counts.skipped),
    time: counts.time.toFixed(3),
  }
}

function serialize(element: XmlElement, indent: string): string {
  const attributes = Object.entries(element.attributes)
    .map(([name, value]) => ` ${name}="${escapeXmlAttribute(value)}"`)
    .join('')
  const children = element.children.filter((child) => typeof child !== 'string' || child.trim() !== '')
  if (children.length === 0) return `${indent}<${element.name}${attributes}/>`
  if (children.every((child) => typeof child === 'string')) return `${indent}<${element.name}${attributes}>${escapeXmlText(children.join(''))}</${element.name}>`
  const inner = children.map((child) => (typeof child === 'string' ? `${indent}  ${escapeXmlText(child.trim())}` : serialize(child, `${indent}  `)))
  return `${indent}<${element.name}${attributes}>\n${inner.join('\n')}\n${indent}</${element.name}>`
}
