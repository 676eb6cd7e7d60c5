/**
 * Reading requests and writing answers for the emulator: bodies with a size limit, JSON and form
 * parsing, the service's JSON error object, HTML pages and redirects.
 */
import type {IncomingMessage, ServerResponse} from 'node:http'

import type {ServiceErrorBody, ValidationIssue} from '../api/schemas.js'
import {BodyTooLargeError, readCappedBody} from '../http/body.js'
import {MAX_JSON_NESTING, jsonNestingDepth} from '../http/json-nesting.js'

/** An answer with the service's error object; `code` is the HTTP status as three digits. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details: Record<string, string | string[]> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
  }

  body(): ServiceErrorBody {
    return {code: String(this.status), message: this.message, details: this.details}
  }
}

/** Validation issues as the service reports them: keyed `body.<path>`, several as a list. */
export function validationError(issues: readonly ValidationIssue[]): ApiError {
  const details: Record<string, string | string[]> = {}
  for (const {path, message} of issues) {
    const key = path === '(body)' ? 'body' : `body.${path}`
    const existing = details[key]
    details[key] = existing === undefined ? message : [...(Array.isArray(existing) ? existing : [existing]), message]
  }
  const fields = Object.keys(details).map((key) => key.replace(/^body\.?/, '') || 'body')
  return new ApiError(400, `The request is not valid: ${fields.join(', ')}.`, details)
}

function mediaType(request: IncomingMessage): string {
  return (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase()
}

export function isJsonMediaType(request: IncomingMessage): boolean {
  const type = mediaType(request)
  return type === 'application/json' || /^application\/[\w.+-]+\+json$/.test(type)
}

export function isFormMediaType(request: IncomingMessage): boolean {
  return mediaType(request) === 'application/x-www-form-urlencoded'
}

/** The body as text, or a 413 ApiError once it grows past `maxBytes` (read by http/body.ts). */
export async function readBody(request: IncomingMessage, maxBytes: number): Promise<string> {
  try {
    return (await readCappedBody(request, maxBytes)).toString('utf8')
  } catch (error) {
    throw error instanceof BodyTooLargeError ? tooLarge(maxBytes) : error
  }
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError(413, `The request body is larger than ${maxBytes} bytes.`, {body: `at most ${maxBytes} bytes are accepted`}, {connection: 'close'})
}

export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') throw new ApiError(400, 'The request body is empty; send a JSON object.', {body: 'is required (a JSON object)'})
  // Refused before parsing, so that no later walk (validation, storing, webhooks) meets it.
  if (jsonNestingDepth(text) > MAX_JSON_NESTING) {
    throw new ApiError(400, `The request body is nested deeper than ${MAX_JSON_NESTING} levels.`, {body: `must not nest deeper than ${MAX_JSON_NESTING} levels`})
  }
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new ApiError(400, 'The request body is not valid JSON.', {body: (error as Error).message})
  }
}

/** The body as JSON, or the service's 415 when it is sent as something else. */
export async function readJsonRequest(request: IncomingMessage, maxBodyBytes: number): Promise<unknown> {
  if (!isJsonMediaType(request)) {
    request.resume()
    throw new ApiError(415, 'The request body must be JSON: send Content-Type: application/json.', {
      'headers.content-type': `is ${JSON.stringify(request.headers['content-type'] ?? '')}; expected application/json`,
    })
  }
  return parseJsonBody(await readBody(request, maxBodyBytes))
}

export function parseFormBody(text: string): Record<string, string> {
  const form: Record<string, string> = {}
  for (const [key, value] of new URLSearchParams(text)) form[key] = value
  return form
}

/** Characters no search, id or cursor holds: C0 controls (NUL among them) and DEL. */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/

function invalidQuery(name: string, allowed: string): ApiError {
  return new ApiError(400, `The query parameter ${name} is not valid: it ${allowed}.`, {[`query.${name}`]: allowed})
}

/**
 * A text query parameter, cut to `maxLength` characters; undefined when absent or empty. A
 * control character is a 400 naming the parameter: the store's search would fail on a NUL.
 */
export function queryText(query: URLSearchParams, name: string, maxLength = 200): string | undefined {
  const value = query.get(name)?.slice(0, maxLength)
  if (value && CONTROL_CHARACTER.test(value)) throw invalidQuery(name, 'must not contain control characters')
  return value || undefined
}

/** A whole-number query parameter from `min` to `max`, written in digits; `fallback` when absent or empty, else a 400 naming it. */
export function queryInteger(query: URLSearchParams, name: string, {min, max, fallback}: {min: number; max: number; fallback: number}): number {
  const value = query.get(name)
  if (value === null || value === '') return fallback
  const number = /^\d{1,9}$/.test(value) ? Number(value) : Number.NaN
  if (!(number >= min && number <= max)) throw invalidQuery(name, `must be a whole number from ${min} to ${max}`)
  return number
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
  const payload = JSON.stringify(body)
  if (headers === undefined) {
    sendJsonText(response, status, payload)
    return
  }
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(payload)),
    'cache-control': 'no-store',
    ...headers,
  })
  response.end(payload)
}

/** JSON already written out: most answers (the request path under load), the headers as one flat list, written with the body by one end(). */
export function sendJsonText(response: ServerResponse, status: number, payload: string): void {
  response.writeHead(status, ['content-type', 'application/json; charset=utf-8', 'content-length', String(Buffer.byteLength(payload)), 'cache-control', 'no-store'])
  response.end(payload)
}

export function sendApiError(response: ServerResponse, error: ApiError): void {
  sendJson(response, error.status, error.body(), error.headers)
}

export function sendHtml(response: ServerResponse, status: number, html: string): void {
  response.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': String(Buffer.byteLength(html)),
    'cache-control': 'no-store',
    // The pages are plain forms: no scripts, no framing, nothing loaded from elsewhere.
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self' http: https:; frame-ancestors 'none'",
    'x-content-type-options': 'nosniff',
  })
  response.end(html)
}

export function redirect(response: ServerResponse, location: string): void {
  response.writeHead(303, {location, 'content-length': '0', 'cache-control': 'no-store'})
  response.end()
}

/**
 * `base` with query parameters appended, keeping its own query exactly as written and any
 * fragment after them. Values are encoded as by encodeURIComponent (the spec's `error`).
 */
export function appendQuery(base: string, params: Record<string, string>): string {
  const hashAt = base.indexOf('#')
  const beforeHash = hashAt === -1 ? base : base.slice(0, hashAt)
  const hash = hashAt === -1 ? '' : base.slice(hashAt)
  const query = Object.entries(params)
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`)
    .join('&')
  const separator = !beforeHash.includes('?') ? '?' : beforeHash.endsWith('?') || beforeHash.endsWith('&') ? '' : '&'
  return `${beforeHash}${separator}${query}${hash}`
}
