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
})
