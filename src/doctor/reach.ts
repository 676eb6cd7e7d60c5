/**
 * Whether an address of the profile can be reached, step by step so that the failing step is
 * named: DNS, TCP, TLS (the certificate's issuer and expiry), or, when a proxy variable applies,
 * the proxy; then one GET (never a write) for the answer's time and `Date`, from which the clock
 * skew is read.
 */
import {lookup} from 'node:dns/promises'
import {type Socket, isIP, connect as tcpConnect} from 'node:net'
import {type PeerCertificate, type TLSSocket, connect as tlsConnect} from 'node:tls'

import {proxyFor, proxySettingsFromEnv} from '../http/proxy.js'
import {redactUrl} from '../secrets/redact-url.js'

/** A certificate closer than this to its expiry is worth a warning. */
const EXPIRY_WARNING_MS = 14 * 24 * 3600 * 1000

export interface ReachSteps {
  /** The proxy the request goes through (redacted), when one applies. */
  proxy?: string
  dns?: {address: string; ms: number}
  tcp?: {ms: number}
  tls?: {issuer: string; validTo: string; ms: number; expiresSoon: boolean}
  /** The step that failed, and why. */
  failed?: {step: 'dns' | 'tcp' | 'tls'; reason: string}
}

function elapsed(since: number): number {
  return Math.round(performance.now() - since)
}

function issuerName(cert: PeerCertificate): string {
  const issuer = cert.issuer as unknown as Record<string, string | string[] | undefined>
  const pick = (key: string) => (Array.isArray(issuer?.[key]) ? (issuer[key] as string[])[0] : (issuer?.[key] as string | undefined))
  return [pick('O'), pick('CN')].filter(Boolean).join(', ') || 'unknown issuer'
}

/** The time left before `until` (a performance.now() time), at least 1 ms. */
export function timeLeft(until: number): number {
  return Math.max(1, Math.round(until - performance.now()))
}

function timedOut(limitMs: number): Error {
  return Object.assign(new Error(`no answer within doctor's ${limitMs} ms for the check`), {code: 'ETIMEDOUT'})
}

function withTimeout<T extends Socket>(socket: T, until: number, limitMs: number, readyEvent: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => socket.destroy(timedOut(limitMs)), timeLeft(until))
    socket.once(readyEvent, () => {
      clearTimeout(timer)
      resolve(socket)
    })
    socket.once('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
  })
}

function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code
  const message = (error as Error).message
  return code && !message.includes(code) ? `${message} (${code})` : message
}

/** A DNS answer, or a timeout once the check's time is up (a resolver can wait far longer). */
function lookupBefore(host: string, until: number, limitMs: number): Promise<{address: string}> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut(limitMs)), timeLeft(until))
  })
  return Promise.race([lookup(host), late]).finally(() => clearTimeout(timer))
}

/**
 * DNS, TCP and TLS to the URL's host, each timed, all within `timeoutMs` from now (the check's
 * whole time: `until`, when the caller started counting earlier); a proxy in the way is named instead.
 */
export async function reachSteps(url: URL, timeoutMs: number, env: NodeJS.ProcessEnv = process.env, until: number = performance.now() + timeoutMs): Promise<ReachSteps> {
  const proxy = proxyFor(url, proxySettingsFromEnv(env))
  // Through a proxy this machine neither resolves nor connects to the host: the GET shows whether the proxy carries it.
  if (proxy !== undefined) return {proxy: redactUrl(proxy)}
  const steps: ReachSteps = {}
  const host = url.hostname.replace(/^\[|\]$/g, '')
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80)
  let started = performance.now()
  try {
    const {address} = await lookupBefore(host, until, timeoutMs)
    steps.dns = {address, ms: elapsed(started)}
  } catch (error) {
    return {...steps, failed: {step: 'dns', reason: reason(error)}}
  }
  started = performance.now()
  let socket: Socket
  try {
    socket = await withTimeout(tcpConnect({host: steps.dns.address, port}), until, timeoutMs, 'connect')
    steps.tcp = {ms: elapsed(started)}
  } catch (error) {
    return {...steps, failed: {step: 'tcp', reason: reason(error)}}
  }
  if (url.protocol !== 'https:') {
    socket.destroy()
    return steps
  }
  started = performance.now()
  try {
    const secure = await withTimeout<TLSSocket>(tlsConnect({socket, host, servername: isIP(host) ? undefined : host}), until, timeoutMs, 'secureConnect')
    const cert = secure.getPeerCertificate()
    steps.tls = {issuer: issuerName(cert), validTo: new Date(cert.valid_to).toISOString().slice(0, 10), ms: elapsed(started), expiresSoon: Date.parse(cert.valid_to) - Date.now() < EXPIRY_WARNING_MS}
    secure.destroy()
  } catch (error) {
    socket.destroy()
    return {...steps, failed: {step: 'tls', reason: reason(error)}}
  }
  return steps
}

/** The steps as one line: `DNS 93.184.216.34 3 ms, TCP 20 ms, TLS Let's Encrypt, R11 until 2027-01-30 (41 ms)`. */
export function describeSteps(steps: ReachSteps): string {
  const parts: string[] = []
  if (steps.proxy) parts.push(`through proxy ${steps.proxy}`)
  if (steps.dns) parts.push(`DNS ${steps.dns.address} ${steps.dns.ms} ms`)
  if (steps.tcp) parts.push(`TCP ${steps.tcp.ms} ms`)
  if (steps.tls) parts.push(`TLS by ${steps.tls.issuer}, valid until ${steps.tls.validTo} (${steps.tls.ms} ms)`)
  return parts.join(', ')
}

/** Seconds the service's clock is ahead of this one, from its `Date` and the request's midpoint; undefined without a Date. */
export function clockSkewSeconds(dateHeader: string | undefined, sentAt: number, receivedAt: number): number | undefined {
  const serviceTime = dateHeader === undefined ? Number.NaN : Date.parse(dateHeader)
  if (Number.isNaN(serviceTime)) return undefined
  // Date has whole seconds: the service's clock was somewhere in [Date, Date + 1 s) at the midpoint.
  return Math.round((serviceTime + 500 - (sentAt + receivedAt) / 2) / 1000)
}
