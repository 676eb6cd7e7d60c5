/**
 * The paying account of a Sofort transaction at a test bank: what the bank page records when the
 * payer confirms, and (without its bank's name) what a new transaction shows before. Part of the
 * record the store keeps, so both its users (the api and pages rooms) find it below them.
 */
import {createHash} from 'node:crypto'

import type {SofortSender, Transaction} from '../../api/schemas.js'
import type {SofortTestBank} from '../../test-mode/outcomes.js'

/** The holder shown in `sender` when the transaction does not name its customer. */
export const SAMPLE_SENDER_HOLDER = 'Max Mustermann'

/**
 * The paying account at the chosen bank. The account number is derived from the transaction id,
 * so the same transaction always shows the same account, and the IBAN carries real check digits.
 */
export function sofortSender(tx: Transaction, bank: SofortTestBank): SofortSender {
  const accountNumber = (BigInt(`0x${createHash('sha256').update(tx.id).digest('hex').slice(0, 15)}`) % 10_000_000_000n)
    .toString()
    .padStart(10, '0')
  const holder = tx.details.sender?.holder
  return {
    country_code: bank.country_code,
    iban: germanIban(bank.bank_code, accountNumber),
    bic: bank.bic,
    bank_name: bank.name,
    bank_code: bank.bank_code,
    account_number: accountNumber,
    holder: typeof holder === 'string' && holder.trim() !== '' ? holder : SAMPLE_SENDER_HOLDER,
  }
}

/** A German IBAN (ISO 13616): DE, two check digits (ISO 7064 mod 97-10), bank code, account. */
export function germanIban(bankCode: string, accountNumber: string): string {
  const bban = `${bankCode.padStart(8, '0')}${accountNumber.padStart(10, '0')}`
  // D = 13, E = 14, then 00 in place of the check digits.
  const remainder = BigInt(`${bban}131400`) % 97n
  const check = (98n - remainder).toString().padStart(2, '0')
  return `DE${check}${bban}`
}
