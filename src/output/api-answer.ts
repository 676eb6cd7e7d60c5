/**
 * `paytx api`'s answer as shown: secrets scrubbed from body and headers, then the status line and
 * headers (--include) and the body, pretty JSON on a terminal and one compact line in a pipe.
 * The body is the service's, byte for byte (what `api` is for); a header line is paytx's
 * rendering, so its value is made visible (a header may carry C1 controls as Latin-1 bytes).
 */
import {STATUS_CODES} from 'node:http'

import type {Answer} from '../api/http-client.js'
import {redactedJson, redactHeaders, scrubSecrets} from '../secrets/redact.js'
import {visibleText} from '../terminal/visible-text.js'

export interface ShownAnswer {
  status: number
  headers: [string, string][]
  /** The body as JSON, scrubbed; undefined when it is empty or not JSON. */
  json?: unknown
  /** The body as text when it is not JSON, scrubbed. */
  text: string
}

/** Keys and card numbers out of everything the answer shows: by name, by shape, and the values this command knows. */
export function scrubAnswer(answer: Answer, secrets: readonly (string | undefined)[], secretHeaderNames: readonly string[]): ShownAnswer {
  const headers: [string, string][] = []
  for (const [name, value] of Object.entries(answer.headers)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.push([name, one])
  }
  const shownHeaders = headers.map(([name, value]): [string, string] => [name, scrubSecrets(redactHeaders({[name]: value}, secretHeaderNames)[name], secrets)])
  const hasJson = answer.isJson && answer.text.length > 0
  return {
    status: answer.status,
    headers: shownHeaders,
    ...(hasJson ? {json: JSON.parse(scrubSecrets(redactedJson(answer.body), secrets))} : {}),
    text: hasJson ? '' : scrubSecrets(answer.text, secrets),
  }
}

export function renderApiAnswer(answer: ShownAnswer, options: {include: boolean; pretty: boolean}): string {
  const lines: string[] = []
  if (options.include) {
    lines.push(`HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}`.trimEnd(), ...answer.headers.map(([name, value]) => `${name}: ${visibleText(value)}`), '')
  }
  if (answer.json !== undefined) lines.push(options.pretty ? JSON.stringify(answer.json, null, 2) : JSON.stringify(answer.json))
  else if (answer.text !== '') lines.push(answer.text.replace(/\n$/, ''))
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`
}
