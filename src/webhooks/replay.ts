/**
 * `webhook replay`: the lines of a `webhook listen --save` file sent again, in file order, to
 * another address, with their recorded headers (minus hop-by-hop ones) and body. Each one is a
 * POST that may reach the receiver, so none is retried; a failure is a result, never a throw.
 * What the recorder redacted (keys, PANs, CVVs) is sent as recorded: redacted.
 */
import {type FileHandle, open} from 'node:fs/promises'

import {InputError} from '../errors.js'
import {readLines} from '../input/bounded-read.js'
import {fileReadReason} from '../input/file-read-error.js'
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

/** What is wrong with one parsed line, or undefined when it is a webhook record. */
function recordProblem(value: unknown): string | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return 'is not a JSON object'
  const record = value as Partial<WebhookRecord>
  if (typeof record.seq !== 'number' || !Number.isInteger(record.seq)) return '"seq" must be a whole number'
  if (typeof record.received_at !== 'string' || Number.isNaN(Date.parse(record.received_at))) return '"received_at" must be a time (ISO 8601)'
  if (!isStringRecord(record.headers)) return '"headers" must be an object of strings'
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

/**
 * The records of a save file in file order, read one line at a time (a million webhooks take no
 * more memory than one), up to line `lastLine`: a listener may still be appending to the file,
 * and what was not checked before sending began is not sent.
 */
export async function* readSaveFile(file: string, lastLine = Number.POSITIVE_INFINITY, onCutShort?: (line: number) => void): AsyncGenerator<SavedWebhook> {
  let handle: FileHandle
  try {
    handle = await open(file, 'r')
    if ((await handle.stat()).isDirectory()) {
      await handle.close()
      throw Object.assign(new Error('EISDIR'), {code: 'EISDIR'})
    }
  } catch (error) {
    throw new InputError(`Cannot read the save file ${file}: ${fileReadReason(error)}.`, {remedy: {kind: 'pass-saved-webhooks'}})
  }
  try {
    for await (const {text, number} of readLines(handle.createReadStream({autoClose: false}), {flag: 'FILE', source: file, maxBytes: MAX_SAVED_LINE_BYTES})) {
      if (number > lastLine) break
      if (text.trim() === '') continue
      if (isCutShortRecord(text)) onCutShort?.(number)
      else yield parseSavedLine(file, number, text)
    }
  } finally {
    await handle.close()
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
export async function surveySaveFile(file: string, selection: ReplaySelection): Promise<SaveFileSurvey> {
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
  return Object.entries(headers).flatMap(([name, value]) => [name, value.replaceAll('…', '...').replaceAll('•', '*')])
}

export interface ReplayCounts {
  sent: number
  failed: number
}

/**
 * Sends each selected webhook of the file in turn (the next one after the previous answer), up to
 * the survey's last line, telling `onDelivery` of each; only the counts are kept.
 */
export async function replayWebhooks(
  file: string,
  selection: ReplaySelection,
  url: string,
  options: {lastLine: number; timeoutMs: number; onDelivery(delivery: ReplayedDelivery): void; signal?: AbortSignal},
): Promise<ReplayCounts> {
  const forwarder = new WebhookForwarder(url, options.timeoutMs)
  const counts: ReplayCounts = {sent: 0, failed: 0}
  try {
    for await (const saved of readSaveFile(file, options.lastLine)) {
      if (options.signal?.aborted) break
      if (!isSelected(saved, selection)) continue
      const delivery = await deliver(forwarder, saved)
      counts.sent += 1
      if (!delivery.ok) counts.failed += 1
      options.onDelivery(delivery)
    }
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
