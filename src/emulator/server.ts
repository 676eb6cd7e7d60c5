/**
 * The emulator's server, as wiring over its rooms: the store (store/), the transaction lifecycle
 * and the scheduler of due work (time/), the webhook outbox (webhooks/), the fault rules
 * (faults/), and the route tables of api/, pages/, dashboard/, admin/ and faults/. It holds no
 * behaviour of its own beyond turning an unexpected failure into a 500. Started through
 * `startEmulator` in `index.ts`.
 */
import {type IncomingMessage, type Server, type ServerResponse, createServer} from 'node:http'
import type {AddressInfo} from 'node:net'

import {DEFAULT_API_KEY_HEADER} from '../api/contract.js'
import {listen} from '../http/listen.js'
import {EMULATOR_DEFAULTS, emulatorBaseUrl} from '../test-mode/emulator-defaults.js'
import {adminRoutes, guardAdminHost, triggerRoutes} from './admin/index.js'
import {type AssumptionSettings, DEFAULT_ASSUMPTIONS} from './assumptions.js'
import {EmulatorResources, apiRoutes, withAnswerExtras} from './api/index.js'
import {approvalRoutes} from './pages/index.js'
import {CatchUpThread, type Clock, DueWorkScheduler, type LifecycleSettings, OrderedStatusReport, TransactionLifecycle, nextMoveDueAt, systemClock} from './time/index.js'
import {dashboardRoutes} from './dashboard/index.js'
import {EmulatorStore, IN_MEMORY_STORE, importLegacyStateFile, searchIndexing, storeFileKind, transactionPages} from './store/index.js'
import {type EmulatorEvent, formatEvent} from './events.js'
import {FaultRules, WebhookFaults, faultRoutes, randomSeed, withRequestFaults} from './faults/index.js'
import {ApiError, sendApiError} from './http-exchange.js'
import {
  DEFAULT_WEBHOOK_ATTEMPTS,
  DEFAULT_WEBHOOK_BACKOFF_MS,
  DEFAULT_WEBHOOK_TIMEOUT_MS,
  type EmulatorOptions,
  MAX_REQUEST_BODY_BYTES,
  type RunningEmulator,
} from './options.js'
import {WebhookOutbox} from './webhooks/index.js'
import {type TargetHandler, requestTarget, routeRequests} from './router.js'
import {DISK_FULL_RETRY_AFTER_SECONDS, isDiskFull} from '../storage/disk-full.js'
import {isoTimes} from '../iso-times.js'

/** Opens the store, importing a 0.1 JSON state file found at its path, and puts the defaults and given ids in it. */
function openStore(options: EmulatorOptions, lifecycleSettings: LifecycleSettings, clock: Clock, report: (line: string) => void) {
  const location = options.store ?? IN_MEMORY_STORE
  if (storeFileKind(location) === 'json') {
    const kept = importLegacyStateFile(location, (entry, since) => nextMoveDueAt(entry, lifecycleSettings, since), clock.now())
    report(`Imported the 0.1 state file ${location} into an emulator store at the same path; the JSON file is kept as ${kept}.`)
  }
  const store = EmulatorStore.open(location)
  store.onDiskFull = (full) =>
    report(
      full
        ? `Warning: the disk holding the store ${location} is full: the emulator goes on answering reads, and answers writes 503 (Retry-After) until space is freed.`
        : `Space is back: the emulator writes to the store ${location} again.`,
    )
  const organisation = options.organisation ?? EMULATOR_DEFAULTS.organisation
  const paymentProfileId = options.paymentProfileId ?? EMULATOR_DEFAULTS.paymentProfile
  const createdAt = new Date(clock.now()).toISOString()
  const extraOrganisations = options.organisations ?? []
  try {
    store.write(() => {
      for (const id of [organisation, ...extraOrganisations]) store.addOrganisation(id, createdAt)
      store.putPaymentProfile(
        {id: paymentProfileId, organisation, name: 'default', webhook_transaction_update: options.webhookUrl ?? '', created_at: createdAt},
        {replaceWebhook: options.webhookUrl !== undefined},
      )
      for (const profile of options.paymentProfiles ?? []) {
        store.putPaymentProfile(
          {id: profile.id, organisation: extraOrganisations[0] ?? organisation, name: profile.id, webhook_transaction_update: profile.webhookUrl ?? '', created_at: createdAt},
          {replaceWebhook: profile.webhookUrl !== undefined},
        )
      }
    })
  } catch (error) {
    // On a full disk the store is read as it is (the warning said so); the ids given are written once there is space.
    if (isDiskFull(error)) return store
    store.close()
    throw error
  }
  return store
}

/** Every option with its default applied: what the parts are built from. */
function resolveSettings(options: EmulatorOptions) {
  const assumptions: AssumptionSettings = {...DEFAULT_ASSUMPTIONS, ...options.assumptions}
  return {
    clock: options.clock ?? systemClock,
    host: options.host ?? EMULATOR_DEFAULTS.host,
    port: options.port ?? EMULATOR_DEFAULTS.port,
    keys: {
      apiKey: options.apiKey ?? EMULATOR_DEFAULTS.apiKey,
      apiKeyHeader: options.apiKeyHeader ?? DEFAULT_API_KEY_HEADER,
      proxyKey: options.proxyKey ?? EMULATOR_DEFAULTS.proxyKey,
    },
    proxyId: options.proxyId ?? EMULATOR_DEFAULTS.proxyId,
    organisation: options.organisation ?? EMULATOR_DEFAULTS.organisation,
    paymentProfileId: options.paymentProfileId ?? EMULATOR_DEFAULTS.paymentProfile,
    maxBodyBytes: options.maxBodyBytes ?? MAX_REQUEST_BODY_BYTES,
    assumptions,
    lifecycle: {
      settleAfterMs: options.settleAfterMs ?? EMULATOR_DEFAULTS.settleAfterMs,
      pendingForMs: options.pendingForMs ?? EMULATOR_DEFAULTS.pendingForMs,
      abandonAfterMs: options.abandonAfterMs ?? EMULATOR_DEFAULTS.abandonAfterMs,
      webhookShape: assumptions,
    } satisfies LifecycleSettings,
  }
}

type Settings = ReturnType<typeof resolveSettings>

interface Reporters {
  report(event: EmulatorEvent): void
  warn(line: string): void
}

/** The rooms' working parts over one store: lifecycle, catch-up thread, fault rules, outbox, scheduler, resources. */
function buildParts(options: EmulatorOptions, settings: Settings, {report, warn}: Reporters) {
  const {clock} = settings
  const store = openStore(options, settings.lifecycle, clock, warn)
  // Known once listening (the port may be 0).
  const addresses: {url: string; publicUrl?: string} = {url: '', publicUrl: options.publicUrl?.replace(/\/+$/, '')}
  let scheduler: DueWorkScheduler | undefined
  const due = (at: number) => scheduler?.due(at)
  const statusReport = new OrderedStatusReport(report)
  const lifecycle = new TransactionLifecycle(store, clock, settings.lifecycle, {due, status: (event) => statusReport.now(event)})
  const faults = new FaultRules(options.faults?.seed ?? randomSeed())
  for (const rule of options.faults?.rules ?? []) faults.add(rule)
  // A full disk is told once, by the store; any other failure of work outside a request each time.
  const dueWorkFailed = (error: Error) => {
    if (!isDiskFull(error)) warn(`Warning: the emulator could not carry out due work: ${error.message}`)
  }
  const catchUp = CatchUpThread.possible(store.location, clock)
    ? new CatchUpThread(store, settings.lifecycle, {
        moved: (events) => statusReport.later(events),
        due,
        // What is left (after a failure) is this thread's, and the deliveries wait for the scheduler.
        ended: (failure) => {
          if (failure && !failure.diskFull) dueWorkFailed(new Error(failure.message))
          due(clock.now())
        },
      })
    : undefined
  const outbox = new WebhookOutbox(
    store,
    clock,
    {
      attempts: Math.max(1, options.webhookAttempts ?? DEFAULT_WEBHOOK_ATTEMPTS),
      backoffMs: options.webhookBackoffMs ?? DEFAULT_WEBHOOK_BACKOFF_MS,
      timeoutMs: options.webhookTimeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS,
    },
    report,
    due,
    new WebhookFaults(faults, store, clock, report, due),
    dueWorkFailed,
  )
  scheduler = new DueWorkScheduler(store, clock, {lifecycle, outbox, catchUp}, dueWorkFailed)
  const resources = new EmulatorResources(store, clock, lifecycle, {
    organisation: settings.organisation,
    defaultPaymentProfile: settings.paymentProfileId,
    assumptions: settings.assumptions,
    // approval_url is for the payer's browser: the public address when the emulator has one.
    get baseUrl() {
      return addresses.publicUrl ?? addresses.url
    },
  })
  return {store, pages: transactionPages(store), indexing: searchIndexing(store), addresses, due, lifecycle, statusReport, catchUp, faults, outbox, scheduler, resources}
}

type Parts = ReturnType<typeof buildParts>

/** Every room's routes in one table, behind the request faults. */
function requestHandler(options: EmulatorOptions, settings: Settings, parts: Parts, {report}: Reporters) {
  const {keys, proxyId, organisation, paymentProfileId, maxBodyBytes, assumptions, clock} = settings
  const {store, pages, lifecycle, faults, resources, due} = parts
  const baseUrl = () => parts.addresses.url
  const {publicUrl} = parts.addresses
  const ownUrls = () => (publicUrl ? [parts.addresses.url, publicUrl] : [parts.addresses.url])
  return withRequestFaults(
    guardAdminHost(routeRequests([
      ...adminRoutes(store, {keys, proxyId, organisation, paymentProfileId, lifetime: options.lifetime ?? 'service', maxBodyBytes, baseUrl, now: () => clock.now(), searchPending: () => parts.indexing.pending()}),
      ...faultRoutes(faults, {keys, maxBodyBytes}),
      ...withAnswerExtras(apiRoutes(resources, {keys, proxyId, maxBodyBytes}), options.answerExtras),
      ...approvalRoutes(store, lifecycle, {maxBodyBytes, baseUrl}),
      ...triggerRoutes(store, lifecycle, {pages, keys, maxBodyBytes, assumptions, clock, due: (at) => due(at)}),
      ...dashboardRoutes(store, lifecycle, {pages, maxBodyBytes, assumptions, clock, listenHost: settings.host, ownUrls, due: (at) => due(at)}),
    ]), {listenHost: settings.host, ownUrls}),
    faults,
    {store, maxBodyBytes, now: () => clock.now(), report},
  )
}

/**
 * The HTTP server: each request is logged when answered; an unexpected failure is a 500 with the
 * service's error object. A request answered within the call (a status read, any error) is logged
 * as the call returns, its answer already handed to the socket; one answered later, once its
 * answer is finished. Listening for every answer's end was a tenth of the CPU of a status read.
 */
function httpServer(handle: TargetHandler, clock: Clock, {report, warn}: Reporters): Server {
  const isoTime = isoTimes()
  const server: Server = createServer((request, response) => {
    const started = clock.now()
    const startedAt = performance.now()
    const logged = () => {
      const url = request.url ?? ''
      const queryAt = url.indexOf('?')
      report({
        event: 'request',
        time: isoTime(started),
        method: request.method ?? '',
        path: queryAt === -1 ? url : url.slice(0, queryAt),
        status: response.statusCode,
        duration_ms: Math.round(performance.now() - startedAt),
      })
    }
    // The path is normalised here, once: the faults, the admin Host guard and the router all decide on this one target.
    let answered: Promise<void> | void = undefined
    try {
      answered = handle(request, response, requestTarget(request.url ?? '/'))
    } catch (error) {
      answerFailure(request, response, error, warn)
    }
    answered?.catch((error: unknown) => answerFailure(request, response, error, warn))
    if (response.writableEnded) logged()
    else response.once('finish', logged)
  })
  server.requestTimeout = 30_000
  server.headersTimeout = 20_000
  return server
}

/** A request whose handling failed: the service's error object, or a 500 that says so (the emulator's own failure, also told on stderr). */
function answerFailure(request: IncomingMessage, response: ServerResponse, error: unknown, warn: Reporters['warn']): void {
  // Drain what the client still sends, so that it reads the answer instead of a reset.
  request.resume()
  if (response.headersSent) {
    response.destroy()
    return
  }
  if (error instanceof ApiError) {
    sendApiError(response, error)
    return
  }
  if (isDiskFull(error)) {
    // Rolled back whole: nothing of the request was kept, and it can be sent again once there is space.
    sendApiError(response, new ApiError(503, 'The emulator cannot store this change: its disk is full. Nothing was changed; send the request again later.', {store: 'the disk is full'}, {'retry-after': String(DISK_FULL_RETRY_AFTER_SECONDS)}))
    return
  }
  warn(`Error: the emulator failed on ${request.method} ${(request.url ?? '').split('?')[0]}: ${(error as Error).message}`)
  sendApiError(response, new ApiError(500, 'The emulator failed while handling this request.'))
}

/** What the caller holds: addresses, keys, ids, and a close that stops the scheduler, the server, the outbox and the store once. */
function runningEmulator(server: Server, settings: Settings, parts: Parts): RunningEmulator {
  const {url} = parts.addresses
  const stop = async () => {
    parts.scheduler.stop()
    // Its last commit's moves are reported before the emulator says it stopped.
    await parts.catchUp?.stop()
    parts.statusReport.flush()
    await new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
    await parts.outbox.close()
    await parts.pages.close()
    await parts.indexing.close()
    parts.store.close()
  }
  let closing: Promise<void> | undefined
  return {
    url,
    ...(parts.addresses.publicUrl ? {publicUrl: parts.addresses.publicUrl} : {}),
    proxyUrl: `${url}${EMULATOR_DEFAULTS.proxyBasePath}`,
    dashboardUrl: `${url}/`,
    host: settings.host,
    port: (server.address() as AddressInfo).port,
    ...settings.keys,
    proxyId: settings.proxyId,
    paymentProfileId: settings.paymentProfileId,
    organisation: settings.organisation,
    store: parts.store.location,
    assumptions: settings.assumptions,
    faultSeed: parts.faults.seed,
    close() {
      closing ??= stop()
      return closing
    },
  }
}

export async function startEmulatorServer(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const settings = resolveSettings(options)
  const reporters: Reporters = {
    report(event) {
      options.onEvent?.(event)
      options.log?.(formatEvent(event))
    },
    warn: (line) => (options.onWarning ?? options.log)?.(line),
  }
  const parts = buildParts(options, settings, reporters)
  const server = httpServer(requestHandler(options, settings, parts, reporters), settings.clock, reporters)
  try {
    await listen(server, {host: settings.host, port: settings.port})
  } catch (error) {
    await parts.indexing.close()
    parts.store.close()
    throw error
  }
  const {host} = settings
  // Listening on every interface still means the pages are reached on this machine's loopback.
  parts.addresses.url = emulatorBaseUrl(host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host, (server.address() as AddressInfo).port)
  parts.scheduler.start()
  return runningEmulator(server, settings, parts)
}
