/**
 * `webhook replay`: the lines of a `webhook listen --save` file sent again, in file order, to
 * another address, with their recorded headers (minus hop-by-hop ones) and body. Each one is a
 * POST that may reach the receiver, so none is retried; a failure is a result, never a throw.
 * What the recorder redacted (keys, PANs, CVVs) is sent as recorded: redacted.
 */
import {InputError, InterruptedError} from '../errors.js'
import {readBytesCapped, readLines, untilAborted} from '../input/bounded-read.js'
import {fileReadReason} from '../input/file-read-error.js'
import {type OpenedInput, checkInputPath, openInputFile} from '../input/input-file.js'
import {readWebhookEvent} from './event.js'
import {type ForwardResult, WebhookForwarder} from './forwarder.js'
import type {WebhookRecord} from './recorder.js'

/** A recorded webhook with the line of the file it came from. */
export interface SavedWebhook {
  line: number
  record: WebhookRecord
}

export interface ReplaySelection {
  /** Inclusive ranges of `seq` (`3,7-9`). */
  seq?: {from: number; to: number}[]
  transaction?: string
  /** Only webhooks received at or after this time (ms since the epoch). */
  since?: number
}

export interface ReplayedDelivery {
  event: 'delivery'
  seq: number
  line: number
  received_at: string
  type: string
  transaction_id: string | null
  /** The status the recorded body carried, if any. */
  status: string | null
  url: string
  /** The receiver's answer, when it answered. */
  http_status?: number
  error?: string
  ok: boolean
  duration_ms: number
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return Boolean(value) && typeof value === 'object' && !Array.isArray(value) && Object.values(value as object).every((item) => typeof item === 'string')
}

/** A header name as HTTP allows it: a token (RFC 9110 5.1). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
/** The characters the replay cannot send in a header value, once the redaction's marks are made ASCII (see rawHeaders). */
const NOT_IN_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/

/** A name or value as a message quotes it: JSON-escaped, cut after 40 characters. */
function quoted(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text)
}

function headerField(name: string): string {
  return `"headers.${name.length > 40 ? `${name.slice(0, 40)}…` : name}"`
}

/**
 * What makes a recorded header unsendable: the listener records headers as HTTP delivered them,
 * so a line break or a name that is no token means the file was changed since; it is the file's
 * fault (exit 2, before anything is sent), never a failed delivery.
 */
function headerProblem(headers: Record<string, string>): string | undefined {
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) return `"headers" has ${quoted(name)}, which is not an HTTP header name`
    const sent = asSentInHeader(value)
    const bad = NOT_IN_HEADER_VALUE.exec(sent)?.[0]
    if (bad === '\r' || bad === '\n') return `${headerField(name)} holds a line break (CR or LF), which no HTTP header can carry`
    if (bad !== undefined) return `${headerField(name)} holds ${quoted(bad)} (U+${bad.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}), which an HTTP header cannot carry`
  }
  return undefined
}

/** What is wrong with one parsed line, or undefined when it is a webhook record. */
function recordProblem(value: unknown): string | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return 'is not a JSON object'
  const record = value as Partial<WebhookRecord>
  if (typeof record.seq !== 'number' || !Number.isInteger(record.seq)) return '"seq" must be a whole number'
  if (typeof record.received_at !== 'string' || Number.isNaN(Date.parse(record.received_at))) return '"received_at" must be a time (ISO 8601)'
  if (!isStringRecord(record.headers)) return '"headers" must be an object of strings'
  const header = headerProblem(record.headers)
  if (header) return header
  if (record.body === undefined && typeof record.raw !== 'string') return 'has neither "body" nor "raw"'
  return undefined
}


/**
 * One saved line is one webhook: the listener's largest body (`--max-body`, at most 32 MiB) with
 * every byte escaped stays under this.
 */
export const MAX_SAVED_LINE_BYTES = 256 * 1024 * 1024

/** How every line the listener writes begins (`JSON.stringify` of a WebhookRecord). */
const RECORD_START = '{"seq":'

/**
 * A line that begins as the listener's records do and does not parse: one it was writing when it
 * was killed (the next listener on the file starts on a new line). Never acknowledged, as the
 * listener answers once the whole line is written; skipped rather than hiding the lines after it.
 */
function isCutShortRecord(line: string): boolean {
  if (!line.startsWith(RECORD_START)) return false
  try {
    JSON.parse(line)
    return false
  } catch {
    return true
  }
}

/** One line of a save file as a record; a line that is not one is an input error naming it. */
export function parseSavedLine(file: string, number: number, line: string): SavedWebhook {
  const where = `${file}:${number}`
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch (error) {
    throw new InputError(`${where}: not a JSON line (${(error as Error).message}).`, {remedy: {kind: 'pass-saved-webhooks'}})
  }
  const problem = recordProblem(value)
  if (problem) throw new InputError(`${where}: not a saved webhook: ${problem}.`, {remedy: {kind: 'pass-saved-webhooks'}})
  return {line: number, record: value as WebhookRecord}
}

/** A save file read from a pipe (`-`, a FIFO, `<(command)`) is held whole, to be read twice: up to this. */
export const MAX_STREAMED_SAVE_BYTES = 64 * 1024 * 1024

/**
 * Where a save file's lines come from. A regular file is opened again for each pass and read a
 * line at a time; a stream (stdin as `-`, a FIFO) cannot be read twice, so it is read whole once,
 * up to MAX_STREAMED_SAVE_BYTES, and each pass reads what was kept.
 */
export interface SaveFile {
  /** The file as the user named it (`-` for stdin), as messages name it. */
  name: string
  /** Ctrl-C or SIGTERM: a read that waits (a FIFO's writer) ends with the signal's reason. */
  signal?: AbortSignal
  /** The whole text of a streamed file; undefined for a regular file, read from disk each time. */
  held?: Buffer
}

function cannotRead(file: string, error: unknown): InputError {
  return new InputError(`Cannot read the save file ${file}: ${fileReadReason(error)}.`, {remedy: {kind: 'pass-saved-webhooks'}})
}

/**
 * The save file `name` ready to be read: a folder, a device or a socket is refused (exit 2)
 * without being read; a FIFO and `-` (the given stdin) are read whole now, until their writer
 * closes or `signal` aborts.
 */
export async function openSaveFile(name: string, options: {stdin: AsyncIterable<Buffer | string>; signal?: AbortSignal}): Promise<SaveFile> {
  const {signal} = options
  if (name === '-') return {name, signal, held: await readWhole(options.stdin, 'stdin', signal)}
  let kind: 'file' | 'fifo'
  try {
    kind = checkInputPath(name, {fifo: true})
  } catch (error) {
    throw cannotRead(name, error)
  }
  if (kind === 'file') return {name, signal}
  const opened = await openInputFile(name, {fifo: true}).catch((error: unknown) => {
    throw cannotRead(name, error)
  })
  try {
    return {name, signal, held: await readWhole(opened.chunks, name, signal)}
  } finally {
    opened.close()
  }
}

async function readWhole(stream: AsyncIterable<Buffer | string>, source: string, signal: AbortSignal | undefined): Promise<Buffer> {
  try {
    return await readBytesCapped(untilAborted(stream, signal), {flag: 'FILE', source, maxBytes: MAX_STREAMED_SAVE_BYTES})
  } catch (error) {
    if (!signal?.aborted) throw error
    throw new InterruptedError(`Interrupted while reading the save file from ${source}; nothing was sent.`)
  }
}

async function* chunksOf(file: SaveFile): AsyncGenerator<Buffer> {
  if (file.held) return yield file.held
  let opened: OpenedInput
  try {
    // A FIFO now is not the regular file that was checked: refused rather than waited on.
    opened = await openInputFile(file.name, {fifo: false})
  } catch (error) {
    throw cannotRead(file.name, error)
  }
  try {
    yield* untilAborted(opened.chunks, file.signal) as AsyncGenerator<Buffer>
  } finally {
    opened.close()
  }
}

/**
 * The records of a save file in file order, read one line at a time (a million webhooks take no
 * more memory than one), up to line `lastLine`: a listener may still be appending to the file,
 * and what was not checked before sending began is not sent.
 */
export async function* readSaveFile(file: SaveFile, lastLine = Number.POSITIVE_INFINITY, onCutShort?: (line: number) => void): AsyncGenerator<SavedWebhook> {
  for await (const {text, number} of readLines(chunksOf(file), {flag: 'FILE', source: file.name, maxBytes: MAX_SAVED_LINE_BYTES})) {
    if (number > lastLine) break
    if (text.trim() === '') continue
    if (isCutShortRecord(text)) onCutShort?.(number)
    else yield parseSavedLine(file.name, number, text)
  }
}

/** What a first pass over a save file found: every line checked, before anything is sent. */
export interface SaveFileSurvey {
  /** The last line checked: sending stops there. */
  lastLine: number
  /** Webhooks in the file. */
  saved: number
  /** Webhooks the selection keeps. */
  selected: number
  /** The seq of selected webhooks that carry redacted values: the first few, and how many in all. */
  redacted: {first: number[]; count: number}
  /** The numbers of the lines cut short by a kill (skipped): the first few, and how many in all. */
  cutShort: {first: number[]; count: number}
}

/** Shown seq numbers of redacted webhooks; the count says how many more there are. */
const REDACTED_SEQS_SHOWN = 20
/** Shown numbers of lines cut short, likewise. */
const CUT_SHORT_LINES_SHOWN = 20

/** Checks every line of the file and counts what the selection keeps, holding one line at a time. */
export async function surveySaveFile(file: SaveFile, selection: ReplaySelection): Promise<SaveFileSurvey> {
  const survey: SaveFileSurvey = {lastLine: 0, saved: 0, selected: 0, redacted: {first: [], count: 0}, cutShort: {first: [], count: 0}}
  const noteCutShort = (line: number) => {
    survey.cutShort.count += 1
    if (survey.cutShort.first.length < CUT_SHORT_LINES_SHOWN) survey.cutShort.first.push(line)
  }
  // A line cut short is not a webhook: `lastLine` stays at the last one, so that a line a running
  // listener is still writing (seen in part here) is not sent by the second pass either.
  for await (const saved of readSaveFile(file, Number.POSITIVE_INFINITY, noteCutShort)) {
    survey.lastLine = saved.line
    survey.saved += 1
    if (!isSelected(saved, selection)) continue
    survey.selected += 1
    if (carriesRedactedValues(saved.record)) {
      survey.redacted.count += 1
      if (survey.redacted.first.length < REDACTED_SEQS_SHOWN) survey.redacted.first.push(saved.record.seq)
    }
  }
  return survey
}

/** `3,7-9` into inclusive ranges, or a sentence saying what is wrong. */
export function parseSeqList(text: string): {from: number; to: number}[] | string {
  const ranges: {from: number; to: number}[] = []
  for (const part of text.split(',')) {
    const match = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(part)
    if (!match) return `"${part.trim()}" is not a number or a range such as 7-9`
    const from = Number(match[1])
    const to = match[2] === undefined ? from : Number(match[2])
    if (to < from) return `the range ${from}-${to} runs backwards`
    ranges.push({from, to})
  }
  return ranges
}

export function isSelected({record}: SavedWebhook, selection: ReplaySelection): boolean {
  if (selection.seq && !selection.seq.some(({from, to}) => record.seq >= from && record.seq <= to)) return false
  if (selection.transaction !== undefined && readWebhookEvent(record.body).transactionId !== selection.transaction) return false
  if (selection.since !== undefined && Date.parse(record.received_at) < selection.since) return false
  return true
}

/** The marks the redaction leaves (`•••• 4242`, `sk_l…XcR7`, `***`), found anywhere in the record's headers or body. */
export function carriesRedactedValues(record: WebhookRecord): boolean {
  const text = JSON.stringify([record.headers, record.body ?? record.raw])
  return /••••|\*\*\*|[^\s"]{1,4}…[^\s"]{1,4}/.test(text)
}

function bodyOf(record: WebhookRecord): Buffer {
  return Buffer.from(record.body === undefined ? (record.raw ?? '') : JSON.stringify(record.body))
}

/**
 * The recorded headers as a raw list. A header value carries Latin-1 only, and the only other
 * characters a recorded one can hold are the redaction's marks: they are sent as `...` and `*`.
 */
function rawHeaders(headers: Record<string, string>): string[] {
  return Object.entries(headers).flatMap(([name, value]) => [name, asSentInHeader(value)])
}

function asSentInHeader(value: string): string {
  return value.replaceAll('…', '...').replaceAll('•', '*')
}

export interface ReplayCounts {
  sent: number
  failed: number
}

/**
 * Sends each selected webhook of the file in turn (the next one after the previous answer), up to
 * the survey's last line, telling `onDelivery` of each; only the counts are kept. The file's
 * signal stops it between deliveries, or while a line is read: what was sent is counted.
 */
export async function replayWebhooks(
  file: SaveFile,
  selection: ReplaySelection,
  url: string,
  options: {lastLine: number; timeoutMs: number; onDelivery(delivery: ReplayedDelivery): void},
): Promise<ReplayCounts> {
  const forwarder = new WebhookForwarder(url, options.timeoutMs)
  const counts: ReplayCounts = {sent: 0, failed: 0}
  try {
    for await (const saved of readSaveFile(file, options.lastLine)) {
      if (file.signal?.aborted) break
      if (!isSelected(saved, selection)) continue
      const delivery = await deliver(forwarder, saved)
      counts.sent += 1
      if (!delivery.ok) counts.failed += 1
      options.onDelivery(delivery)
    }
  } catch (error) {
    if (!file.signal?.aborted) throw error
  } finally {
    await forwarder.destroy()
  }
  return counts
}

async function deliver(forwarder: WebhookForwarder, {line, record}: SavedWebhook): Promise<ReplayedDelivery> {
  const result: ForwardResult = await forwarder.forward(bodyOf(record), rawHeaders(record.headers))
  const event = readWebhookEvent(record.body)
  return {
    event: 'delivery',
    seq: record.seq,
    line,
    received_at: record.received_at,
    type: event.type,
    transaction_id: event.transactionId ?? null,
    status: event.status ?? null,
    url: result.url,
    ...(result.status === undefined ? {} : {http_status: result.status}),
    ...(result.error === undefined ? {} : {error: result.error}),
    ok: result.status !== undefined && result.status >= 200 && result.status < 300,
    duration_ms: result.duration_ms,
  }
}
