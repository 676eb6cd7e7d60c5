import {describe, expect, it} from 'vitest'

import {isAbsoluteHttpUrl, parseHttpUrl} from '../../src/http/url.js'

describe('isAbsoluteHttpUrl', () => {
  it.each([
    ['http://127.0.0.1:4242/webhooks', true],
    ['https://sandbox.example.com/v1', true],
    ['HTTPS://EXAMPLE.COM', true],
    ['http://[::1]:8080/x?key=a', true],
    ['ftp://example.com/file', false],
    ['file:///etc/passwd', false],
    ['mailto:jane@example.com', false],
    ['javascript:alert(1)', false],
    ['/relative/path', false],
    ['example.com', false],
    ['http://', false],
    ['', false],
  ])('%j → %s', (text, expected) => {
    expect(isAbsoluteHttpUrl(text)).toBe(expected)
  })

  it('gives the parsed URL back for use', () => {
    expect(parseHttpUrl('http://127.0.0.1:4020/webhooks?key=t')?.port).toBe('4020')
    expect(parseHttpUrl('ws://127.0.0.1:4020/')).toBeUndefined()
  })
})
