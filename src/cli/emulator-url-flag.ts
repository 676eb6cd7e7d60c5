/**
 * `--url`, the flag of the commands that drive a running emulator (`emulator trigger`, `resend`,
 * `faults`): the emulator's address, when it is not the one the local profile points at (an
 * emulator on another port, a CI service). They never start an emulator of their own to answer:
 * one started for the command would read the shared store, not the emulator the user means.
 */
import * as Flags from '@oclif/core/flags'

import {InputError} from '../errors.js'
import {parseHttpUrl} from '../http/url.js'

export const emulatorUrlFlag = Flags.string({
  summary: "The running emulator's address, e.g. http://127.0.0.1:4111 (default: the local profile's).",
  helpValue: '<url>',
})

/** The emulator's base address from --url (http or https, no query), without a trailing slash. */
export function parseEmulatorUrl(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined
  const url = parseHttpUrl(raw.trim())
  if (!url || url.search || url.hash) {
    throw new InputError(`--url must be the emulator's http(s) address, such as http://127.0.0.1:4010 (got "${raw}").`, {flag: '--url'})
  }
  return url.href.replace(/\/+$/, '')
}
