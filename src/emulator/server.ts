/**
 * The emulator's HTTP server: routing, authentication, the approval pages' routes, state saving
 * and an orderly close. Started through `startEmulator` in `index.ts`.
 */
import {type IncomingMessage, type Server, type ServerResponse, createServer} from 'node:http'
import type {AddressInfo} from 'node:net'

import {DEFAULT_API_KEY_HEADER, PROXY_BASIC_USER, PROXY_KEY_HEADER, type SofortSender} from '../api/contract.js'
import {EXIT, PaytxError} from '../errors.js'
import {type Clock, systemClock} from './clock.js'
import {EMULATOR_DEFAULTS, emulatorBaseUrl} from '../test-mode/emulator-defaults.js'
import {type EmulatorEvent, formatEvent} from './events.js'
import {
  ApiError,
  appendQuery,
  isFormMediaType,
  isJsonMediaType,
  parseFormBody,
  parseJsonBody,
  readBody,
  redirect,
  sendApiError,
  sendHtml,
  sendJson,
} from './http-exchange.js'
import type {EmulatorOptions, RunningEmulator} from './index.js'
import {TransactionLifecycle, isAwaitingApproval} from './lifecycle.js'
import {type ApprovalPageContext, decideApproval, renderApprovalPage, renderErrorPage} from './pages.js'
import {EmulatorResources, approvalUrl, cardView} from './resources.js'
import {PortInUseError} from './start-errors.js'
import {loadStateFile, saveStateFile} from './state-file.js'
import {EmulatorStore} from './store.js'
import {WebhookDispatcher} from './webhooks.js'

export const DEFAULT_MAX_BODY_BYTES = 64 * 1024
export const DEFAULT_WEBHOOK_ATTEMPTS = 5
export const DEFAULT_WEBHOOK_BACKOFF_MS = 500
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000

type Handler = (request: IncomingMessage, response: ServerResponse, params: string[]) => Promise<void> | void

interface Route {
  /** Path segments; `:` matches any one segment, passed to the handler in order. */
  pattern: string[]
  methods: Partial<Record<string, Handler>>
}

function matches(pattern: string[], segments: string[]): string[] | undefined {
  if (pattern.length !== segments.length) return undefined
  const params: string[] = []
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === ':') params.push(segments[i])
    else if (pattern[i] !== segments[i]) return undefined
  }
  return params
}

function pathSegments(rawUrl: string): string[] | undefined {
  const path = rawUrl.split('?')[0].replace(/\/+$/, '')
  try {
    return path
      .split('/')
      .slice(1)
      .map((segment) => decodeURIComponent(segment))
  } catch {
    return undefined
  }
}

function listenError(error: NodeJS.ErrnoException, host: string, port: number): Error {
  if (error.code === 'EADDRINUSE') return new PortInUseError(host, port)
  if (error.code === 'EACCES') {
    return new PaytxError('network', EXIT.service, `Not allowed to listen on ${host}:${port}.`, 'Ports below 1024 need privileges; pass --port with a higher one.')
  }
  if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND') {
    return new PaytxError('input', EXIT.input, `Cannot listen on ${host}: this machine has no such address.`, 'Pass --host 127.0.0.1 (the default) or another address of this machine.')
  }
  return new PaytxError('network', EXIT.service, `Cannot listen on ${host}:${port}: ${error.message}`)
}

export async function startEmulatorServer(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const clock: Clock = options.clock ?? systemClock
  const host = options.host ?? EMULATOR_DEFAULTS.host
  const requestedPort = options.port ?? EMULATOR_DEFAULTS.port
  const apiKey = options.apiKey ?? EMULATOR_DEFAULTS.apiKey
  const apiKeyHeader = options.apiKeyHeader ?? DEFAULT_API_KEY_HEADER
  const proxyKey = options.proxyKey ?? EMULATOR_DEFAULTS.proxyKey
  const proxyId = options.proxyId ?? EMULATOR_DEFAULTS.proxyId
  const organisation = options.organisation ?? EMULATOR_DEFAULTS.organisation
  const paymentProfileId = options.paymentProfileId ?? EMULATOR_DEFAULTS.paymentProfile
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES
  const proxyBase = EMULATOR_DEFAULTS.proxyBasePath.split('/').filter(Boolean)

  const report = (event: EmulatorEvent) => {
    options.onEvent?.(event)
    options.log?.(formatEvent(event))
  }

  const store = (options.stateFile ? loadStateFile(options.stateFile) : undefined) ?? new EmulatorStore()
  const defaultProfile = store.paymentProfiles.get(paymentProfileId)
  if (defaultProfile) {
    if (options.webhookUrl !== undefined) defaultProfile.webhook_transaction_update = options.webhookUrl
  } else {
    store.paymentProfiles.set(paymentProfileId, {
      id: paymentProfileId,
      organisation,
      name: 'default',
      webhook_transaction_update: options.webhookUrl ?? '',
      created_at: new Date(clock.now()).toISOString(),
    })
  }

  let saveScheduled = false
  const saveNow = () => {
    saveScheduled = false
    if (options.stateFile) saveStateFile(options.stateFile, store, new Date(clock.now()).toISOString())
  }
  const changed = () => {
    if (!options.stateFile || saveScheduled) return
    saveScheduled = true
    setImmediate(() => {
      if (!saveScheduled) return
      try {
        saveNow()
      } catch (error) {
        options.log?.(`Warning: ${(error as Error).message}`)
      }
    })
  }

  const webhooks = new WebhookDispatcher(
    store,
    clock,
    {
      attempts: Math.max(1, options.webhookAttempts ?? DEFAULT_WEBHOOK_ATTEMPTS),
      backoffMs: options.webhookBackoffMs ?? DEFAULT_WEBHOOK_BACKOFF_MS,
      timeoutMs: options.webhookTimeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS,
    },
    report,
    changed,
  )
  const lifecycle = new TransactionLifecycle(
    store,
    clock,
    {
      settleAfterMs: options.settleAfterMs ?? EMULATOR_DEFAULTS.settleAfterMs,
      pendingForMs: options.pendingForMs ?? EMULATOR_DEFAULTS.pendingForMs,
      abandonAfterMs: options.abandonAfterMs ?? EMULATOR_DEFAULTS.abandonAfterMs,
    },
    webhooks,
    report,
    changed,
  )
  // Known once listening (the port may be 0); the resources read it when a transaction starts.
  const addresses = {url: ''}
  const resources = new EmulatorResources(
    store,
    clock,
    lifecycle,
    {
      organisation,
      defaultPaymentProfile: paymentProfileId,
      get baseUrl() {
        return addresses.url
      },
    },
    changed,
  )

  const requireApiKey = (request: IncomingMessage) => {
    const given = request.headers[apiKeyHeader.toLowerCase()]
    if (given === undefined || given === '') throw new ApiError(401, `The API key is missing: send it in the ${apiKeyHeader} header.`)
    if (given !== apiKey) throw new ApiError(401, `The API key in the ${apiKeyHeader} header is not valid for this emulator.`)
  }

  const requireProxyKey = (request: IncomingMessage) => {
    const header = request.headers[PROXY_KEY_HEADER.toLowerCase()]
    let given = typeof header === 'string' && header !== '' ? header : undefined
    const authorization = request.headers.authorization
    if (given === undefined && authorization?.startsWith('Basic ')) {
      const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8')
      const colon = decoded.indexOf(':')
      if (colon !== -1 && decoded.slice(0, colon) === PROXY_BASIC_USER) given = decoded.slice(colon + 1)
    }
    if (given === undefined) {
      throw new ApiError(401, `The proxy key is missing: send it in the ${PROXY_KEY_HEADER} header (or as Basic auth with user ${PROXY_BASIC_USER}).`)
    }
    if (given !== proxyKey) throw new ApiError(401, 'The proxy key is not valid for this card proxy.')
  }

  const jsonBody = async (request: IncomingMessage): Promise<unknown> => {
    if (!isJsonMediaType(request)) {
      request.resume()
      throw new ApiError(415, 'The request body must be JSON: send Content-Type: application/json.', {
        'headers.content-type': `is ${JSON.stringify(request.headers['content-type'] ?? '')}; expected application/json`,
      })
    }
    return parseJsonBody(await readBody(request, maxBodyBytes))
  }

  const approvalContext = (id: string): ApprovalPageContext | undefined => {
    const entry = store.transactions.get(id)
    if (!entry) return undefined
    const {transaction} = entry
    const card = transaction.card ? store.cards.get(transaction.card) : undefined
    return {
      transaction: structuredClone(transaction),
      ...(card ? {card: {...cardView(card), testOutcome: card.testOutcome}} : {}),
      needsCvv: transaction.payment_product === 'card' && !entry.cvvGiven,
      actionUrl: new URL(approvalUrl(addresses.url, transaction.id)).pathname,
    }
  }

  /** Sends the customer back when the page cannot complete: with `error`, or an error page. */
  const cannotComplete = (response: ServerResponse, id: string, status: number, title: string, message: string) => {
    const redirectUrl = store.transactions.get(id)?.transaction.details.redirect_url
    if (typeof redirectUrl === 'string' && redirectUrl !== '') {
      redirect(response, appendQuery(redirectUrl, {transaction_id: id, error: message}))
    } else {
      sendHtml(response, status, renderErrorPage(title, message))
    }
  }

  const unknownTransactionPage = (response: ServerResponse, id: string) =>
    sendHtml(response, 404, renderErrorPage('Unknown transaction', `No transaction has the id ${JSON.stringify(id)}. Check the approval address.`))

  const alreadyDone = (status: string) => `The transaction is already ${status}; it cannot be approved again.`

  const routes: Route[] = [
    {
      pattern: ['_emulator', 'health'],
      methods: {
        GET: (_request, response) =>
          sendJson(response, 200, {
            status: 'ok',
            emulator: 'paytx',
            url: addresses.url,
            proxy_url: `${addresses.url}${EMULATOR_DEFAULTS.proxyBasePath}`,
            proxy_id: proxyId,
            payment_profile: paymentProfileId,
            organisation,
            api_key_header: apiKeyHeader,
          }),
      },
    },
    {
      pattern: ['_emulator', 'webhooks'],
      methods: {
        GET: (request, response) => {
          const wanted = new URLSearchParams(request.url?.split('?')[1] ?? '').get('transaction')
          const deliveries = wanted ? store.deliveries.filter((d) => d.transaction === wanted) : store.deliveries
          sendJson(response, 200, {deliveries})
        },
      },
    },
    {
      pattern: ['v1', 'customer'],
      methods: {
        POST: async (request, response) => {
          requireApiKey(request)
          sendJson(response, 200, resources.createCustomer(await jsonBody(request)))
        },
      },
    },
    {
      pattern: [...proxyBase, 'tokenize', 'proxy', ':'],
      methods: {
        POST: async (request, response, [id]) => {
          if (id !== proxyId) throw new ApiError(404, `No card proxy has the id ${JSON.stringify(id)}.`, {'params.proxy_id': 'unknown proxy id'})
          requireProxyKey(request)
          sendJson(response, 200, resources.tokenizeCard(await jsonBody(request)))
        },
      },
    },
    {
      pattern: ['v1', 'transaction', 'start'],
      methods: {
        POST: async (request, response) => {
          requireApiKey(request)
          sendJson(response, 200, resources.startTransaction(await jsonBody(request)))
        },
      },
    },
    {
      pattern: ['v1', 'transaction', ':'],
      methods: {
        GET: (request, response, [id]) => {
          requireApiKey(request)
          sendJson(response, 200, resources.getTransaction(id))
        },
      },
    },
    {
      pattern: ['v1', 'transaction', ':', 'checkoutsuccess'],
      methods: {
        GET: (request, response, [id]) => {
          requireApiKey(request)
          sendJson(response, 200, resources.checkoutSuccess(id))
        },
      },
    },
    {
      pattern: ['v1', 'transaction', ':', 'authorize'],
      methods: {
        GET: (_request, response, [id]) => {
          const status = store.transactions.get(id)?.transaction.status
          if (status === undefined) return unknownTransactionPage(response, id)
          if (!isAwaitingApproval(status)) return cannotComplete(response, id, 409, 'Already completed', alreadyDone(status))
          lifecycle.opened(id)
          sendHtml(response, 200, renderApprovalPage(approvalContext(id)!))
        },
        POST: async (request, response, [id]) => {
          const status = store.transactions.get(id)?.transaction.status
          if (status === undefined) {
            request.resume()
            return unknownTransactionPage(response, id)
          }
          if (!isFormMediaType(request)) {
            request.resume()
            return sendHtml(response, 415, renderErrorPage('Unsupported form', 'Post the approval form as application/x-www-form-urlencoded.'))
          }
          const form = parseFormBody(await readBody(request, maxBodyBytes))
          if (!isAwaitingApproval(status)) return cannotComplete(response, id, 409, 'Already completed', alreadyDone(status))
          // A script may post without opening the page first; the transaction passes IN_PROGRESS all the same.
          lifecycle.opened(id)
          const context = approvalContext(id)!
          const decision = decideApproval(context, form)
          if (decision.kind === 'invalid') return sendHtml(response, 400, renderApprovalPage(context, {error: decision.message}))
          lifecycle.completed(id, decision.outcome, {
            statusReason: decision.statusReason,
            sender: decision.sender && withCustomerAsHolder(id, decision.sender),
          })
          const redirectUrl = store.transactions.get(id)!.transaction.details.redirect_url!
          redirect(response, appendQuery(redirectUrl, {transaction_id: id}))
        },
      },
    },
  ]

  /** The pages do not know the customer; the sender of a sofort payment is the customer. */
  const withCustomerAsHolder = (id: string, sender: SofortSender): SofortSender => {
    const customerId = store.transactions.get(id)?.transaction.customer
    const customer = customerId ? store.customers.get(customerId) : undefined
    const name = customer ? `${customer.first_name} ${customer.last_name}`.trim() : ''
    return name ? {...sender, holder: name} : sender
  }

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const segments = pathSegments(request.url ?? '/')
    if (!segments) throw new ApiError(400, 'The request path is not valid (bad percent-encoding).')
    for (const route of routes) {
      const params = matches(route.pattern, segments)
      if (!params) continue
      const handler = route.methods[request.method ?? '']
      if (!handler) {
        const allowed = Object.keys(route.methods).join(', ')
        throw new ApiError(405, `${request.method} is not allowed here; use ${allowed}.`, {method: `allowed: ${allowed}`}, {allow: allowed})
      }
      await handler(request, response, params)
      return
    }
    throw new ApiError(404, `Nothing is at ${request.method} ${request.url?.split('?')[0]}.`, {path: 'unknown path'})
  }

  const server: Server = createServer((request, response) => {
    const started = clock.now()
    const startedAt = performance.now()
    response.on('finish', () =>
      report({
        event: 'request',
        time: new Date(started).toISOString(),
        method: request.method ?? '',
        path: (request.url ?? '').split('?')[0],
        status: response.statusCode,
        duration_ms: Math.round(performance.now() - startedAt),
      }),
    )
    handle(request, response).catch((error: unknown) => {
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
      options.log?.(`Error: the emulator failed on ${request.method} ${(request.url ?? '').split('?')[0]}: ${(error as Error).message}`)
      sendApiError(response, new ApiError(500, 'The emulator failed while handling this request.'))
    })
  })
  server.requestTimeout = 30_000
  server.headersTimeout = 20_000

  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => reject(listenError(error, host, requestedPort))
    server.once('error', onError)
    server.listen(requestedPort, host, () => {
      server.off('error', onError)
      resolve()
    })
  })
  const port = (server.address() as AddressInfo).port
  // Listening on every interface still means the pages are reached on this machine's loopback.
  addresses.url = emulatorBaseUrl(host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host, port)
  // Transactions loaded from a state file are approved where the emulator listens now.
  for (const {transaction} of store.transactions.values()) transaction.details.approval_url = approvalUrl(addresses.url, transaction.id)

  const stopWork = async () => {
    lifecycle.stop()
    await webhooks.close()
    await new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
  }

  try {
    saveNow()
  } catch (error) {
    await stopWork()
    throw error
  }
  lifecycle.resume()

  let closing: Promise<void> | undefined
  return {
    url: addresses.url,
    proxyUrl: `${addresses.url}${EMULATOR_DEFAULTS.proxyBasePath}`,
    host,
    port,
    apiKey,
    apiKeyHeader,
    proxyKey,
    proxyId,
    paymentProfileId,
    organisation,
    close() {
      closing ??= stopWork().then(() => saveNow())
      return closing
    },
  }
}
