/**
 * The client side of `/_emulator/faults`, for `paytx emulator faults` and smoke cases with
 * `faults:`: it talks to the emulator a `local` profile points at, and only to one (any other
 * profile is refused before anything is sent: faults are an emulator's, never a service's).
 * It speaks through the service client's HTTP client, so retries, redaction, timeouts and error
 * messages are those of every other call paytx makes.
 */
import {joinUrl} from '../../api/http-client.js'
import {PaymentService} from '../../api/service.js'
import {InputError, NetworkError} from '../../errors.js'
import type {ResolvedProfile} from '../../profiles/resolve.js'
import type {FaultRuleView} from './fault-rules.js'
import type {FaultRule} from './fault-schema.js'
import {redactUrl} from '../../secrets/redact-url.js'

export interface FaultList {
  seed: number
  rules: FaultRuleView[]
}

export interface AddedFaults {
  seed: number
  added: FaultRuleView[]
}

/** Refuses a profile that is not `local` (exit 2, nothing sent). */
export function requireLocalProfile(resolved: ResolvedProfile, what: string): void {
  if (resolved.profile.env === 'local') return
  throw new InputError(`${what} works on the local emulator only; profile "${resolved.name}" is a ${resolved.profile.env} profile.`, {
    flag: '--profile',
    hint: 'Pass --profile local (or a profile of environment local).',
    remedy: {kind: 'start-emulator', situation: 'local-only'},
  })
}

export class FaultsClient {
  /** Over the service client of a local profile (a smoke run's); closing this client leaves it open. */
  static over(service: PaymentService): FaultsClient {
    return new FaultsClient({name: service.target.profileName, profile: service.target.profile, overrides: []}, {service, owned: false})
  }

  private readonly service: PaymentService
  private readonly ownsService: boolean

  /** For the profile alone (`emulator faults`): a service client of its own, which tries each call once. */
  constructor(
    private readonly resolved: ResolvedProfile,
    timeoutMsOrService: number | {service: PaymentService; owned: false},
  ) {
    requireLocalProfile(resolved, 'Managing fault rules')
    if (typeof timeoutMsOrService === 'number') {
      this.service = new PaymentService({profileName: resolved.name, profile: resolved.profile}, {timeoutMs: timeoutMsOrService, maxTries: 1})
      this.ownsService = true
    } else {
      this.service = timeoutMsOrService.service
      this.ownsService = false
    }
  }

  list(): Promise<FaultList> {
    return this.call<FaultList>('GET')
  }

  add(rules: FaultRule[], seed?: number): Promise<AddedFaults> {
    return this.call<AddedFaults>('POST', '', {rules, ...(seed === undefined ? {} : {seed})})
  }

  /** Removes every rule, or the one with this id. */
  async remove(id?: string): Promise<number> {
    const answer = await this.call<{removed: number}>('DELETE', id === undefined ? '' : `/${encodeURIComponent(id)}`)
    return answer.removed
  }

  async close(): Promise<void> {
    if (this.ownsService) await this.service.close()
  }

  private async call<T>(method: 'GET' | 'POST' | 'DELETE', suffix = '', body?: unknown): Promise<T> {
    const {profile} = this.resolved
    try {
      const response = await this.service.http.request<T>({
        method,
        url: joinUrl(profile.base_url, `/_emulator/faults${suffix}`),
        headers: profile.api_key ? {[profile.api_key_header]: profile.api_key} : {},
        ...(body === undefined ? {} : {body}),
      })
      return response.body
    } catch (error) {
      if (error instanceof NetworkError) {
        error.hint = undefined
        error.remedies.splice(0, error.remedies.length, {kind: 'start-emulator', situation: 'fault-rules', profile: this.resolved.name, baseUrl: redactUrl(profile.base_url, {asWritten: true})})
      }
      throw error
    }
  }
}
