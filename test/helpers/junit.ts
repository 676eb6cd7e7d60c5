/**
 * Reads a JUnit report with a strict XML 1.0 parser (saxes): any well-formedness error throws,
 * so a test that parses a report also proves it is well-formed XML.
 */
import {SaxesParser} from 'saxes'

export interface JUnitTestcase {
  attributes: Record<string, string>
  failure?: {attributes: Record<string, string>; text: string}
  error?: {attributes: Record<string, string>; text: string}
  skipped?: {attributes: Record<string, string>}
  systemOut?: string
}

export interface JUnitDocument {
  root: string
  rootAttributes: Record<string, string>
  suites: {attributes: Record<string, string>; properties: Record<string, string>; testcases: JUnitTestcase[]}[]
}

export function parseJUnit(xml: string): JUnitDocument {
  const parser = new SaxesParser()
  const stack: string[] = []
  let root = ''
  let rootAttributes: Record<string, string> = {}
  const suites: JUnitDocument['suites'] = []
  let current: JUnitTestcase | undefined
  let text = ''
  parser.on('error', (error) => {
    throw error
  })
  parser.on('opentag', (tag) => {
    const attributes = Object.fromEntries(Object.entries(tag.attributes).map(([name, value]) => [name, String(value)]))
    if (stack.length === 0) {
      root = tag.name
      rootAttributes = attributes
    }
    stack.push(tag.name)
    text = ''
    if (tag.name === 'testsuite') suites.push({attributes, properties: {}, testcases: []})
    if (tag.name === 'property') suites.at(-1)!.properties[attributes.name] = attributes.value
    if (tag.name === 'testcase') {
      current = {attributes}
      suites.at(-1)!.testcases.push(current)
    }
    if (tag.name === 'failure') current!.failure = {attributes, text: ''}
    if (tag.name === 'error') current!.error = {attributes, text: ''}
    if (tag.name === 'skipped') current!.skipped = {attributes}
  })
  parser.on('text', (chunk) => {
    text += chunk
  })
  parser.on('closetag', (tag) => {
    stack.pop()
    if (tag.name === 'failure') current!.failure!.text = text
    if (tag.name === 'error') current!.error!.text = text
    if (tag.name === 'system-out') current!.systemOut = text
    if (tag.name === 'testcase') current = undefined
  })
  parser.write(xml).close()
  return {root, rootAttributes, suites}
}
