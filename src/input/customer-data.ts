/**
 * Reading customer fields from a JSON file (or stdin with `-`): an object of the spec's customer
 * request fields, each a string. Unknown fields are refused by name, so a typo never slips through.
 */
import {readFileSync} from 'node:fs'

import {CUSTOMER_REQUEST_FIELDS, type CustomerRequest} from '../api/contract.js'
import {InputError} from '../api/errors.js'

export function readCustomerData(source: string, stdinText: string, flag: string): CustomerRequest {
  let text: string
  if (source === '-') text = stdinText
  else {
    try {
      text = readFileSync(source, 'utf8')
    } catch (error) {
      throw new InputError(`Cannot read ${source}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}.`, {flag})
    }
  }
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (error) {
    throw new InputError(`${source === '-' ? 'stdin' : source} is not valid JSON (${(error as Error).message}).`, {flag})
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw new InputError(`${source === '-' ? 'stdin' : source} must hold one JSON object of customer fields.`, {flag})
  const problems: string[] = []
  for (const [key, value] of Object.entries(data)) {
    if (!(CUSTOMER_REQUEST_FIELDS as readonly string[]).includes(key)) problems.push(`unknown field "${key}"`)
    else if (typeof value !== 'string') problems.push(`${key} must be a string`)
  }
  if (problems.length > 0) {
    throw new InputError(`${flag}: ${problems.join('; ')}.`, {flag, hint: `Customer fields: ${CUSTOMER_REQUEST_FIELDS.join(', ')}.`})
  }
  return data as CustomerRequest
}
