/**
 * `paytx api`: the request a user describes with flags (method, path, fields, headers, body),
 * checked before anything is sent, and the one place that keeps its path on the profile's host.
 */
import {HTTP_METHODS, type HttpMethod, joinUrl} from '../api/http-client.js'
import {InputError} from '../errors.js'
import {headerValueProblem} from '../http/header-value.js'
import {parseHttpUrl} from '../http/url.js'
import {secretValuesOf} from '../secrets/redact.js'

export interface ApiFlags {
  path: string
  method?: string
  'raw-field'?: string[]
  field?: string[]
  header?: string[]
  input?: string
  include?: boolean
  h2h?: boolean
  yes?: boolean
  json?: boolean
}

/**
 * Where `--input -`, `--input <file>` and `-F key=@file` read from; tests pass their own. Each
 * read is capped (MAX_INPUT_BYTES, 10 MiB) and names `flag` when the input is larger.
 */
export interface ApiInputSources {
  readStdin(flag: string): Promise<string>
  readFile(path: string, flag: string): Promise<string>
}

export interface ApiOptions {
  method: HttpMethod
  /** The service's API with the API key, or the card proxy (h2h) with the proxy key. */
  target: 'api' | 'h2h'
  /** The path as checked (starting with `/`, with any query), or an absolute URL still to be held to the profile's host. */
  endpoint: string
  /** Fields sent in the query string: those of a GET or HEAD, or of a request whose body is --input. */
  query: [string, string][]
  /** The fields as a JSON object, sent as the body. */
  body?: Record<string, unknown>
  /** --input: JSON text sent byte for byte. */
  rawBody?: string
  /** Extra request headers, names in lower case. */
  headers: Record<string, string>
  include: boolean
  yes: boolean
}

const METHODS_WITHOUT_BODY: readonly HttpMethod[] = ['GET', 'HEAD']
/** Headers paytx sets itself: overriding them could send the request elsewhere or break its framing. */
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection'])
const HEADER = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+):[ \t]*(.*)$/
const FIELD_KEY = /^([^[\]=]+)((?:\[[^[\]=]*\])*)$/

export async function toApiOptions(flags: ApiFlags, sources: ApiInputSources): Promise<ApiOptions> {
  if (flags.include && flags.json) {
    throw new InputError('--include and --json cannot be used together: --json prints exactly one JSON document.', {flag: '--include'})
  }
  const stdinReaders = [flags.input === '-' ? '--input -' : undefined, ...(flags.field ?? []).filter((f) => f.includes('=@-')).map((f) => `-F ${f}`)]
  if (stdinReaders.filter(Boolean).length > 1) {
    throw new InputError(`stdin can be read only once, but ${stdinReaders.filter(Boolean).join(' and ')} both read it.`, {flag: '--input'})
  }

  const fields = [
    ...(flags['raw-field'] ?? []).map((text) => ({text, flag: '-f/--raw-field', typed: false})),
    ...(flags.field ?? []).map((text) => ({text, flag: '-F/--field', typed: true})),
  ]
  const method = flags.method === undefined ? (fields.length > 0 || flags.input !== undefined ? 'POST' : 'GET') : checkMethod(flags.method)
  if (flags.input !== undefined && METHODS_WITHOUT_BODY.includes(method)) {
    throw new InputError(`--input sends a body, and a ${method} request has none.`, {flag: '--input', hint: 'Pass -X POST (or PUT, PATCH, DELETE).'})
  }

  const fieldsInQuery = METHODS_WITHOUT_BODY.includes(method) || flags.input !== undefined
  const query: [string, string][] = []
  const body: Record<string, unknown> = Object.create(null)
  for (const {text, flag, typed} of fields) {
    const separator = text.indexOf('=')
    const key = separator > 0 ? text.slice(0, separator) : ''
    const path = FIELD_KEY.exec(key)
    if (!path) {
      throw new InputError(`${flag} "${text}" must be key=value (nested keys as a[b]=value, lists as a[]=value).`, {flag: flag.split('/')[1]})
    }
    const raw = text.slice(separator + 1)
    const value = typed ? await typedValue(raw, `${flag} ${key}`, sources) : raw
    if (fieldsInQuery) query.push([key, value === null ? '' : String(value)])
    else setField(body, [path[1], ...[...path[2].matchAll(/\[([^\]]*)\]/g)].map((m) => m[1])], value, `${flag} ${key}`)
  }

  return {
    method,
    target: flags.h2h ? 'h2h' : 'api',
    endpoint: checkEndpoint(flags.path),
    query,
    body: fieldsInQuery || fields.length === 0 ? undefined : body,
    rawBody: flags.input === undefined ? undefined : await readJsonInput(flags.input, sources),
    headers: Object.fromEntries((flags.header ?? []).map(parseHeader)),
    include: Boolean(flags.include),
    yes: Boolean(flags.yes),
  }
}

/** What the request carries under card and key field names (body, --input, query fields), to scrub from the answer. */
export function requestSecrets(options: Pick<ApiOptions, 'body' | 'rawBody' | 'query'>): string[] {
  let input: unknown
  try {
    input = options.rawBody === undefined ? undefined : JSON.parse(options.rawBody)
  } catch {
    input = undefined
  }
  return [options.body, input, Object.fromEntries(options.query)].flatMap((value) => secretValuesOf(value))
}

function checkMethod(text: string): HttpMethod {
  const method = text.toUpperCase()
  if ((HTTP_METHODS as readonly string[]).includes(method)) return method as HttpMethod
  throw new InputError(`-X/--method must be one of ${HTTP_METHODS.join(', ')} (got "${text}").`, {flag: '--method'})
}

/** As `gh api -F`: true, false, null and integers become JSON values, `@file` the file's text (`@-`: stdin). */
async function typedValue(raw: string, described: string, sources: ApiInputSources): Promise<unknown> {
  if (raw === 'true') return true
  if (raw === 'false') return false
  if (raw === 'null') return null
  if (/^-?(0|[1-9]\d*)$/.test(raw) && Number.isSafeInteger(Number(raw))) return Number(raw)
  if (raw.startsWith('@')) return readSource(raw.slice(1), described, sources)
  return raw
}

async function readSource(source: string, described: string, sources: ApiInputSources): Promise<string> {
  const flag = described.split(' ')[0]
  if (source === '-') return sources.readStdin(flag)
  try {
    return await sources.readFile(source, flag)
  } catch (error) {
    if (error instanceof InputError) throw error
    const code = (error as NodeJS.ErrnoException).code
    throw new InputError(`${described}: cannot read ${source}${code === 'ENOENT' ? ': no such file' : `: ${(error as Error).message}`}.`, {
      flag: described.split(' ')[0],
    })
  }
}

async function readJsonInput(source: string, sources: ApiInputSources): Promise<string> {
  const text = await readSource(source, '--input', sources)
  const where = source === '-' ? 'stdin' : source
  if (text.trim() === '') throw new InputError(`--input: ${where} is empty; it must hold the JSON body to send.`, {flag: '--input'})
  try {
    JSON.parse(text)
  } catch (error) {
    throw new InputError(`--input: ${where} is not valid JSON (${(error as Error).message}).`, {flag: '--input'})
  }
  return text
}

/**
 * Places a field at its path: `a[b]=1` is {a: {b: 1}}, `a[]=1` appends to a list, and `a[][b]=1`
 * fills the list's last object until a key repeats, which starts the next one (as gh does).
 */
function setField(root: Record<string, unknown>, path: string[], value: unknown, described: string): void {
  let parent = root
  let key = path[0]
  for (let i = 1; i < path.length; i++) {
    const wantsList = path[i] === ''
    const existing = parent[key]
    const child = existing ?? (wantsList ? [] : Object.create(null))
    if (wantsList !== Array.isArray(child) || (!wantsList && !isObject(child))) {
      throw new InputError(`${described}: "${key}" is already given as ${describeValue(existing)}; it cannot also hold ${wantsList ? 'a list' : 'fields'}.`, {
        flag: described.split(' ')[0],
      })
    }
    parent[key] = child
    if (!wantsList) {
      parent = child as Record<string, unknown>
      key = path[i]
      continue
    }
    const list = child as unknown[]
    if (i === path.length - 1) {
      list.push(value)
      return
    }
    const next = path[i + 1]
    if (next === '') throw new InputError(`${described}: lists of lists (a[][]) are not supported; use --input for such a body.`, {flag: '--input'})
    const last = list.at(-1)
    const item = isObject(last) && !Object.hasOwn(last, next) ? last : Object.create(null)
    if (item !== last) list.push(item)
    parent = item
    key = next
    i++
  }
  if (Object.hasOwn(parent, key)) {
    throw new InputError(`${described}: "${key}" is given twice.`, {flag: described.split(' ')[0]})
  }
  parent[key] = value
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

function describeValue(value: unknown): string {
  if (Array.isArray(value)) return 'a list'
  if (isObject(value)) return 'fields'
  return `the value ${JSON.stringify(value)}`
}

function parseHeader(text: string): [string, string] {
  const match = HEADER.exec(text)
  if (!match) throw new InputError(`-H/--header "${text}" must be "Name: value".`, {flag: '--header'})
  const name = match[1].toLowerCase()
  if (RESERVED_HEADERS.has(name)) throw new InputError(`-H/--header: paytx sets ${match[1]} itself; it cannot be given.`, {flag: '--header'})
  const problem = headerValueProblem(match[2])
  if (problem) throw new InputError(`-H/--header ${match[1]}: the value ${problem}.`, {flag: '--header'})
  return [name, match[2]]
}

/**
 * The path of a request as typed: a path on the profile's service (`/v1/...`, or relative to the
 * base URL), or an absolute URL on the same host. Anything that could lead the request, and the
 * profile's key with it, to another host or above the base path is refused.
 */
export function checkEndpoint(path: string): string {
  const refuse = (problem: string) =>
    new InputError(`The path "${path}" ${problem}.`, {
      flag: 'PATH',
      hint: 'Give a path on the profile’s service, e.g. /v1/transaction/<id> or transaction/<id>.',
    })
  if (path.trim() === '') throw refuse('is empty')
  if (/[\s\\\u0000-\u001f\u007f]/.test(path)) throw refuse('contains spaces, control characters or backslashes')
  if (path.includes('#')) throw refuse('contains a fragment (#)')
  if (path.startsWith('//')) throw refuse('starts with //, which names another host')
  const absolute = parseHttpUrl(path) !== undefined
  if (!absolute && /^[A-Za-z][A-Za-z0-9+.-]*:/.test(path)) throw refuse('is neither a path nor an http(s) URL')
  const pathPart = (absolute ? path.replace(/^[^:]+:\/\/[^/?]*/, '') : path).split('?')[0]
  if (pathPart.split('/').some((segment) => ['.', '..'].includes(decodeSegment(segment)))) throw refuse('contains a . or .. segment')
  return absolute || path.startsWith('/') ? path : `/${path}`
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/**
 * The URL of a checked endpoint. The service's API lives under `/v1`, and a profile's base URL
 * may name it or not: for the API, `transaction/<id>` and `/v1/transaction/<id>` are the same
 * address on either (never `/v1/v1`). On the card proxy a path is taken as it is. The result must
 * stay on the base's origin and under its path (less `/v1`).
 */
export function endpointUrl(baseUrl: string, endpoint: string, options: {target: ApiOptions['target']; query?: [string, string][]}): string {
  const base = new URL(baseUrl)
  const root = base.pathname.replace(/\/+$/, '').replace(/\/v1$/, '')
  const apiRoot = options.target === 'api' ? `${base.origin}${root}/v1` : baseUrl
  const url = parseHttpUrl(endpoint) ?? new URL(joinUrl(apiRoot, endpoint))
  if (url.origin !== base.origin) {
    throw new InputError(`The URL ${endpoint} is on ${url.origin}, not on the profile’s host ${base.origin}; paytx api sends the profile’s key to that host only.`, {
      flag: 'PATH',
      hint: 'Give a path, e.g. /v1/transaction/<id>, or pick the profile of that host with --profile.',
    })
  }
  if (root !== '' && url.pathname !== root && !url.pathname.startsWith(`${root}/`)) {
    throw new InputError(`The URL ${endpoint} is outside the profile’s base path ${root}.`, {flag: 'PATH'})
  }
  for (const [key, value] of options.query ?? []) url.searchParams.append(key, value)
  return url.toString()
}
