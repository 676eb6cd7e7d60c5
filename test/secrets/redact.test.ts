import {describe, expect, it} from 'vitest'

import {maskCardNumbers, redactKey, scrubSecrets} from '../../src/secrets/redact.js'

describe('redaction', () => {
  it('shows keys as first four … last four, short keys not at all', () => {
    expect(redactKey('sk_live_51Hx9TqLkd83JfPq02nVbXcR7')).toBe('sk_l…XcR7')
    expect(redactKey('short')).toBe('****')
  })

  it('scrubs keys, PANs and CVVs from free text; a CVV only as a number of its own', () => {
    const text = 'key sk_live_51Hx9TqLkd83JfPq02nVbXcR7 card 4024007108173153 cvv 937 port 49371 amount 9370'
    expect(scrubSecrets(text, ['sk_live_51Hx9TqLkd83JfPq02nVbXcR7', '4024007108173153', '937'])).toBe(
      'key sk_l…XcR7 card •••• 3153 cvv *** port 49371 amount 9370',
    )
  })

  it('masks Luhn-valid card numbers by shape, leaving other long numbers', () => {
    expect(maskCardNumbers('--pan=4024 0071 0817 3153 cannot also be provided')).toBe('--pan=•••• 3153 cannot also be provided')
    expect(maskCardNumbers('proxy id 4024007108173154')).toBe('proxy id 4024007108173154')
  })
})
