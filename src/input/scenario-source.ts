/**
 * Reading a scenario file (YAML or JSON) so that every later problem can name its line: the
 * text is parsed into a `yaml` Document (JSON is YAML 1.2, so one parser locates both), and a
 * value's path leads back to its node and from there to line and column.
 */
import {extname} from 'node:path'

import {type Document, LineCounter, type Node, isMap, isScalar, isSeq, parseDocument} from 'yaml'

import {InputError} from '../errors.js'
import {readFileCapped, readStreamCapped} from './bounded-read.js'
import {fileReadReason} from './file-read-error.js'
import {type DocumentKind, SCENARIO_DOCUMENT, type ScenarioProblem, ScenarioError} from './scenario-error.js'

export type ValuePath = readonly (string | number)[]

export interface ScenarioSource {
  /** The file as the user named it (`-` is stdin). */
  file: string
  format: 'yaml' | 'json'
  data: unknown
  /** Line and column (1-based) of the value at `path`, or of its nearest ancestor that exists. */
  locate(path: ValuePath, options?: {key?: boolean}): {line?: number; column?: number}
}

/** `cases[2].expect.status`: the path as a person reads it. */
export function formatPath(path: ValuePath): string {
  let text = ''
  for (const part of path) {
    if (typeof part === 'number') text += `[${part}]`
    else text += text === '' ? part : `.${part}`
  }
  return text
}

function detectFormat(file: string, text: string): 'yaml' | 'json' {
  const extension = extname(file).toLowerCase()
  if (extension === '.json') return 'json'
  if (extension === '.yaml' || extension === '.yml') return 'yaml'
  return /^\s*[[{]/.test(text) ? 'json' : 'yaml'
}

/** Node 20 reports "at position N", Node 22+ also "(line L column C)"; both become a location. */
function jsonSyntaxProblem(error: Error, text: string, counter: LineCounter): ScenarioProblem {
  const message = error.message.replace(/\s*\(line \d+ column \d+\)/, '')
  const position = /at position (\d+)/.exec(error.message)
  if (!position) {
    const atEnd = counter.linePos(text.length)
    return {path: '', line: atEnd.line, column: atEnd.col, message: `not valid JSON: ${message}`}
  }
  const {line, col} = counter.linePos(Number(position[1]))
  return {path: '', line, column: col, message: `not valid JSON: ${message.replace(/ in JSON at position \d+/, '')}`}
}

export function parseScenarioText(file: string, text: string, kind: DocumentKind = SCENARIO_DOCUMENT): ScenarioSource {
  const format = detectFormat(file, text)
  const counter = new LineCounter()
  const doc = parseDocument(text, {lineCounter: counter, prettyErrors: false, merge: true, uniqueKeys: true})

  if (format === 'json') {
    try {
      JSON.parse(text)
    } catch (error) {
      throw new ScenarioError(file, [jsonSyntaxProblem(error as Error, text, counter)], kind)
    }
  }
  const syntaxProblems: ScenarioProblem[] = [...doc.errors, ...doc.warnings].map((error) => {
    const position = error.linePos?.[0] ?? counter.linePos(error.pos[0])
    const message = error.message.replace(/ at line \d+, column \d+:?[\s\S]*$/, '')
    return {path: '', line: position.line, column: position.col, message: `not valid ${format === 'json' ? 'JSON' : 'YAML'}: ${message}`}
  })
  if (syntaxProblems.length > 0) throw new ScenarioError(file, syntaxProblems, kind)
  if (doc.contents === null) {
    throw new ScenarioError(file, [{path: '', line: 1, column: 1, message: kind.whenEmpty}], kind)
  }

  const position = (offset: number) => {
    const {line, col} = counter.linePos(offset)
    return {line, column: col}
  }
  return {
    file,
    format,
    data: documentData(file, doc, kind),
    locate(path, options = {}) {
      return locateNode(doc, path, options.key ?? false, position)
    },
  }
}

/** Aliases may stand for at most this many copies of what they name (the `yaml` package's guard). */
const MAX_ALIAS_COUNT = 1000

/**
 * The document's values. Aliases that expand into billions of values (a "billion laughs") are
 * refused by the parser's guard, which throws; that is a problem of the file, said as one.
 */
function documentData(file: string, doc: Document, kind: DocumentKind): unknown {
  try {
    return doc.toJS({maxAliasCount: MAX_ALIAS_COUNT})
  } catch (error) {
    if (!/alias/i.test((error as Error).message)) throw error
    return problemOfFile(file, kind, `its aliases (*name) expand into too many values (more than ${MAX_ALIAS_COUNT} copies of one anchor); write the values out instead`)
  }
}

function problemOfFile(file: string, kind: DocumentKind, message: string): never {
  throw new ScenarioError(file, [{path: '', line: 1, column: 1, message}], kind)
}

function locateNode(
  doc: Document,
  path: ValuePath,
  key: boolean,
  position: (offset: number) => {line: number; column: number},
): {line?: number; column?: number} {
  let node: unknown = doc.contents
  let located = node as Node | null
  for (const [index, part] of path.entries()) {
    const last = index === path.length - 1
    if (isMap(node)) {
      const pair = node.items.find((item) => (isScalar(item.key) ? item.key.value : item.key) === part)
      if (!pair) break
      if (last && key && pair.key && isScalar(pair.key)) {
        located = pair.key
        break
      }
      node = pair.value
    } else if (isSeq(node) && typeof part === 'number') {
      node = node.items[part]
    } else {
      break
    }
    if (!node || typeof node !== 'object' || !('range' in node)) break
    located = node as Node
  }
  const range = located?.range
  return range ? position(range[0]) : {}
}

/** Reads the scenario from a file, or from stdin when the file is `-`. */
export async function readScenarioSource(file: string, stdin: NodeJS.ReadableStream = process.stdin): Promise<ScenarioSource> {
  let text: string
  if (file === '-') {
    text = await readStreamCapped(stdin as AsyncIterable<Buffer>, {flag: 'FILE', source: 'stdin'})
  } else {
    try {
      text = await readFileCapped(file, {flag: 'FILE'})
    } catch (error) {
      if (error instanceof InputError) throw error
      throw new InputError(`Cannot read the scenario file ${file}: ${fileReadReason(error)}.`, {
        remedy: {kind: 'pass-scenario-file'},
      })
    }
  }
  return parseScenarioText(file, text)
}
