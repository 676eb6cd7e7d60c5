import * as Flags from '@oclif/core/flags'
import type {Interfaces} from '@oclif/core'

import {BaseCommand} from '../../../cli/base-command.js'
import {emulatorUrlFlag, parseEmulatorUrl} from '../../../cli/emulator-url-flag.js'
import {InputError, InputErrors} from '../../../errors.js'
import {type AddedFaults, FAULT_KINDS, type FaultRule, REQUEST_FAULTS, faultRuleSchema} from '../../../emulator/faults/index.js'

/** The flag that sets each field of a rule, for messages about it. */
const FLAG_OF_FIELD: Record<string, string> = {
  fault: '--fault',
  name: '--name',
  times: '--times',
  probability: '--probability',
  method: '--method',
  path: '--path',
  transaction: '--transaction',
  product: '--product',
  amount: '--amount',
  merchant_reference: '--merchant-reference',
  'webhook.status': '--webhook-status',
  status: '--http-status',
  retry_after: '--retry-after',
  message: '--message',
  latency: '--latency',
  delay: '--delay',
  hold_at_most: '--hold-at-most',
}

const REQUEST_ONLY = ['method', 'path'] as const
const WEBHOOK_ONLY = ['webhook-status'] as const

export default class EmulatorFaultsAdd extends BaseCommand<typeof EmulatorFaultsAdd, AddedFaults> {
  static override summary = 'Add a fault rule to the running emulator: break requests or webhooks on purpose.'

  static override description = `Adds one rule built from the flags, or every rule of a fault file (--file), to the emulator the profile points at (a local profile only). Rules are tried in the order they were added; the first that matches, has matches left (--times) and wins its draw (--probability) applies.

Request faults (match with --method, --path, --product, --amount, --merchant-reference, --transaction):
  status     answer --http-status (400-599) with the service's error object, and Retry-After with --retry-after
  latency    wait --latency, then handle the request
  reset      close the connection without an answer
  cut_body   handle the request, send half of the body, close the connection
Webhook faults (match with --transaction, --webhook-status, --product, --amount, --merchant-reference):
  drop          never send it (recorded as dropped, not retried)
  duplicate     send it twice
  out_of_order  hold it back until the transaction's next webhook has been sent (at most --hold-at-most, default 30s)
  delay         send it --delay later

--path and --merchant-reference take * (any run of characters; in --path within one segment, ** across segments). Durations are such as 500ms, 2s, 1m.

EXIT CODES
  0    added
  1    no emulator answered at the profile's address
  2    a flag or the file is not valid, or the profile is not a local one; nothing was sent`

  static override examples = [
    "<%= config.bin %> emulator faults add --fault status --http-status 503 --retry-after 2s --method GET --path '/v1/transaction/*' --times 1",
    "<%= config.bin %> emulator faults add --fault drop --webhook-status SETTLEMENT_REQUESTED --merchant-reference 'order-*'",
    '<%= config.bin %> emulator faults add --fault latency --latency 3s --path /v1/transaction/start --probability 0.2',
    '<%= config.bin %> emulator faults add --file examples/faults.yaml',
  ]

  static override flags = {
    url: emulatorUrlFlag,
    file: Flags.string({summary: 'Add every rule of this fault file (YAML or JSON); its seed, if any, restarts the generator.', exclusive: ['fault']}),
    fault: Flags.string({summary: 'The fault.', options: [...FAULT_KINDS]}),
    name: Flags.string({summary: 'A name for the rule, shown in logs and `faults list`.'}),
    times: Flags.integer({summary: 'Apply to the next N matches only (default: every match).'}),
    probability: Flags.string({summary: 'Apply to each match with this probability, 0 to 1 (seeded: see `emulator start --seed`).'}),
    method: Flags.string({summary: 'Request faults: only this method (GET or POST).'}),
    path: Flags.string({summary: 'Request faults: only paths matching this pattern, e.g. /v1/transaction/*.'}),
    transaction: Flags.string({summary: 'Only requests or webhooks about this transaction id.'}),
    product: Flags.string({summary: 'Only this payment product (card, sofort, dummy).'}),
    amount: Flags.integer({summary: 'Only this amount (minor units).'}),
    'merchant-reference': Flags.string({summary: 'Only merchant references matching this pattern, e.g. order-*.'}),
    'webhook-status': Flags.string({summary: 'Webhook faults: only webhooks announcing this status.'}),
    'http-status': Flags.integer({summary: 'status: the HTTP status to answer with (400-599).'}),
    'retry-after': Flags.string({summary: 'status: send Retry-After (a duration; whole seconds, rounded up).'}),
    message: Flags.string({summary: "status: the error object's message."}),
    latency: Flags.string({summary: 'latency: how long to wait before handling the request.'}),
    delay: Flags.string({summary: 'delay: how much later to send the webhook.'}),
    'hold-at-most': Flags.string({summary: 'out_of_order: send it anyway after this long (default 30s).'}),
  }

  public async run(): Promise<AddedFaults> {
    const options = toFaultsAddOptions(this.flags)
    const {FaultsClient, loadFaultFile} = await import('../../../emulator/faults/index.js')
    this.useEmulatorAt(parseEmulatorUrl(this.flags.url))
    const client = new FaultsClient(this.profile(), this.globals.requestTimeoutMs)
    const {rules, seed} = 'file' in options ? await loadFaultFile(options.file) : {rules: [options.rule], seed: undefined}
    try {
      const added = await client.add(rules, seed)
      const {describeFaultRule} = await import('../../../output/faults.js')
      this.print(added.added.map((view) => `Added fault rule ${describeFaultRule(view)}`).join('\n') || 'The file has no rules; nothing was added.')
      return added
    } finally {
      await client.close()
    }
  }
}

export type FaultsAddFlags = Interfaces.InferredFlags<typeof EmulatorFaultsAdd.flags>

/** The rules to add: those of a fault file (read when the command runs), or one rule from the flags. */
export type FaultsAddOptions = {file: string} | {rule: FaultRule}

/** `emulator faults add`'s flags as the rule to add, checked by the fault schema; each problem names its flag. */
export function toFaultsAddOptions(flags: FaultsAddFlags): FaultsAddOptions {
  return flags.file === undefined ? {rule: ruleFromFlags(flags)} : {file: flags.file}
}

function ruleFromFlags(flags: FaultsAddFlags): FaultRule {
  if (flags.fault === undefined) throw new InputError('Pass --fault (or --file with a fault file).', {flag: '--fault', hint: `Faults: ${FAULT_KINDS.join(', ')}.`})
  const onRequest = (REQUEST_FAULTS as readonly string[]).includes(flags.fault)
  const misplaced = (onRequest ? WEBHOOK_ONLY : REQUEST_ONLY).filter((name) => flags[name] !== undefined)
  if (misplaced.length > 0) {
    throw new InputError(`--${misplaced[0]} does not apply to the ${flags.fault} fault (a ${onRequest ? 'request' : 'webhook'} fault).`, {flag: `--${misplaced[0]}`})
  }
  const defined = (entries: Record<string, unknown>) => Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== undefined))
  const match = defined({
    method: flags.method?.toUpperCase(),
    path: flags.path,
    transaction: flags.transaction,
    product: flags.product,
    amount: flags.amount,
    merchant_reference: flags['merchant-reference'],
    status: flags['webhook-status'],
  })
  const probability = flags.probability === undefined ? undefined : Number(flags.probability)
  const candidate = defined({
    fault: flags.fault,
    name: flags.name,
    times: flags.times,
    probability: Number.isNaN(probability) ? flags.probability : probability,
    [onRequest ? 'request' : 'webhook']: Object.keys(match).length > 0 ? match : undefined,
    status: flags['http-status'],
    retry_after: flags['retry-after'],
    message: flags.message,
    latency: flags.latency,
    delay: flags.delay,
    hold_at_most: flags['hold-at-most'],
  })
  return checkRule(candidate)
}

function checkRule(candidate: Record<string, unknown>): FaultRule {
  const parsed = faultRuleSchema.safeParse(candidate)
  if (parsed.success) return parsed.data
  const problems = parsed.error.issues.map((issue) => {
    const field = issue.path.filter((part) => part !== 'request').join('.')
    const flag = FLAG_OF_FIELD[field] ?? FLAG_OF_FIELD[String(issue.path.at(-1))]
    const value = issue.path.reduce<unknown>((object, key) => (object as Record<PropertyKey, unknown> | undefined)?.[key], candidate)
    const message = value === undefined && (issue.code === 'invalid_type' || issue.code === 'invalid_union') ? `is required for the ${String(candidate.fault)} fault` : issue.message
    return {flag, message: issue.code === 'unrecognized_keys' ? `${issue.keys.map((key) => FLAG_OF_FIELD[key] ?? key).join(', ')} does not apply to the ${String(candidate.fault)} fault` : message}
  })
  throw new InputErrors(problems)
}
