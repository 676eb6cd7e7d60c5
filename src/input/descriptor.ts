/**
 * Reading `--descriptor`. For sofort the spec's rules apply after the service's own
 * transliteration of umlauts; the transliterated text is what is sent, so what the user sees in
 * warnings is what the bank shows.
 */
import {type Product, SOFORT_DESCRIPTOR_DISPLAYED, sofortDescriptorProblem, transliterateDescriptor} from '../api/contract.js'
import {InputError} from '../api/errors.js'

export interface CheckedDescriptor {
  value: string
  warnings: string[]
}

export function checkDescriptor(product: Product, raw: string, flag = '--descriptor'): CheckedDescriptor {
  if (product !== 'sofort') return {value: raw, warnings: []}
  const problem = sofortDescriptorProblem(raw)
  if (problem) throw new InputError(`${flag} ${problem}.`, {flag, hint: 'sofort descriptors: at most 27 characters of 0-9 a-z A-Z space + . - , (umlauts become ae, oe, ue, ss).'})
  const value = transliterateDescriptor(raw)
  const warnings =
    value.length > SOFORT_DESCRIPTOR_DISPLAYED
      ? [`${flag} is ${value.length} characters long; banks in some countries show only the first ${SOFORT_DESCRIPTOR_DISPLAYED}: "${value.slice(0, SOFORT_DESCRIPTOR_DISPLAYED)}".`]
      : []
  return {value, warnings}
}
