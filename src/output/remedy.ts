/**
 * Remedies (remedy.ts) in words, with the command named as the user typed it. The one place a
 * remedy becomes text: errors on stderr, their `hint` under --json, smoke reports, lookups.
 */
import type {EmulatorSituation, LookUpSituation, ProfileConcern, Remedy} from '../remedy.js'
import {redactUrl} from '../secrets/redact-url.js'

const CHECK_PROFILE: Record<ProfileConcern, (show: string) => string> = {
  'api-key': (show) => `Check the API key of the profile (${show}) or PAYTX_API_KEY, and that the key belongs to this environment.`,
  'id-and-base-url': (show) => `Check the id, and that the profile’s base URL points at the service (${show}).`,
  'base-url': (show) => `Check that the profile’s base URL points at the service (${show}).`,
  'not-a-web-server': (show) => `Check that the profile’s base URL points at the service and not at another web server (${show}).`,
  'not-another-server': (show) => `Check that the profile’s base URL points at the service and not at another server (${show}); run with --verbose to see the answer.`,
  'certificate-host': (show) =>
    `Check that the profile’s address names the service’s own host (${show}). If the service’s certificate comes from your organisation’s own authority, point NODE_EXTRA_CA_CERTS at that authority’s certificate (a PEM file); paytx never skips the check.`,
  scheme: (show) => `The address is probably a plain http:// one: check the scheme of the profile’s base URL (${show}).`,
  addresses: (show) => `Check your network and the profile’s addresses (${show}), then try again.`,
  'emulator-only': (show) => `--approve works against the paytx emulator only; check the profile’s base URL (${show}).`,
}

const LOOK_UP: Record<LookUpSituation, (status: string, id: string) => string> = {
  'service-failed': (status) => `The service failed; the request may still have been processed. Look it up before trying again (${status} for a transaction).`,
  'may-have-reached': (status) => `The request may have reached the service, so it was not sent again. Check what happened before retrying (for a transaction: ${status}; look for your merchant reference).`,
  interrupted: (status) => `Look it up with ${status} (add --wait to wait for its final status).`,
  started: (status, id) => `Transaction ${id} was started; look it up with ${status}.`,
}

const START_EMULATOR: Record<EmulatorSituation, (start: string, remedy: {profile?: string; baseUrl?: string}) => string> = {
  'nothing-listens': (start) => `Start the emulator with ${start}, or pick another profile with --profile.`,
  'not-an-emulator': (start) => `Start one with ${start}, or point the profile at it.`,
  'fault-rules': (start, {profile, baseUrl}) => `Fault rules live in a running emulator: start one with ${start} (profile "${profile}" points at ${baseUrl === undefined ? 'no address' : redactUrl(baseUrl, {asWritten: true})}).`,
  'local-only': (start) => `Then run ${start}.`,
}

/** One remedy as a sentence; `invokedAs` is how the user ran paytx. */
export function remedyText(remedy: Remedy, invokedAs: string): string {
  const run = (args: string) => `\`${invokedAs} ${args}\``
  switch (remedy.kind) {
    case 'start-emulator':
      return START_EMULATOR[remedy.situation ?? 'nothing-listens'](run('emulator start'), remedy)
    case 'check-transaction-id':
      return `Check the id (${run('status <id>')} reads it), and that the profile points at the emulator that has it.`
    case 'check-profile':
      return CHECK_PROFILE[remedy.concern](run('profile show'))
    case 'fix-base-url':
      return `Check it with ${run('profile show')} and set the right one with ${run('profile add <name> --base-url <url>')} or PAYTX_BASE_URL.`
    case 'look-up-transaction':
      return LOOK_UP[remedy.situation](run(`status ${remedy.transactionId ?? '<id>'}`), remedy.transactionId ?? '<id>')
    case 'set-api-key':
      return `Set it with ${run(`profile add ${remedy.profile} --api-key-stdin`)} (or PAYTX_API_KEY for one run).`
    case 'set-profile-values':
      return `Set ${remedy.flags.join(', ')} with ${run(`profile add ${remedy.profile}`)}${remedy.variable ? ` (or ${remedy.variable} for one run)` : ''}.`
    case 'add-profile':
      return `Create it with ${run(`profile add ${remedy.profile}`)}, or pick one of the known profiles with --profile.`
    case 'fix-profile-file':
      return `Fix the file by hand, or move it away and add the profiles again with ${run('profile add')}; paytx leaves ${remedy.path} as it is until then.`
    case 'pipe-values':
      return remedy.flags.length > 1
        ? `Pipe both values, e.g. printf '%s\\n%s\\n' "$A" "$B" | ${invokedAs} ... ${remedy.flags.join(' ')}`
        : `Pipe the value, e.g. printf '%s\\n' "$VALUE" | ${invokedAs} ... ${remedy.flags[0]}`
    case 'pass-scenario-file':
      return `Pass the path of a YAML or JSON scenario file, e.g. ${run('smoke run examples/smoke.yaml')}.`
    case 'pass-saved-webhooks':
      return `Pass a file written by ${run('webhook listen --save <file>')}.`
    case 'fix-customer-data':
      return `Fix the customer file; the fields are those of ${run('customer create')}.`
    case 'see-help':
      return `See ${run(`${remedy.command} --help`)} for every ${remedy.arguments ? 'argument and ' : ''}flag.`
  }
}

/** An error's whole hint: its own words, then each remedy's. */
export function hintText(error: {hint?: string; remedies?: readonly Remedy[]}, invokedAs: string): string | undefined {
  const parts = [error.hint, ...(error.remedies ?? []).map((remedy) => remedyText(remedy, invokedAs))].filter((part): part is string => Boolean(part))
  return parts.length > 0 ? parts.join(' ') : undefined
}
