/**
 * The client side of `/_emulator/faults`, for `paytx emulator faults` and smoke cases with
 * `faults:`: it talks to the emulator a `local` profile points at, and only to one (any other
 * profile is refused before anything is sent: faults are an emulator's, never a service's).
 */
import {HttpClient, joinUrl} from '../../api/http-client.js'
import {InputError, NetworkError} from '../../errors.js'
import type {ResolvedProfile} from '../../profiles/resolve.js'
import type {FaultRuleView} from './fault-rules.js'
import type {FaultRule} from './fault-schema.js'
import {commandLine} from '../../terminal/invoked-name.js'

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
    hint: `Pass --profile local (or a profile of environment local) and run \`${commandLine('emulator start')}\`.`,
  })
}

export class FaultsClient {
  private readonly http: HttpClient

  constructor(
    private readonly resolved: ResolvedProfile,
    timeoutMs: number,
  ) {
    requireLocalProfile(resolved, 'Managing fault rules')
    this.http = new HttpClient({timeoutMs, maxTries: 1, secretHeaderNames: [resolved.profile.api_key_header], secrets: [resolved.profile.api_key]})
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

  close(): Promise<void> {
    return this.http.close()
  }

  private async call<T>(method: 'GET' | 'POST' | 'DELETE', suffix = '', body?: unknown): Promise<T> {
    const {profile} = this.resolved
    try {
      const response = await this.http.request<T>({
        method,
        url: joinUrl(profile.base_url, `/_emulator/faults${suffix}`),
        headers: profile.api_key ? {[profile.api_key_header]: profile.api_key} : {},
        ...(body === undefined ? {} : {body}),
      })
      return response.body
    } catch (error) {
      if (error instanceof NetworkError) {
        error.hint = `Fault rules live in a running emulator: start one with \`${commandLine('emulator start')}\` (profile "${this.resolved.name}" points at ${profile.base_url}).`
      }
      throw error
    }
  }
}
