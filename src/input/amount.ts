/**
 * Reading `--amount`: an integer number of minor units greater than 0, as the service wants it.
 * A decimal amount is the usual mistake, so the error shows the minor-unit value to use instead.
 */
import {InputError} from '../api/errors.js'

export function parseAmount(raw: string, flag = '--amount'): number {
  const text = raw.trim()
  if (/^\d+$/.test(text)) {
    const amount = Number(text)
    if (amount <= 0) throw new InputError(`${flag} must be greater than 0 (got "${raw}").`, {flag, hint: 'Give the amount in minor units: 1499 for 14.99 EUR.'})
    if (!Number.isSafeInteger(amount)) throw new InputError(`${flag} is too large (got "${raw}").`, {flag})
    return amount
  }
  const decimal = /^(\d*)[.,](\d{1,2})$/.exec(text)
  if (decimal) {
    const minor = Number(decimal[1] || '0') * 100 + Number(decimal[2].padEnd(2, '0'))
    throw new InputError(`${flag} is in minor units, without a decimal point (got "${raw}").`, {
      flag,
      hint: `Use ${minor} for ${text.replace(',', '.')} EUR (14 means 0.14 EUR).`,
    })
  }
  throw new InputError(`${flag} must be a whole number of minor units greater than 0 (got "${raw}").`, {
    flag,
    hint: 'Use 14 for 0.14 EUR, 1499 for 14.99 EUR.',
  })
}
