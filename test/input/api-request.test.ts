import {describe, expect, it} from 'vitest'

import {type ApiFlags, type ApiInputSources, checkEndpoint, endpointUrl, toApiOptions} from '../../src/input/api-request.js'

const files: Record<string, string> = {'note.txt': 'line one\n', 'body.json': '{"amount": 500,\n "reason": "x"}'}
const sources = (stdin = ''): ApiInputSources => ({
  readStdin: async () => stdin,
  readFile: async (path) => {
    if (path in files) return files[path]
    throw Object.assign(new Error(`ENOENT: no such file, open '${path}'`), {code: 'ENOENT'})
  },
})
const parse = (flags: Partial<ApiFlags>, stdin?: string) => toApiOptions({path: '/v1/transaction/1', ...flags}, sources(stdin))

describe('toApiOptions', () => {
  it.each<[string, Partial<ApiFlags>, Record<string, unknown>]>([
    ['a bare path is a GET of the API', {}, {method: 'GET', target: 'api', endpoint: '/v1/transaction/1', query: [], headers: {}, include: false, yes: false}],
    ['fields make it a POST with a JSON body', {'raw-field': ['reason=refund']}, {method: 'POST', body: {reason: 'refund'}, query: []}],
    ['--input makes it a POST with the text as is', {input: 'body.json'}, {method: 'POST', rawBody: files['body.json'], body: undefined}],
    ['-X sets the method, in any case', {method: 'delete'}, {method: 'DELETE', body: undefined}],
    ['fields of a GET go to the query, as typed', {method: 'GET', 'raw-field': ['status=PENDING'], field: ['limit=10', 'a[b]=true']}, {query: [['status', 'PENDING'], ['limit', '10'], ['a[b]', 'true']], body: undefined}],
    ['fields with --input go to the query', {input: '-', field: ['dry=true']}, {method: 'POST', query: [['dry', 'true']], rawBody: '{"a":1}'}],
    ['a path without a leading slash gets one', {path: 'transaction/1/refund'}, {endpoint: '/transaction/1/refund'}],
    ['an absolute URL is kept for the host check', {path: 'http://127.0.0.1:9/v1/x?y=1'}, {endpoint: 'http://127.0.0.1:9/v1/x?y=1'}],
    ['--h2h targets the card proxy', {h2h: true, path: '/tokenize/proxy/1'}, {target: 'h2h', endpoint: '/tokenize/proxy/1'}],
    ['headers: names in lower case, value after the first colon', {header: ['X-Trace: a:b', 'Idempotency-Key:k1']}, {headers: {'x-trace': 'a:b', 'idempotency-key': 'k1'}}],
    ['--include and --yes', {include: true, yes: true}, {include: true, yes: true}],
  ])('%s', async (_, flags, expected) => {
    expect(await parse(flags, '{"a":1}')).toMatchObject(expected)
  })

  it.each<[string, string[], string[], Record<string, unknown>]>([
    ['-f keeps strings', ['n=10', 'b=true', 'z=null'], [], {n: '10', b: 'true', z: 'null'}],
    ['-F types true, false, null and integers', [], ['n=10', 'neg=-3', 'b=true', 'f=false', 'z=null'], {n: 10, neg: -3, b: true, f: false, z: null}],
    ['-F leaves decimals, big numbers and words as strings', [], ['d=14.99', 'big=12345678901234567890', 'w=yes', 'lead=007'], {d: '14.99', big: '12345678901234567890', w: 'yes', lead: '007'}],
    ['-F @file reads the file as text', [], ['note=@note.txt'], {note: 'line one\n'}],
    ['-F @- reads stdin', [], ['note=@-'], {note: 'from stdin'}],
    ['a value may hold =', ['q=a=b'], [], {q: 'a=b'}],
    ['nested keys make objects', ['details[redirect_url]=https://x', 'details[meta][k]=v'], ['amount=1'], {amount: 1, details: {redirect_url: 'https://x', meta: {k: 'v'}}}],
    ['a[] appends to a list', ['tags[]=a', 'tags[]=b'], [], {tags: ['a', 'b']}],
    ['a[][k] fills objects of a list; a repeated key starts the next', ['items[][name]=x', 'items[][qty]=1', 'items[][name]=y'], [], {items: [{name: 'x', qty: '1'}, {name: 'y'}]}],
  ])('%s', async (_, raw, typed, body) => {
    expect((await parse({'raw-field': raw, field: typed}, 'from stdin')).body).toEqual(body)
  })

  it.each<[string, Partial<ApiFlags>, RegExp]>([
    ['an unknown method', {method: 'FETCH'}, /-X\/--method must be one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS \(got "FETCH"\)/],
    ['a field without =', {'raw-field': ['amount']}, /-f\/--raw-field "amount" must be key=value/],
    ['a field with an empty key', {field: ['=1']}, /-F\/--field "=1" must be key=value/],
    ['a field key with broken brackets', {field: ['a[b=1']}, /must be key=value/],
    ['a field given twice', {'raw-field': ['a=1', 'a=2']}, /-f\/--raw-field a: "a" is given twice/],
    ['a value and fields under one key', {'raw-field': ['a=1', 'a[b]=2']}, /"a" is already given as the value "1"; it cannot also hold fields/],
    ['a list and fields under one key', {'raw-field': ['a[]=1', 'a[b]=2']}, /"a" is already given as a list; it cannot also hold fields/],
    ['a missing @file', {field: ['note=@missing.txt']}, /-F\/--field note: cannot read missing.txt: no such file/],
    ['--input that is not JSON', {input: 'note.txt'}, /--input: note.txt is not valid JSON/],
    ['--input that is empty', {input: '-'}, /--input: stdin is empty/],
    ['--input with a GET', {input: 'body.json', method: 'GET'}, /--input sends a body, and a GET request has none/],
    ['stdin read twice', {input: '-', field: ['a=@-']}, /stdin can be read only once, but --input - and -F a=@- both read it/],
    ['--include with --json', {include: true, json: true}, /--include and --json cannot be used together/],
    ['a header without a colon', {header: ['X-Trace a']}, /-H\/--header "X-Trace a" must be "Name: value"/],
    ['a Host header', {header: ['Host: evil.example']}, /paytx sets Host itself/],
    ['a header value with a DEL character', {header: ['X-Trace: a\u007Fb']}, /-H\/--header X-Trace: the value holds DEL \(U\+007F\) at position 2, which an HTTP header cannot carry/],
  ])('refuses %s (exit 2)', async (_, flags, message) => {
    await expect(parse(flags)).rejects.toMatchObject({exitCode: 2, message: expect.stringMatching(message)})
  })
})

describe('checkEndpoint', () => {
  it.each([
    ['//evil.example/x', /starts with \/\/, which names another host/],
    ['/v1/../admin', /contains a \. or \.\. segment/],
    ['/v1/%2e%2e/admin', /contains a \. or \.\. segment/],
    ['/v1/%2E%2E', /contains a \. or \.\. segment/],
    ['http://127.0.0.1:9/v1/../x', /contains a \. or \.\. segment/],
    ['transaction/./1', /contains a \. or \.\. segment/],
    ['/v1\\..\\x', /backslashes/],
    ['/v1/transaction 1', /spaces/],
    ['/v1/x#frag', /fragment/],
    ['javascript:alert(1)', /neither a path nor an http\(s\) URL/],
    ['file:///etc/passwd', /neither a path nor an http\(s\) URL/],
    ['', /is empty/],
  ])('refuses %j', (path, message) => {
    expect(() => checkEndpoint(path)).toThrow(message)
  })
})

describe('endpointUrl', () => {
  it.each<[string, string, 'api' | 'h2h', string]>([
    ['https://api.example.com/v1', '/v1/transaction/1', 'api', 'https://api.example.com/v1/transaction/1'],
    ['https://api.example.com/v1', '/transaction/1', 'api', 'https://api.example.com/v1/transaction/1'],
    ['https://api.example.com', '/transaction/1', 'api', 'https://api.example.com/v1/transaction/1'],
    ['https://api.example.com', '/v1/transaction/1', 'api', 'https://api.example.com/v1/transaction/1'],
    ['https://api.example.com/v1/', '/v1', 'api', 'https://api.example.com/v1'],
    ['https://host.example/api/v1', '/transaction/1', 'api', 'https://host.example/api/v1/transaction/1'],
    ['https://host.example/api/v1', 'https://host.example/api/v1/x?a=1', 'api', 'https://host.example/api/v1/x?a=1'],
    ['https://proxy.example/h2h', '/tokenize/proxy/1', 'h2h', 'https://proxy.example/h2h/tokenize/proxy/1'],
    ['http://127.0.0.1:4010', '/%2F%2Fevil.example', 'api', 'http://127.0.0.1:4010/v1/%2F%2Fevil.example'],
  ])('%s + %s (%s) is %s', (base, endpoint, target, url) => {
    expect(endpointUrl(base, endpoint, {target})).toBe(url)
  })

  it('adds query fields to the URL', () => {
    expect(endpointUrl('https://api.example.com/v1', '/transaction?x=1', {target: 'api', query: [['status', 'PENDING'], ['a[b]', 'c d']]})).toBe(
      'https://api.example.com/v1/transaction?x=1&status=PENDING&a%5Bb%5D=c+d',
    )
  })

  it.each([
    ['https://api.example.com/v1', 'https://evil.example/v1/x', /is on https:\/\/evil\.example, not on the profile’s host https:\/\/api\.example\.com/],
    ['https://api.example.com/v1', 'http://api.example.com/v1/x', /is on http:\/\/api\.example\.com, not on the profile’s host/],
    ['https://api.example.com/v1', 'https://api.example.com:8443/v1/x', /not on the profile’s host/],
    ['https://host.example/api/v1', 'https://host.example/admin', /outside the profile’s base path \/api/],
  ])('keeps %s’s key on its host: refuses %s', (base, endpoint, message) => {
    expect(() => endpointUrl(base, endpoint, {target: 'api'})).toThrow(message)
  })
})
