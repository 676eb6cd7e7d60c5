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

describe('NO_PROXY forms (docs/cli.md, as curl reads them)', () => {
  // The example docs/cli.md showed, `*` last: it was read as a host named "*".
  const DOCS_EXAMPLE = '.internal.example.com,10.0.0.5,hooks.example.com:8080,*'
  it.each([
    // NO_PROXY, target, reached directly?
    ['*', 'https://api.paytx.example/v1', true],
    [DOCS_EXAMPLE, 'https://api.paytx.example/v1', true],
    ['.internal.example.com,10.0.0.0/8,hooks.example.com:8080', 'https://db.internal.example.com/v1', true],
    ['.internal.example.com,10.0.0.0/8,hooks.example.com:8080', 'https://10.1.2.3/v1', true],
    ['.internal.example.com,10.0.0.0/8,hooks.example.com:8080', 'https://api.paytx.example/v1', false],
    ['other.example,*', 'https://api.paytx.example/v1', true],
    ['other.example, *', 'https://api.paytx.example/v1', true],
    ['other.example *', 'https://api.paytx.example/v1', true],
    ['*.other.example', 'https://api.paytx.example/v1', false],
    ['paytx.example', 'https://api.paytx.example/v1', true],
    ['.paytx.example', 'https://api.paytx.example/v1', true],
    ['.paytx.example', 'https://paytx.example/v1', true],
    ['*.paytx.example', 'https://deep.api.paytx.example/v1', true],
    ['paytx.example', 'https://notpaytx.example/v1', false],
    ['PAYTX.Example', 'https://Api.PAYTX.example/v1', true],
    // A trailing dot is the same name, on either side.
    ['paytx.example.', 'https://api.paytx.example/v1', true],
    ['paytx.example', 'https://api.paytx.example./v1', true],
    ['.paytx.example.', 'https://api.paytx.example./v1', true],
    ['api.paytx.example.:443', 'https://api.paytx.example./v1', true],
    ['api.paytx.example:443', 'https://api.paytx.example/v1', true],
    ['api.paytx.example:443', 'https://api.paytx.example:8443/v1', false],
    ['hooks.example.com:8080', 'http://hooks.example.com:8080/in', true],
    ['hooks.example.com:8080', 'http://hooks.example.com/in', false],
    // IP addresses, CIDR blocks (curl 7.86+), IPv6 with and without brackets and ports.
    ['10.0.0.5', 'https://10.0.0.5/v1', true],
    ['10.0.0.5', 'https://10.0.0.50/v1', false],
    ['0.0.5', 'https://10.0.0.5/v1', false],
    ['10.0.0.0/8', 'https://10.200.3.4/v1', true],
    ['10.0.0.0/8', 'https://11.0.0.1/v1', false],
    ['192.168.0.0/16:8443', 'https://192.168.7.7:8443/v1', true],
    ['192.168.0.0/16:8443', 'https://192.168.7.7/v1', false],
    ['10.0.0.0/33', 'https://10.0.0.1/v1', false],
    ['paytx.example/16', 'https://api.paytx.example/v1', false],
    ['fd00::/8', 'https://[fd12::1]/v1', true],
    ['fd00::/8', 'https://[fe80::1]/v1', false],
    ['2001:db8::5', 'https://[2001:db8:0:0::5]/v1', true],
    ['[2001:db8::5]', 'https://[2001:db8::5]/v1', true],
    ['[2001:db8::5]:8443', 'https://[2001:db8::5]:8443/v1', true],
    ['[2001:db8::5]:8443', 'https://[2001:db8::5]/v1', false],
    ['', 'https://api.paytx.example/v1', false],
    [' , ,', 'https://api.paytx.example/v1', false],
  ])('NO_PROXY=%j: %s is reached directly: %s', (noProxy, target, direct) => {
    expect(proxyFor(new URL(target), {httpsProxy: PROXY, httpProxy: PROXY, noProxy})).toBe(direct ? undefined : PROXY)
  })

  it('never proxies loopback, also written with a trailing dot', () => {
    expect(proxyFor(new URL('http://localhost.:4010/v1'), {httpsProxy: PROXY, httpProxy: PROXY, noProxy: ''})).toBeUndefined()
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
