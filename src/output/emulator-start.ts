/**
 * `emulator start`'s events (EmulatorRunEvent) drawn for people (a summary table, then a line per
 * request, status change and webhook attempt) or as NDJSON under --json (`listening`, one object
 * per event, `stopped`).
 */
import {DEFAULT_API_KEY_HEADER, PROXY_KEY_HEADER} from '../api/contract.js'
import {formatExactDuration} from '../duration.js'
import {type EmulatorOptions, type EmulatorRunEvent, type RunningEmulator, formatEvent} from '../emulator/index.js'
import {EMULATOR_DEFAULTS} from '../test-mode/emulator-defaults.js'
import {visibleLines} from '../terminal/visible-text.js'
import {redactUrl} from '../secrets/redact-url.js'
import {table} from './table.js'
import {visibleLength, wrapHanging} from './wrap.js'

export interface EmulatorStartRendererOptions {
  json: boolean
  /** One line on stdout. */
  write: (line: string) => void
  /** A line on stderr. */
  note: (text: string) => void
  warn: (text: string) => void
  /** How the user ran paytx, for the commands the summary names. */
  invokedAs: string
  /**
   * The terminal's width when stdout is one (output/wrap.ts lineWidth): log lines then show the
   * time of day alone and wrap between words under their text. Undefined in a pipe or a file:
   * each line whole, with its full timestamp.
   */
  width?: number
}

/** The time of day (HH:MM:SS, local) of an ISO timestamp: what a person watching the log needs. */
export function shortTime(iso: string): string {
  const time = new Date(iso)
  if (Number.isNaN(time.getTime())) return iso
  return [time.getHours(), time.getMinutes(), time.getSeconds()].map((part) => String(part).padStart(2, '0')).join(':')
}

/** One log line for a person at a terminal: the time of day, then the text, wrapped with a hanging indent under the text. */
export function terminalLogLines(line: string, time: string, width: number): string[] {
  const short = shortTime(time)
  const text = line.startsWith(time) ? `${short}${line.slice(time.length)}` : line
  // Continuations line up under the text; when a word (an id, an address) would not fit there, they start near the edge instead.
  const under = short.length + 2
  const longest = Math.max(...text.split(' ').map((word) => visibleLength(word)))
  return wrapHanging(text, width, under + longest < width ? under : 2)
}

/** The --json `listening` object: every address, id, key and setting a script needs. */
export function listeningJson(emulator: RunningEmulator, options: EmulatorOptions): Record<string, unknown> {
  return {
    event: 'listening',
    url: emulator.url,
    public_url: emulator.publicUrl ?? null,
    proxy_url: emulator.proxyUrl,
    dashboard_url: emulator.dashboardUrl,
    host: emulator.host,
    port: emulator.port,
    proxy_id: emulator.proxyId,
    payment_profile: emulator.paymentProfileId,
    organisation: emulator.organisation,
    api_key_header: emulator.apiKeyHeader,
    api_key: emulator.apiKey,
    proxy_key: emulator.proxyKey,
    webhook_url: options.webhookUrl ?? null,
    settle_after_ms: options.settleAfterMs,
    pending_for_ms: options.pendingForMs,
    abandon_after_ms: options.abandonAfterMs,
    webhook_attempts: options.webhookAttempts,
    webhook_payload: emulator.assumptions.webhookPayload,
    id_keys: emulator.assumptions.idKeys,
    card_record: emulator.assumptions.cardRecord,
    store: emulator.store,
    faults: options.faults?.rules.length ?? 0,
    fault_seed: emulator.faultSeed,
    organisations: options.organisations ?? [],
    payment_profiles: (options.paymentProfiles ?? []).map((profile) => ({id: profile.id, webhook_url: profile.webhookUrl ?? null})),
  }
}

function faultCount(options: EmulatorOptions): string {
  const count = options.faults?.rules.length ?? 0
  return count === 0 ? 'none' : `${count} rule${count === 1 ? '' : 's'} from the fault file`
}

/** The summary for people: addresses, ids, keys, timing, store, assumptions and faults. */
export function renderListening(emulator: RunningEmulator, options: EmulatorOptions, invokedAs: string, width?: number): string {
  const accepts = [
    ...(options.organisations?.length ? [['Also accepts', `organisation ${options.organisations.join(', ')}`] as [string, string]] : []),
    ...(options.paymentProfiles ?? []).map((profile): [string, string] => ['Also accepts', `payment profile ${profile.id}${profile.webhookUrl ? `  (webhooks to ${redactUrl(profile.webhookUrl, {asWritten: true})})` : ''}`]),
  ]
  const {assumptions} = emulator
  const rows: [string, string][] = [
    ['API', `${emulator.url}  (paths under /v1)`],
    ...(emulator.publicUrl ? [['Public URL', `${emulator.publicUrl}  (approval pages and the dashboard are reached there too)`] as [string, string]] : []),
    ['Card proxy', `${emulator.proxyUrl}  (proxy id ${emulator.proxyId})`],
    ['Dashboard', `${emulator.dashboardUrl}  (transactions, timelines, webhooks; trigger and resend)`],
    ['Payment profile', `${emulator.paymentProfileId}  (default; webhooks to ${options.webhookUrl ? redactUrl(options.webhookUrl, {asWritten: true}) : 'none set'})`],
    ['Organisation', emulator.organisation],
    ...accepts,
    ['API key', `${emulator.apiKeyHeader}: ${emulator.apiKey}`],
    ['Proxy key', `${PROXY_KEY_HEADER}: ${emulator.proxyKey}`],
    ['Timing', `settles after ${formatExactDuration(options.settleAfterMs!)}, pending for ${formatExactDuration(options.pendingForMs!)}, abandoned after ${formatExactDuration(options.abandonAfterMs!)}`],
    ['Store', emulator.store === ':memory:' ? 'in memory (lost on exit)' : emulator.store],
    ['Assumes', `webhook payload ${assumptions.webhookPayload}, id keys ${assumptions.idKeys}, card record ${assumptions.cardRecord}  (${invokedAs} emulator assumptions)`],
    ['Faults', `${faultCount(options)} (seed ${emulator.faultSeed}; add more: ${invokedAs} emulator faults add)`],
  ]
  // On a terminal (width) each value wraps between words under itself; an address or a key too long stands whole on its own line.
  return [...wrapHanging('paytx emulator is listening (the keys are emulator test keys)', width, 2), table(rows, {indent: '  ', width})].join('\n')
}

/** Whether the built-in `local` profile reaches this emulator as it is. */
export function matchesLocalProfile(emulator: RunningEmulator): boolean {
  return (
    emulator.port === EMULATOR_DEFAULTS.port &&
    emulator.host === EMULATOR_DEFAULTS.host &&
    emulator.apiKey === EMULATOR_DEFAULTS.apiKey &&
    emulator.apiKeyHeader === DEFAULT_API_KEY_HEADER &&
    emulator.proxyKey === EMULATOR_DEFAULTS.proxyKey &&
    emulator.proxyId === EMULATOR_DEFAULTS.proxyId
  )
}

/** How to point commands at this emulator: the local profile as it is, or the variables to paste. */
export function renderPointing(emulator: RunningEmulator, invokedAs: string): string {
  if (matchesLocalProfile(emulator)) return `The built-in "local" profile points here: try \`${invokedAs} customer create --help\`.`
  return [
    'The built-in "local" profile expects the defaults; point commands here by pasting:',
    `  export PAYTX_BASE_URL=${emulator.url}`,
    `  export PAYTX_H2H_URL=${emulator.proxyUrl}`,
    `  export PAYTX_API_KEY=${emulator.apiKey}`,
    `  export PAYTX_PROXY_KEY=${emulator.proxyKey}`,
  ].join('\n')
}

/** One function that draws every event of a run. */
const OWNER_GONE_WORDS = {'parent-exited': 'the program that started it exited', 'stdin-closed': 'stdin closed'} as const

export function emulatorStartRenderer(options: EmulatorStartRendererOptions): (event: EmulatorRunEvent) => void {
  const {json, write, note, warn, invokedAs} = options
  return (event) => {
    switch (event.kind) {
      case 'listening': {
        const {emulator} = event
        write(json ? JSON.stringify(listeningJson(emulator, event.options)) : visibleLines(renderListening(emulator, event.options, invokedAs, options.width)))
        note(renderPointing(emulator, invokedAs))
        if (!['127.0.0.1', 'localhost', '::1'].includes(emulator.host)) warn(`listening on ${emulator.host}: other machines may reach the emulator, and its keys are public test keys.`)
        return note('Press Ctrl-C to stop.')
      }
      case 'activity': {
        if (json) return write(JSON.stringify(event.event))
        const line = visibleLines(formatEvent(event.event))
        if (options.width === undefined) return write(line)
        for (const part of terminalLogLines(line, event.event.time, options.width)) write(part)
        return
      }
      case 'warning':
        // Warnings are for people, with or without --json: stderr, never between the log lines on stdout.
        return note(visibleLines(event.line))
      case 'stopped': {
        if (json) return write(JSON.stringify({event: 'stopped', ...(event.signal ? {signal: event.signal} : {}), ...(event.ownerGone ? {reason: event.ownerGone} : {})}))
        const why = event.ownerGone ? OWNER_GONE_WORDS[event.ownerGone] : event.signal
        // Ctrl-C at a terminal echoed `^C` after the last line: the words start a line of their own.
        const after = event.signal === 'SIGINT' && options.width !== undefined ? '\n' : ''
        return note(`${after}Stopped (${why}).${event.store === ':memory:' ? '' : ` The state is kept in ${event.store}.`}`)
      }
    }
  }
}
