/**
 * `emulator verify`: the requests of probes.ts, built from one description, sent to the real
 * profile and to a fresh emulator (in this process, in memory, with the given readings), one
 * after the other on each side; every answer pair compared (compare.ts), then what the sides did
 * beside answering (webhooks, the key's header). Stops at once when the service refuses the key.
 * Knows nothing of oclif.
 */
import {CARD_ID_KEYS, isFinalStatus, readId} from '../api/contract.js'
import {HttpClient} from '../api/http-client.js'
import type {RunningEmulator} from '../emulator/index.js'
import type {Profile} from '../profiles/presets.js'
import {redactedJson, scrubSecrets} from '../secrets/redact.js'
import {type Difference, type SideAnswer, compareAnswers} from './compare.js'
import {type AssumptionCheck, assumptionChecks, sideDifferences} from './checks.js'
import {PROBES, type Probe, type ProbeState, type SharedValues, type SideSettings} from './probes.js'
import {NO_READINGS, type Readings, emulatorReadings, readingsEmulatorOptions, readingsToEmulatorOptions} from '../emulator-readings/readings.js'
import {type FollowedStatus, readingsOf} from './take-readings.js'
import type {TunnelRequest} from '../tunnel/tunnel-program.js'
import type {RunningTunnel} from '../tunnel/run-tunnel.js'
import {type WebhookCatcher, type WebhookSighting, publicWebhookUrl, startWebhookCatcher} from './webhooks.js'

export interface ProbeResult {
  probe: string
  title: string
  real?: SideAnswer
  emulator?: SideAnswer
  /** Why the request was sent to neither side. */
  skipped?: string
  differences: Difference[]
}

export interface VerifyReport {
  profile: string
  /** The emulator compared with: its address and its reading of each switchable assumption (ids of `emulator assumptions`). */
  emulator: {url: string; assumptions: Record<string, string>}
  probes: ProbeResult[]
  /** Differences beside the answers: webhooks, retries, the key's header. */
  behaviour: Difference[]
  /** Each listed assumption: checked, or why not. */
  checks: AssumptionCheck[]
  /** What verify created on the service. */
  created: {what: string; id: string}[]
  /** The service refused the profile's key: nothing after the first request was sent. */
  refused?: {status: number; message?: string; header: string}
  counts: {breaking: number; additive: number; value: number}
  /** What the service showed, as `--save` writes it. */
  readings: Readings
}

export interface VerifyOptions {
  profileName: string
  profile: Profile
  timeoutMs: number
  secrets: string[]
  /** Readings the emulator answers with (`--readings`). */
  readings?: Readings
  /** How long to wait for webhooks (and a retry) once the requests are done. */
  webhookWaitMs: number
  /** The --verbose request log. */
  log?: (line: string) => void
  /**
   * How a service elsewhere reaches verify's webhook listener: an address of the user's that
   * forwards to `port` (--webhook-url, --webhook-port), or a tunnel started to it (--tunnel).
   */
  publicWebhooks?: {port: number; url?: string; tunnel?: TunnelRequest}
  signal?: AbortSignal
}

interface Side {
  settings: SideSettings
  http: HttpClient
  state: ProbeState
  catcher?: WebhookCatcher
}

/** A service on this machine can reach a listener on this machine; another one cannot without a tunnel. */
export function isLocalService(baseUrl: string): boolean {
  const host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, '')
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host)
}

function masked(body: unknown, secrets: readonly string[]): unknown {
  if (body === undefined) return undefined
  return JSON.parse(scrubSecrets(redactedJson(body), secrets))
}

async function ask(side: Side, request: Exclude<ReturnType<Probe['request']>, {skipped: string}>, probe: Probe, secrets: readonly string[]): Promise<SideAnswer> {
  const {answer} = await side.http.exchange(request)
  const body = answer.isJson ? answer.body : undefined
  if (answer.status >= 200 && answer.status < 300) probe.remember?.(body, side.state)
  return {status: answer.status, body: masked(body, secrets)}
}

function createdBy(probe: Probe, answer: SideAnswer): {what: string; id: string} | undefined {
  if (!probe.creates || answer.status < 200 || answer.status >= 300) return undefined
  const id = readId(answer.body, probe.creates === 'card' ? CARD_ID_KEYS : undefined)
  return id ? {what: probe.creates, id} : undefined
}

function refusal(answer: SideAnswer, header: string): VerifyReport['refused'] | undefined {
  if (answer.status !== 401 && answer.status !== 403) return undefined
  const message = answer.body && typeof answer.body === 'object' ? (answer.body as {message?: unknown}).message : undefined
  return {status: answer.status, ...(typeof message === 'string' ? {message} : {}), header}
}

/** How often the dummy transaction's status is read while it is followed. */
const FOLLOW_EVERY_MS = 500

interface Run {
  /** When the requests began (the dummy transaction is created just after). */
  startedAt: number
  /** When the service's answer creating the dummy transaction arrived (it was created before). */
  transactionAnsweredAt?: number
  probes: ProbeResult[]
  created: VerifyReport['created']
  refused?: VerifyReport['refused']
}

async function sendProbes(real: Side, local: Side, shared: SharedValues, secrets: readonly string[]): Promise<Run> {
  const run: Run = {startedAt: Date.now(), probes: [], created: []}
  for (const probe of PROBES) {
    const [realRequest, localRequest] = [probe.request(real.settings, real.state, shared), probe.request(local.settings, local.state, shared)]
    const skipped = 'skipped' in realRequest ? realRequest.skipped : 'skipped' in localRequest ? localRequest.skipped : undefined
    if (skipped) {
      run.probes.push({probe: probe.name, title: probe.title, skipped, differences: []})
      continue
    }
    const realAnswer = await ask(real, realRequest as Exclude<typeof realRequest, {skipped: string}>, probe, secrets)
    if (probe.name === 'transaction-start') run.transactionAnsweredAt = Date.now()
    const created = createdBy(probe, realAnswer)
    if (created) run.created.push(created)
    run.refused = probe.name === 'customer' ? refusal(realAnswer, real.settings.api_key_header) : undefined
    if (run.refused) return run
    const emulatorAnswer = await ask(local, localRequest as Exclude<typeof localRequest, {skipped: string}>, probe, secrets)
    const sent = 'body' in realRequest ? realRequest.body : undefined
    run.probes.push({probe: probe.name, title: probe.title, real: realAnswer, emulator: emulatorAnswer, differences: compareAnswers(probe.name, realAnswer, emulatorAnswer, sent)})
  }
  return run
}

function sideSettings(profile: Profile, emulator: RunningEmulator): SideSettings {
  return {
    base_url: `${emulator.url}/v1`,
    h2h_url: emulator.proxyUrl,
    proxy_id: emulator.proxyId,
    proxy_key: emulator.proxyKey,
    api_key_header: emulator.apiKeyHeader,
    api_key: emulator.apiKey,
    organisation: emulator.organisation,
    // What the profile lacks, the emulator's side lacks too.
    ...(profile.payment_profile ? {payment_profile: emulator.paymentProfileId} : {}),
  }
}

function profileSettings(profile: Profile): SideSettings {
  return {
    base_url: profile.base_url,
    h2h_url: profile.h2h_url,
    proxy_id: profile.proxy_id,
    proxy_key: profile.proxy_key,
    api_key_header: profile.api_key_header,
    api_key: profile.api_key ?? '',
    organisation: profile.organisation ?? '',
    payment_profile: profile.payment_profile,
  }
}

export async function runVerify(options: VerifyOptions): Promise<VerifyReport> {
  const {startEmulator, DEFAULT_WEBHOOK_ATTEMPTS} = await loadEmulator()
  const readingOptions = options.readings ? readingsEmulatorOptions(options.readings) : readingsToEmulatorOptions(NO_READINGS)
  const emulator = await startEmulator({port: 0, store: ':memory:', lifetime: 'command', ...readingOptions})
  const secrets = [...options.secrets, emulator.apiKey, emulator.proxyKey]
  const client = () => new HttpClient({timeoutMs: options.timeoutMs, maxTries: 1, secrets, log: options.log})
  const real: Side = {settings: profileSettings(options.profile), http: client(), state: {}}
  const local: Side = {settings: sideSettings(options.profile, emulator), http: client(), state: {}}
  const webhooks = options.publicWebhooks !== undefined || isLocalService(options.profile.base_url)
  let tunnel: RunningTunnel | undefined
  try {
    if (webhooks) tunnel = await listenForWebhooks(real, local, options)
    const shared: SharedValues = {merchantReference: `paytx-verify-${Date.now().toString(36)}`, expiryYear: String(new Date().getUTCFullYear() + 3)}
    const run = await sendProbes(real, local, shared, secrets)
    const sightings = run.refused || !webhooks ? undefined : await settleWebhooks(real, local, options.webhookWaitMs)
    const emulatorAssumptions = emulatorReadings(emulator, readingOptions.webhookAttempts ?? DEFAULT_WEBHOOK_ATTEMPTS)
    const statuses = run.refused ? undefined : await followStatus(real, local, secrets, run.startedAt + options.webhookWaitMs, run.transactionAnsweredAt)
    const behaviour = run.refused ? [] : sideDifferences({realHeader: options.profile.api_key_header, emulatorHeader: emulator.apiKeyHeader, sightings, waitMs: options.webhookWaitMs, statuses})
    return report(options, {emulator: {url: emulator.url, assumptions: emulatorAssumptions}, run, behaviour, sightings, webhooks, statuses})
  } finally {
    await Promise.allSettled([real.http.destroy(), local.http.destroy(), real.catcher?.close(), local.catcher?.close(), tunnel?.stop()])
    await emulator.close()
  }
}

/** Both sides' listeners; the service's reached directly, at the user's address or through a tunnel. Returns the tunnel started. */
async function listenForWebhooks(real: Side, local: Side, options: VerifyOptions): Promise<RunningTunnel | undefined> {
  const reach = options.publicWebhooks
  ;[real.catcher, local.catcher] = await Promise.all([startWebhookCatcher(reach?.port ?? 0), startWebhookCatcher()])
  local.settings.webhook_url = local.catcher.url
  real.settings.webhook_url = reach?.url ? publicWebhookUrl(reach.url, real.catcher) : real.catcher.url
  if (!reach?.tunnel) return undefined
  const [{startTunnel}, {tunnelProgram}] = await Promise.all([import('../tunnel/run-tunnel.js'), import('../tunnel/tunnel-program.js')])
  const tunnel = await startTunnel(tunnelProgram(reach.tunnel.choice, real.catcher.port), {timeoutMs: reach.tunnel.timeoutMs, signal: options.signal})
  real.settings.webhook_url = publicWebhookUrl(tunnel.publicUrl, real.catcher)
  return tunnel
}

/**
 * The dummy transaction followed on each side until `deadline` (its creation plus --webhook-wait,
 * the tolerance), or until the two disagree: a service that moves an unfinished transaction on
 * sooner (abandons it, say) than the emulator shows it here.
 */
async function followStatus(real: Side, local: Side, secrets: readonly string[], deadline: number, answeredAt = Date.now()): Promise<FollowedStatus | undefined> {
  const probe = PROBES.find((candidate) => candidate.name === 'transaction')!
  const statusOf = async (side: Side) => {
    const request = probe.request(side.settings, side.state, {merchantReference: '', expiryYear: ''})
    if ('skipped' in request) return undefined
    const answer = await ask(side, request, probe, secrets)
    const body = (answer.body && typeof answer.body === 'object' ? answer.body : {}) as {status?: unknown; created_at?: unknown; last_status_update?: unknown}
    const moved = typeof body.created_at === 'string' && typeof body.last_status_update === 'string' ? Date.parse(body.last_status_update) - Date.parse(body.created_at) : Number.NaN
    return typeof body.status === 'string' ? {status: body.status, movedAfterMs: Number.isFinite(moved) ? moved : undefined} : undefined
  }
  for (;;) {
    const readAt = Date.now()
    const [realStatus, emulatorStatus] = [await statusOf(real), await statusOf(local)]
    if (realStatus === undefined || emulatorStatus === undefined) return undefined
    const left = deadline - Date.now()
    if (realStatus.status !== emulatorStatus.status || left <= 0 || isFinalStatus(realStatus.status)) {
      const still = realStatus.status === 'INITIATED'
      return {real: realStatus.status, emulator: emulatorStatus.status, ...(still ? {initiatedForMs: Math.max(0, readAt - answeredAt)} : {realMovedAfterMs: realStatus.movedAfterMs})}
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(FOLLOW_EVERY_MS, left)))
  }
}

async function loadEmulator() {
  const [{startEmulator}, {DEFAULT_WEBHOOK_ATTEMPTS}] = await Promise.all([import('../emulator/index.js'), import('../emulator/options.js')])
  return {startEmulator, DEFAULT_WEBHOOK_ATTEMPTS}
}

async function settleWebhooks(real: Side, local: Side, waitMs: number): Promise<{real: WebhookSighting; emulator: WebhookSighting}> {
  const [realSighting, emulatorSighting] = await Promise.all([real.catcher!.settle(waitMs), local.catcher!.settle(waitMs)])
  return {real: realSighting, emulator: emulatorSighting}
}

interface Observed {
  emulator: VerifyReport['emulator']
  run: Run
  behaviour: Difference[]
  sightings?: {real: WebhookSighting; emulator: WebhookSighting}
  webhooks: boolean
  statuses?: FollowedStatus
}

function report(options: VerifyOptions, observed: Observed): VerifyReport {
  const {run, behaviour} = observed
  const all = [...run.probes.flatMap((probe) => probe.differences), ...behaviour]
  const count = (kind: Difference['class']) => all.filter((difference) => difference.class === kind).length
  return {
    profile: options.profileName,
    emulator: observed.emulator,
    probes: run.probes,
    behaviour,
    checks: assumptionChecks({probes: run.probes, sightings: observed.sightings, webhooks: observed.webhooks, refused: Boolean(run.refused)}),
    created: run.created,
    ...(run.refused ? {refused: run.refused} : {}),
    counts: {breaking: count('breaking'), additive: count('additive'), value: count('value')},
    readings: readingsOf({
      profileName: options.profileName,
      probes: run.probes,
      sightings: observed.sightings,
      statuses: observed.statuses,
      apiKeyHeader: run.refused ? undefined : options.profile.api_key_header,
      additive: all.filter((difference) => difference.class === 'additive'),
    }),
  }
}
