/**
 * The rules of a card number, shared by the checks of what is sent (api/schemas.ts, smoke
 * scenarios) and by the redaction that finds card numbers in any text (secrets/redact.ts).
 */

export function luhnValid(pan: string): boolean {
  if (!/^\d{12,19}$/.test(pan)) return false
  let sum = 0
  let double = false
  for (let i = pan.length - 1; i >= 0; i--) {
    let digit = pan.charCodeAt(i) - 48
    if (double) {
      digit *= 2
      if (digit > 9) digit -= 9
    }
    sum += digit
    double = !double
  }
  return sum % 10 === 0
}

/** Card numbers may be typed with spaces or dashes; the service gets digits only. */
export function normalizePan(pan: string): string {
  return pan.replace(/[\s-]/g, '')
}
