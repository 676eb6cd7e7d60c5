/**
 * An answer of the service as paytx reads it: the body read up to a size limit, JSON parsed
 * unless nested too deep, and the pieces an error message is made of (the status line, the
 * headline of an HTML page, the service's details, a snippet of text).
 */
import type {IncomingMessage} from 'node:http'

import {MAX_JSON_NESTING, jsonNestingDepth} from '../http/json-nesting.js'

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  301: 'Moved Permanently',
  302: 'Found',
  303: 'See Other',
  307: 'Temporary Redirect',
  308: 'Permanent Redirect',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
}

export function statusLine(status: number): string {
  return STATUS_TEXT[status] ? `${status} ${STATUS_TEXT[status]}` : String(status)
}

/** A body that is not JSON, for the --verbose log: long pages are shown up to a bound. */
export function verboseText(text: string): string {
  const shown = text.length > VERBOSE_TEXT_CHARS ? `${text.slice(0, VERBOSE_TEXT_CHARS)}\n  … (${text.length - VERBOSE_TEXT_CHARS} more characters)` : text
  return shown.replace(/\n/g, '\n  ')
}

const VERBOSE_TEXT_CHARS = 64 * 1024

export function bodySnippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat
}

/** An attempt that got an answer, read whole (or up to the size limit). */
export interface Answer {
  kind: 'answered'
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  /** The body as JSON; undefined when empty or not JSON. */
  body: unknown
  isJson: boolean
  /** The body is JSON nested deeper than any answer of the service: it is not read as JSON. */
  tooDeep: boolean
  /** The body passed the size limit; `text` holds its beginning only. */
  overLimit: boolean
}

/** An attempt that got no answer, or only the beginning of one. */
export interface Failure {
  kind: 'failed'
  error: unknown
  code?: string
  timedOut: boolean
  beforeSending: boolean
  /** The status line arrived, then the body stopped after this many bytes. */
  cutOff?: {status: number; bytes: number}
}

export function readAnswer(status: number, headers: Answer['headers'], text: string, overLimit: boolean): Answer {
  const answer = {kind: 'answered' as const, status, headers, text, overLimit, tooDeep: false}
  if (text.length === 0) return {...answer, body: undefined, isJson: true}
  // Checked before parsing, so that no later walk (redaction, printing) meets a body too deep for it.
  if (jsonNestingDepth(text) > MAX_JSON_NESTING) return {...answer, body: undefined, isJson: false, tooDeep: true}
  try {
    return {...answer, body: JSON.parse(text), isJson: true}
  } catch {
    return {...answer, body: undefined, isJson: false}
  }
}

/** The body as text, read until `limitBytes`; past it the rest is dropped and the connection closed. */
export async function readCappedText(body: IncomingMessage, limitBytes: number, received: {bytes: number}): Promise<{text: string; overLimit: boolean}> {
  const chunks: Buffer[] = []
  for await (const chunk of body as AsyncIterable<Buffer>) {
    received.bytes += chunk.length
    if (received.bytes > limitBytes) {
      body.destroy()
      return {text: Buffer.concat(chunks).toString('utf8'), overLimit: true}
    }
    chunks.push(chunk)
  }
  return {text: Buffer.concat(chunks).toString('utf8'), overLimit: false}
}

export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

export function isHtml(headers: Answer['headers'], text: string): boolean {
  return /html/i.test(headerValue(headers['content-type']) ?? '') || /^\s*<(!doctype html|html)/i.test(text)
}

/** An HTML page (a proxy's 502) as one line: its title, else its first heading, else its first text. */
export function htmlHeadline(html: string): string {
  const inner = (tag: string) => new RegExp(`<${tag}[^>]*>([\\s\\S]{0,2000}?)</${tag}>`, 'i').exec(html)?.[1]
  const text = (inner('title') ?? inner('h1') ?? html).replace(/<[^>]*>/g, ' ')
  return bodySnippet(text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&'))
}

export function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MB` : `${bytes} bytes`
}

/**
 * The service's `details` as `path: message` entries, however it nests them: objects add their
 * keys to the path, an object with a `message` is that message, lists of strings stay lists.
 */
export function flattenDetails(details: unknown): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  const add = (path: string, message: string) => {
    const existing = out[path]
    out[path] = existing === undefined ? message : [...(Array.isArray(existing) ? existing : [existing]), message]
  }
  const pending: {path: string; value: unknown}[] = [{path: '', value: details}]
  for (let next = pending.shift(); next; next = pending.shift()) {
    const {path, value} = next
    const at = (key: string | number) => (path === '' ? String(key) : `${path}.${key}`)
    if (value === null || value === undefined) continue
    if (typeof value !== 'object') {
      add(path || 'details', String(value))
    } else if (Array.isArray(value)) {
      if (value.every((item) => typeof item === 'string')) for (const item of value) add(path || 'details', item)
      else value.forEach((item, index) => pending.push({path: itemPath(item) ?? at(index), value: itemMessage(item) ?? item}))
    } else if (typeof (value as {message?: unknown}).message === 'string') {
      add(itemPath(value) ?? (path || 'details'), (value as {message: string}).message)
    } else {
      for (const [key, item] of Object.entries(value)) pending.push({path: at(key), value: item})
    }
  }
  return out
}

/** The field an entry of a details list names, as services write it (`field`, `path`, `name`). */
function itemPath(item: unknown): string | undefined {
  if (!item || typeof item !== 'object') return undefined
  const {field, path, name} = item as Record<string, unknown>
  const named = [field, path, name].find((value) => typeof value === 'string' || Array.isArray(value))
  return Array.isArray(named) ? named.map(String).join('.') : (named as string | undefined)
}

function itemMessage(item: unknown): string | undefined {
  const message = item && typeof item === 'object' ? (item as {message?: unknown}).message : undefined
  return typeof message === 'string' ? message : undefined
}
