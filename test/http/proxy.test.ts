/**
 * Which requests go through a proxy: the standard variables, read as curl and undici's
 * EnvHttpProxyAgent read them, and loopback never.
 */
import {describe, expect, it} from 'vitest'

import {anyProxy, isLoopbackHost, proxyFor, proxySettingsFromEnv} from '../../src/http/proxy.js'
import {proxyUrl} from '../../src/http/proxied-request.js'

const PROXY = 'http://proxy.corp:3128'

describe('proxySettingsFromEnv', () => {
  it.each([
    [{HTTPS_PROXY: PROXY}, {httpsProxy: PROXY, httpProxy: undefined, noProxy: ''}],
    [{https_proxy: PROXY, HTTPS_PROXY: 'http://upper:1'}, {httpsProxy: PROXY, httpProxy: undefined, noProxy: ''}],
    [{http_proxy: PROXY, NO_PROXY: 'internal.corp'}, {httpsProxy: undefined, httpProxy: PROXY, noProxy: 'internal.corp'}],
    [{HTTP_PROXY: '', no_proxy: '*'}, {httpsProxy: undefined, httpProxy: undefined, noProxy: '*'}],
  ])('%o is read as %o (lower case first, empty is unset)', (env, expected) => {
    expect(proxySettingsFromEnv(env)).toEqual(expected)
  })

  it('anyProxy is true only when a proxy is named (NO_PROXY alone loads nothing)', () => {
    expect(anyProxy(proxySettingsFromEnv({NO_PROXY: 'x'}))).toBe(false)
    expect(anyProxy(proxySettingsFromEnv({http_proxy: PROXY}))).toBe(true)
  })
})

describe('proxyFor', () => {
  it.each([
    // target, HTTPS_PROXY, HTTP_PROXY, NO_PROXY, expected
    ['https://api.paytx.example/v1', PROXY, undefined, '', PROXY],
    ['https://api.paytx.example/v1', undefined, PROXY, '', PROXY],
    ['http://api.paytx.example/v1', PROXY, undefined, '', undefined],
    ['http://api.paytx.example/v1', undefined, PROXY, '', PROXY],
    ['https://api.paytx.example/v1', PROXY, undefined, 'api.paytx.example', undefined],
    ['https://api.paytx.example/v1', PROXY, undefined, 'paytx.example', undefined],
    ['https://api.paytx.example/v1', PROXY, undefined, '.paytx.example', undefined],
    ['https://api.paytx.example/v1', PROXY, undefined, '*.paytx.example', undefined],
    ['https://api.paytx.example/v1', PROXY, undefined, 'other.example, paytx.example', undefined],
    ['https://notpaytx.example/v1', PROXY, undefined, 'paytx.example', PROXY],
    ['https://api.paytx.example/v1', PROXY, undefined, 'api.paytx.example:443', undefined],
    ['https://api.paytx.example:8443/v1', PROXY, undefined, 'api.paytx.example:443', PROXY],
    ['https://api.paytx.example:8443/v1', PROXY, undefined, 'api.paytx.example:8443', undefined],
    ['https://API.Paytx.Example/v1', PROXY, undefined, 'api.paytx.example', undefined],
    ['https://api.paytx.example/v1', PROXY, undefined, '*', undefined],
    ['https://10.0.0.5/v1', PROXY, undefined, '10.0.0.5', undefined],
    ['http://127.0.0.1:4010/v1', PROXY, PROXY, '', undefined],
    ['http://127.8.9.10:4010/v1', PROXY, PROXY, '', undefined],
    ['http://localhost:4010/v1', PROXY, PROXY, '', undefined],
    ['http://[::1]:4010/v1', PROXY, PROXY, '', undefined],
  ])('%s with HTTPS_PROXY=%s HTTP_PROXY=%s NO_PROXY=%j goes through %s', (target, httpsProxy, httpProxy, noProxy, expected) => {
    expect(proxyFor(new URL(target), {httpsProxy, httpProxy, noProxy})).toBe(expected)
  })
})

describe('isLoopbackHost', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.255.0.3', true],
    ['::1', true],
    ['[::1]', true],
    ['localhost', true],
    ['app.localhost', true],
    ['128.0.0.1', false],
    ['localhost.example.com', false],
    ['10.0.0.1', false],
  ])('%s: %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected)
  })
})

describe('proxyUrl', () => {
  it.each([
    ['http://proxy.corp:3128', 'http://proxy.corp:3128/'],
    ['proxy.corp:3128', 'http://proxy.corp:3128/'],
    ['https://u:p@proxy.corp', 'https://u:p@proxy.corp/'],
    ['socks5://proxy.corp:1080', undefined],
    ['http://', undefined],
  ])('%s is %s', (written, expected) => {
    expect(proxyUrl(written)?.href).toBe(expected)
  })
})
