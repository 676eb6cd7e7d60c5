import {describe, expect, it} from 'vitest'

import {redactUrl} from '../../src/secrets/redact-url.js'

describe('redactUrl', () => {
  it.each([
    ['http://127.0.0.1:4020/webhooks?key=s3cr3tT0ken', 'http://127.0.0.1:4020/webhooks?key=…'],
    ['https://user:hunter2@shop.example/hooks', 'https://user:…@shop.example/hooks'],
    ['https://shop.example/hooks/AbCdEf0123456789GhIjKlMn', 'https://shop.example/hooks/…'],
    ['https://shop.example/v1/transaction/9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c', 'https://shop.example/v1/transaction/9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c'],
    ['https://shop.example/webhooks/transaction-update-handler', 'https://shop.example/webhooks/transaction-update-handler'],
    // A random token may happen to hold no digit: mixed case gives it away.
    ['https://a.trycloudflare.com/flow/zNOBAQtxLpeHdyotnUiEbNjZ/webhook', 'https://a.trycloudflare.com/flow/…/webhook'],
    ['https://shop.example/hooks/4f1c9a2e7b3d4c5e6f708192a3b4c5d6', 'https://shop.example/hooks/…'],
    ['https://a.trycloudflare.com/webhooks?key=abc&x=1', 'https://a.trycloudflare.com/webhooks?key=…&x=…'],
    ['not a url', 'not a url'],
  ])('%s -> %s', (input, shown) => {
    expect(redactUrl(input)).toBe(shown)
  })

  // Each of these was shown whole: the redaction gave back any text it could not parse.
  it.each([
    ['a port out of range', 'http://puser:SECRET@127.0.0.1:99999', 'http://puser:…@127.0.0.1:99999'],
    ['an unclosed IPv6 bracket', 'http://puser:SECRET@[::1', 'http://puser:…@[::1'],
    ['no scheme (curl reads it as http://)', 'puser:SECRET@127.0.0.1:8080', 'puser:…@127.0.0.1:8080'],
    ['a password holding / and # unencoded', 'http://puser:SE/CR#ET@proxy.example:3128', 'http://puser:…@proxy.example:3128'],
    ['a query and a fragment after a bad port', 'http://h.example:99999/v1?key=SECRET&a=b#token=SECRET', 'http://h.example:99999/v1?key=…&a=…#token=…'],
    ['a token as the path after a bad port', 'http://h.example:99999/hooks/AbCdEf0123456789GhIjKlMn', 'http://h.example:99999/hooks/…'],
    ['a token as the user name, unparseable', 'http://ghp_SECRETtoken0123456789@[::1', 'http://…@[::1'],
  ])('text that does not parse: %s', (_, input, shown) => {
    expect(redactUrl(input)).toBe(shown)
    expect(redactUrl(input)).not.toMatch(/SECRET/)
  })

  it.each([
    // A user name alone is how a token rides in a URL (`https://<token>@host`).
    ['a user name alone', 'http://SECRETtoken@127.0.0.1:8080', 'http://…@127.0.0.1:8080/'],
    ['a token-like user name before a password', 'https://AbCdEf0123456789GhIjKlMn:x@proxy.example', 'https://…:…@proxy.example/'],
    ['a fragment holding a token', 'https://shop.example/return#access_token=SECRET', 'https://shop.example/return#access_token=…'],
    ['a profile URL with credentials and a key', 'https://api:SECRET@sandbox.example/v1?key=SECRET', 'https://api:…@sandbox.example/v1?key=…'],
  ])('credentials outside the password: %s', (_, input, shown) => {
    expect(redactUrl(input)).toBe(shown)
    expect(redactUrl(new URL(input))).toBe(shown)
  })

  it('asWritten: an address with nothing to hide comes back as it was typed; one with something is redacted', () => {
    expect(redactUrl('https://API.example.com', {asWritten: true})).toBe('https://API.example.com')
    expect(redactUrl('https://API.example.com')).toBe('https://api.example.com/')
    expect(redactUrl('https://u:pw@API.example.com', {asWritten: true})).toBe('https://u:…@api.example.com/')
    expect(redactUrl('http://u:pw@h:99999', {asWritten: true})).toBe('http://u:…@h:99999')
  })
})
