/**
 * `webhook replay`: the lines of a `webhook listen --save` file sent again, in file order, to
 * another address, with their recorded headers (minus hop-by-hop ones) and body. Each one is a
 * POST that may reach the receiver, so none is retried; a failure is a result, never a throw.
 * What the recorder redacted (keys, PANs, CVVs) is sent as recorded: redacted.
 */
import {readFile} from 'node:fs/promises'

import {InputError} from '../errors.js'
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


/** Every record of a save file, in file order; a line that is not one is an input error naming it. */
export function parseSaveFile(file: string, text: string): SavedWebhook[] {
  const saved: SavedWebhook[] = []
  const lines = text.split('\n')
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue
    const where = `${file}:${index + 1}`
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch (error) {
      throw new InputError(`${where}: not a JSON line (${(error as Error).message}).`, {remedy: {kind: 'pass-saved-webhooks'}})
    }
    const problem = recordProblem(value)
    if (problem) throw new InputError(`${where}: not a saved webhook: ${problem}.`, {remedy: {kind: 'pass-saved-webhooks'}})
    saved.push({line: index + 1, record: value as WebhookRecord})
  }
  return saved
}

export async function readSaveFile(file: string): Promise<SavedWebhook[]> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    throw new InputError(`Cannot read the save file ${file}: ${fileReadReason(error)}.`, {remedy: {kind: 'pass-saved-webhooks'}})
  }
  return parseSaveFile(file, text)
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

export function selectWebhooks(saved: readonly SavedWebhook[], selection: ReplaySelection): SavedWebhook[] {
  return saved.filter(({record}) => {
    if (selection.seq && !selection.seq.some(({from, to}) => record.seq >= from && record.seq <= to)) return false
    if (selection.transaction !== undefined && readWebhookEvent(record.body).transactionId !== selection.transaction) return false
    if (selection.since !== undefined && Date.parse(record.received_at) < selection.since) return false
    return true
  })
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

/** Sends each webhook in turn (the next one after the previous answer), telling `onDelivery` of each. */
export async function replayWebhooks(
  webhooks: readonly SavedWebhook[],
  url: string,
  options: {timeoutMs: number; onDelivery(delivery: ReplayedDelivery): void; signal?: AbortSignal},
): Promise<ReplayedDelivery[]> {
  const forwarder = new WebhookForwarder(url, options.timeoutMs)
  const deliveries: ReplayedDelivery[] = []
  try {
    for (const {line, record} of webhooks) {
      if (options.signal?.aborted) break
      const result: ForwardResult = await forwarder.forward(bodyOf(record), rawHeaders(record.headers))
      const event = readWebhookEvent(record.body)
      const delivery: ReplayedDelivery = {
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
      deliveries.push(delivery)
      options.onDelivery(delivery)
    }
  } finally {
    await forwarder.destroy()
  }
  return deliveries
}
