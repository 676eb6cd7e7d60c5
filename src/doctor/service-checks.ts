/**
 * The service and the card proxy, reached as every command reaches them (proxy variables
 * included): the connection step by step, then one GET each. The service's GET reads a
 * transaction that cannot exist with the profile's key: the service's error object with 404 means
 * the key was accepted, 401 or 403 that it was not; an answer that is not the service's (another
 * web server's page, another API) is said to be one, and the program holding a port on this
 * machine is named. Each check ends within its time. Nothing is ever written.
 */
import type {Answer} from '../api/answer.js'
import {API_PATHS} from '../api/contract.js'
import {HttpClient, joinUrl} from '../api/http-client.js'
import {PaytxError} from '../errors.js'
import {isLoopbackHost} from '../http/proxy.js'
import {ENVIRONMENT_PRESETS} from '../profiles/presets.js'
import type {ResolvedProfile} from '../profiles/resolve.js'
import {redactUrl} from '../secrets/redact-url.js'
import {emulatorHealth, freePortAfter, portOwner} from './port-checks.js'
import {type ReachSteps, clockSkewSeconds, describeSteps, reachSteps, timeLeft} from './reach.js'
import {type DoctorCheck, fail, ok, warn} from './report.js'
import {foreignAnswer, foreignRemedy, ownerClause, portOf, shellWord} from './service-identity.js'

/** An id no transaction has: reading it proves the key without touching anything. */
const NO_SUCH_TRANSACTION = '00000000-0000-4000-8000-000000000000'
/** A skew this large is worth a look; twice the request timeout would break waits and retries. */
const SKEW_WARNING_SECONDS = 10
const SKEW_FAILURE_SECONDS = 300
/** The emulator's health route answers at once: this long at most is spent asking it. */
const HEALTH_TIMEOUT_MS = 2000

interface Probe {
  steps: ReachSteps
  answer?: Answer
  date?: string
  sentAt: number
  receivedAt: number
  ms?: number
  error?: PaytxError | Error
}

async function probe(url: string, headers: Record<string, string>, secrets: (string | undefined)[], timeoutMs: number, until: number): Promise<Probe> {
  const target = new URL(url)
  const steps = await reachSteps(target, timeoutMs, process.env, until)
  const sentAt = Date.now()
  if (steps.failed) return {steps, sentAt, receivedAt: sentAt}
  const left = timeLeft(until)
  const client = new HttpClient({maxTries: 1, timeoutMs: left, connectTimeoutMs: left, secrets})
  try {
    const {answer, durationMs} = await client.exchange({method: 'GET', url, headers})
    const date = answer.headers.date
    return {steps, answer, date: Array.isArray(date) ? date[0] : date, sentAt, receivedAt: Date.now(), ms: durationMs}
  } catch (error) {
    return {steps, sentAt, receivedAt: Date.now(), error: error as Error}
  } finally {
    await client.destroy()
  }
}

function stepFailure(id: string, label: string, url: string, steps: ReachSteps): DoctorCheck {
  const {step, reason} = steps.failed!
  const target = new URL(url)
  const host = target.hostname
  // Loopback is never proxied: a proxy variable cannot help an address on this machine.
  const remedy = isLoopbackHost(host) && step === 'tcp'
    ? `Nothing answers at ${target.host} on this machine: start the service there, or point the profile at it (\`paytx profile show\` shows the address).`
    : {
        dns: `Check the host name in the profile (\`paytx profile show\`) and this machine's DNS; behind a company proxy, set HTTPS_PROXY.`,
        tcp: `Check your network or firewall; behind a company proxy, set HTTPS_PROXY (and NO_PROXY for hosts reached directly).`,
        tls: `If your organisation inspects TLS, point NODE_EXTRA_CA_CERTS at its authority's certificate (PEM); paytx never skips the check.`,
      }[step]
  const done = describeSteps(steps)
  return fail(id, label, `${step.toUpperCase()} failed for ${host}: ${reason}${done ? ` (after ${done})` : ''}`, remedy)
}

function answered(probeResult: Probe): string {
  const steps = describeSteps(probeResult.steps)
  return `${steps ? `${steps}; ` : ''}GET answered ${probeResult.answer!.status} in ${probeResult.ms} ms`
}

/** The address first in the line (redacted: a profile's URL can hold credentials), so that the check says what it reached. */
function at(url: string, check: DoctorCheck): DoctorCheck {
  return {...check, detail: `${redactUrl(url, {asWritten: true})}: ${check.detail}`}
}

export async function serviceCheck(resolved: ResolvedProfile, timeoutMs: number): Promise<{check: DoctorCheck; skew?: number}> {
  const {check, skew} = await serviceAnswer(resolved, timeoutMs)
  return {check: at(resolved.profile.base_url, check), skew}
}

/** Nothing listens at the local profile's address: fine, commands start an emulator of their own. */
function nobodyHome(resolved: ResolvedProfile, result: Probe): boolean {
  // Refused, or reset by an emulator that was closing as doctor connected.
  return resolved.profile.env === 'local' && result.steps.failed?.step === 'tcp' && /ECONNREFUSED|ECONNRESET/.test(result.steps.failed.reason)
}

async function serviceAnswer(resolved: ResolvedProfile, timeoutMs: number): Promise<{check: DoctorCheck; skew?: number}> {
  const {profile} = resolved
  const url = joinUrl(profile.base_url, API_PATHS.transaction(NO_SUCH_TRANSACTION))
  const label = 'Service'
  const until = performance.now() + timeoutMs
  const secrets = [profile.api_key, profile.proxy_key]
  const result = await probe(url, profile.api_key ? {[profile.api_key_header]: profile.api_key} : {}, secrets, timeoutMs, until)
  if (nobodyHome(resolved, result)) return {check: ok('service', label, 'no emulator running there; commands start one in their own process when they need it')}
  if (result.steps.failed) return {check: stepFailure('service', label, profile.base_url, result.steps)}
  const base = new URL(profile.base_url)
  const loopback = isLoopbackHost(base.hostname)
  if (result.error) {
    const hint = (result.error as PaytxError).hint ?? 'Check your network, then try again.'
    if (!loopback) return {check: fail('service', label, result.error.message, hint)}
    // A program on this machine took the connection but gave no answer the service would: it is named, and what to do is about it.
    const context = {resolved, url: base, loopback, owner: await portOwner(portOf(base)), freePort: await freePortAfter(portOf(base))}
    return {check: fail('service', label, `${result.error.message.replace(/\.$/, '')}${ownerClause(context)}`, foreignRemedy(context))}
  }
  // The local profile's address is the emulator's: asked who it is (other profiles' servers get no request but the GET).
  const emulator = loopback && profile.env === 'local' ? await emulatorHealth(portOf(base), Math.min(HEALTH_TIMEOUT_MS, timeLeft(until)), base.hostname) : undefined
  const foreign = emulator ? undefined : foreignAnswer(result.answer!, secrets)
  if (foreign) {
    const context = {resolved, url: base, loopback, owner: loopback ? await portOwner(portOf(base)) : undefined, freePort: await freePortAfter(portOf(base))}
    return {check: fail('service', label, `${answered(result)}, but it does not look like the payment service: it sent ${foreign}${ownerClause(context)}`, foreignRemedy(context))}
  }
  const skew = clockSkewSeconds(result.date, result.sentAt, result.receivedAt)
  const status = result.answer!.status
  const who = emulator ? 'a paytx emulator; ' : ''
  if (status === 401 || status === 403) {
    return {check: fail('service', label, `${who}${answered(result)}: the service refused the API key`, `Check the key belongs to this environment; store it again with \`paytx profile add ${shellWord(resolved.name)} --api-key-stdin\`.`), skew}
  }
  if (status === 404 || (status >= 200 && status < 300)) return {check: ok('service', label, `${who}${answered(result)}${profile.api_key ? ' (key accepted)' : ''}`), skew}
  return {check: warn('service', label, `${who}${answered(result)}, not what the API answers`, 'Check that the base URL is the API’s own address (`paytx profile show`).'), skew}
}

export async function cardProxyCheck(resolved: ResolvedProfile, timeoutMs: number): Promise<DoctorCheck> {
  const check = await cardProxyAnswer(resolved, timeoutMs)
  return resolved.profile.h2h_url ? at(resolved.profile.h2h_url, check) : check
}

async function cardProxyAnswer(resolved: ResolvedProfile, timeoutMs: number): Promise<DoctorCheck> {
  const {profile} = resolved
  if (!profile.h2h_url) return warn('card-proxy', 'Card proxy', 'no address in the profile (card tokenize needs one)', `Add it with \`paytx profile add ${shellWord(resolved.name)} --h2h-url ${ENVIRONMENT_PRESETS[profile.env].h2h_url}\` (the ${profile.env} card proxy's address).`)
  const label = 'Card proxy'
  const until = performance.now() + timeoutMs
  const result = await probe(profile.h2h_url, {}, [profile.api_key, profile.proxy_key], timeoutMs, until)
  if (nobodyHome(resolved, result)) return ok('card-proxy', label, 'served by the emulator when one runs')
  if (result.steps.failed) return stepFailure('card-proxy', label, profile.h2h_url, result.steps)
  if (result.error) return fail('card-proxy', label, result.error.message, (result.error as PaytxError).hint ?? 'Check your network, then try again.')
  const target = new URL(profile.h2h_url)
  // On the local profile the emulator serves the card proxy: anything else there is not it.
  if (profile.env === 'local' && isLoopbackHost(target.hostname) && !(await emulatorHealth(portOf(target), Math.min(HEALTH_TIMEOUT_MS, timeLeft(until)), target.hostname))) {
    const context = {resolved, url: target, loopback: true, owner: await portOwner(portOf(target)), freePort: await freePortAfter(portOf(target))}
    const sameAddress = target.host === new URL(profile.base_url).host
    return fail('card-proxy', label, `${answered(result)}, but not as the paytx emulator's card proxy${ownerClause(context)}`, sameAddress ? 'The same program answers at the service’s address: see the Service line.' : foreignRemedy(context))
  }
  return ok('card-proxy', label, answered(result))
}

export function clockCheck(skew: number | undefined): DoctorCheck {
  if (skew === undefined) return ok('clock', 'Clock', 'not compared (no answer with a Date from the service)')
  const size = Math.abs(skew)
  const text = size <= 1 ? 'within a second of the service’s' : `${size} s ${skew > 0 ? 'behind' : 'ahead of'} the service’s`
  if (size >= SKEW_FAILURE_SECONDS) return fail('clock', 'Clock', text, 'Set this machine’s clock (enable NTP): certificates, timeouts and the times paytx shows depend on it.')
  if (size >= SKEW_WARNING_SECONDS) return warn('clock', 'Clock', text, 'Enable time synchronisation (NTP) on this machine.')
  return ok('clock', 'Clock', text)
}
