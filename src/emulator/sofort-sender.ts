/**
 * The `sender` of a sofort transaction once the customer has confirmed at a test bank: the
 * bank's identifiers and a German account with a valid IBAN, derived from the transaction id so
 * that the same transaction always shows the same account.
 */
import {createHash} from 'node:crypto'

import type {SofortSender} from '../api/contract.js'
import type {SofortTestBank} from './outcomes.js'

function ibanCheckDigits(country: string, bban: string): string {
  const digits = `${bban}${country}00`.replace(/[A-Z]/g, (letter) => String(letter.charCodeAt(0) - 55))
  return String(98n - (BigInt(digits) % 97n)).padStart(2, '0')
}

export function sofortSender(bank: SofortTestBank, holder: string, transactionId: string): SofortSender {
  const hash = createHash('sha256').update(transactionId).digest()
  const accountNumber = String(hash.readUInt32BE(0) % 10_000_000_000).padStart(10, '0')
  const bban = `${bank.bank_code}${accountNumber}`
  return {
    country_code: bank.country_code,
    iban: `${bank.country_code}${ibanCheckDigits(bank.country_code, bban)}${bban}`,
    bic: bank.bic,
    bank_name: bank.name,
    bank_code: bank.bank_code,
    account_number: accountNumber,
    holder,
  }
}
