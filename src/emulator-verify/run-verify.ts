/**
 * `emulator verify`: the probes against the real profile and against a fresh emulator (in this
 * process, in memory, default readings), one after the other on each side, then every answer
 * pair compared. Knows nothing of oclif.
 */
import {HttpClient} from '../api/http-client.js'
import type {Profile} from '../profiles/presets.js'
import {type Difference, type SideAnswer, compareAnswers} from './compare.js'
import {PROBES, type ProbeState} from './probes.js'

export interface ProbeResult {
  probe: string
  title: string
  real?: SideAnswer
  emulator?: SideAnswer
  /** Why the probe was not sent (to either side). */
  skipped?: string
  differences: Difference[]
}

export interface VerifyReport {
  profile: string
  emulator: {url: string; assumptions: Record<string, string>}
  probes: ProbeResult[]
  differences: number
}

interface Side {
  profile: Profile
  http: HttpClient
  state: ProbeState
}

async function ask(side: Side, probe: (typeof PROBES)[number]): Promise<SideAnswer | {skipped: string}> {
  const request = probe.request(side.profile, side.state)
  if ('skipped' in request) return request
  const {answer} = await side.http.exchange(request)
  const body = answer.isJson ? answer.body : undefined
  if (answer.status >= 200 && answer.status < 300) probe.remember?.(body, side.state)
  return {status: answer.status, body}
}

export interface VerifyOptions {
  profileName: string
  profile: Profile
  timeoutMs: number
  secrets: string[]
}

export async function runVerify(options: VerifyOptions): Promise<VerifyReport> {
  const {startEmulator} = await import('../emulator/index.js')
  const emulator = await startEmulator({port: 0, store: ':memory:', lifetime: 'command'})
  const client = () => new HttpClient({timeoutMs: options.timeoutMs, secrets: [...options.secrets, emulator.apiKey, emulator.proxyKey]})
  const real: Side = {profile: options.profile, http: client(), state: {}}
  const local: Side = {
    profile: {
      env: 'local',
      base_url: `${emulator.url}/v1`,
      h2h_url: emulator.proxyUrl,
      proxy_id: emulator.proxyId,
      organisation: emulator.organisation,
      payment_profile: emulator.paymentProfileId,
      api_key_header: emulator.apiKeyHeader,
      api_key: emulator.apiKey,
      proxy_key: emulator.proxyKey,
    },
    http: client(),
    state: {},
  }
  try {
    const probes: ProbeResult[] = []
    for (const probe of PROBES) {
      const [realAnswer, emulatorAnswer] = [await ask(real, probe), await ask(local, probe)]
      const skipped = 'skipped' in realAnswer ? realAnswer.skipped : 'skipped' in emulatorAnswer ? emulatorAnswer.skipped : undefined
      if (skipped) {
        probes.push({probe: probe.name, title: probe.title, skipped, differences: []})
        continue
      }
      const pair = {real: realAnswer as SideAnswer, emulator: emulatorAnswer as SideAnswer}
      probes.push({probe: probe.name, title: probe.title, ...pair, differences: compareAnswers(probe.name, pair.real, pair.emulator)})
    }
    return {
      profile: options.profileName,
      emulator: {url: emulator.url, assumptions: {...emulator.assumptions}},
      probes,
      differences: probes.reduce((total, result) => total + result.differences.length, 0),
    }
  } finally {
    await Promise.allSettled([real.http.destroy(), local.http.destroy()])
    await emulator.close()
  }
}
