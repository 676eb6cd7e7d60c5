/**
 * A smoke case's `faults:`: emulator fault rules that hold for that case's transaction only.
 * Each rule is scoped by the case's merchant_reference (a unique one is made up when the case
 * sets none), which the emulator finds in the start request and in the stored transaction for
 * its status reads and webhooks; the rules are removed when the case ends, pass or fail.
 */
import {randomBytes} from 'node:crypto'

import {type FaultRule, isRequestFault} from '../emulator/faults/index.js'

/** Adds rules to the emulator the run uses; resolves with the function that removes them again. */
export interface CaseFaults {
  add(rules: FaultRule[]): Promise<() => Promise<void>>
}

/** A merchant_reference no other case or run uses (the rule's pattern matches it and nothing else). */
export function uniqueCaseReference(caseName: string): string {
  return `smoke-${caseName}-${randomBytes(4).toString('hex')}`
}

/** The rule, matching only the transaction with this merchant_reference (`*` in it matches itself and more). */
export function scopeToReference(rule: FaultRule, reference: string): FaultRule {
  if (isRequestFault(rule)) {
    const request = 'request' in rule ? rule.request : undefined
    return {...rule, request: {...request, merchant_reference: reference}} as FaultRule
  }
  const webhook = 'webhook' in rule ? rule.webhook : undefined
  return {...rule, webhook: {...webhook, merchant_reference: reference}} as FaultRule
}
