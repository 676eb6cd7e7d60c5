/**
 * How the dashboard is protected on a local emulator: only its own Host, forms POST only with
 * the page's token, and nothing cross-site; values escaped. (test/browser/dashboard.test.ts
 * clicks through it in Chromium.)
 */
import {request as httpRequest} from 'node:http'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js'
import {emulatorApi} from '../../helpers/emulator-api.js'

let emulator: RunningEmulator
let api: ReturnType<typeof emulatorApi>
let id: string

beforeAll(async () => {
  emulator = await startEmulator({port: 0})
  api = emulatorApi(emulator)
  id = (await api.startPayment('dummy', {extra: {merchant_reference: '<script>alert(1)</script>'}})).transaction.id
})
afterAll(() => emulator.close())

const pagePath = () => `/_emulator/dashboard/transactions/${id}`

async function formToken(): Promise<string> {
  const html = await (await fetch(`${emulator.url}${pagePath()}`)).text()
  return /name="token" value="([^"]+)"/.exec(html)![1]
}

const postForm = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(`${emulator.url}${pagePath()}/trigger`, {
    method: 'POST',
    headers: {'content-type': 'application/x-www-form-urlencoded', ...headers},
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  })

/** A GET with a Host header of our choice (fetch does not allow setting it). */
function getWithHost(path: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({host: '127.0.0.1', port: emulator.port, path, headers: {host}}, (response) => {
      response.resume()
      resolve(response.statusCode!)
    })
    request.on('error', reject)
    request.end()
  })
}

describe('the dashboard', () => {
  it('is the root page: HTML, no API key needed, values escaped, never framed', async () => {
    const answer = await fetch(`${emulator.url}/`)
    expect(answer.status).toBe(200)
    expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(answer.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
    const html = await answer.text()
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
    expect(html).not.toContain('<script>')
  })

  it('pages 50 at a time, newest first, with links to older ones and back to the newest', async () => {
    for (let n = 0; n < 50; n++) await api.startPayment('dummy', {extra: {merchant_reference: `paged-${n}`}})
    const rows = (html: string) => [...html.matchAll(/<td data-label="Reference" class="wrap">([^<]*)<\/td>/g)].map((match) => match[1])
    const first = await (await fetch(`${emulator.url}/`)).text()
    expect(rows(first)).toEqual(Array.from({length: 50}, (_, n) => `paged-${49 - n}`))
    expect(first).not.toContain('id="newest"')
    const older = /<a href="([^"]+)" id="older"/.exec(first)![1].replaceAll('&amp;', '&')
    const second = await (await fetch(`${emulator.url}${older}`)).text()
    expect(rows(second)).toEqual(['&lt;script&gt;alert(1)&lt;/script&gt;'])
    expect(second).not.toContain('id="older"')
    expect(second).toContain('<a href="/" id="newest">')
    // A search pages the same way, keeping its words: all 51 have the customer Jane Doe.
    const searched = await (await fetch(`${emulator.url}/?q=jane+doe`)).text()
    expect(rows(searched)).toHaveLength(50)
    const more = /<a href="([^"]+)" id="older"/.exec(searched)![1].replaceAll('&amp;', '&')
    expect(more).toMatch(/^\/\?q=jane\+doe&before=/)
    expect(rows(await (await fetch(`${emulator.url}${more}`)).text())).toEqual(['&lt;script&gt;alert(1)&lt;/script&gt;'])
  })

  it.each([
    ['q=a%00b', 'q'],
    ['q=%00%00%00', 'q'],
    ['q=x%1By', 'q'],
    ['before=%00', 'before'],
  ])('answers a search ?%s with 400 naming the parameter', async (query, name) => {
    const answer = await fetch(`${emulator.url}/?${query}`)
    expect(answer.status).toBe(400)
    expect(await answer.json()).toEqual({
      code: '400',
      message: `The query parameter ${name} is not valid: it must not contain control characters.`,
      details: {[`query.${name}`]: 'must not contain control characters'},
    })
  })

  it('answers only to its own address (no DNS rebinding)', async () => {
    expect(await getWithHost('/', `127.0.0.1:${emulator.port}`)).toBe(200)
    expect(await getWithHost('/', `localhost:${emulator.port}`)).toBe(200)
    expect(await getWithHost('/', `attacker.example:${emulator.port}`)).toBe(403)
    expect(await getWithHost(pagePath(), 'attacker.example')).toBe(403)
  })

  it('takes a form only with the page\'s token, from its own origin, as a form POST', async () => {
    const token = await formToken()
    const refused = [
      await postForm({status: 'DECLINED'}),
      await postForm({status: 'DECLINED', token: 'guessed'}),
      await postForm({status: 'DECLINED', token}, {origin: 'https://attacker.example'}),
      await postForm({status: 'DECLINED', token}, {'sec-fetch-site': 'cross-site'}),
      await fetch(`${emulator.url}${pagePath()}/trigger`, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({status: 'DECLINED', token})}),
    ]
    expect(refused.map((answer) => answer.status)).toEqual([403, 403, 403, 403, 403])
    expect(await refused[1].text()).toContain('reload the page')
    expect((await api.transaction(id)).body.status).toBe('INITIATED')
    expect((await fetch(`${emulator.url}${pagePath()}/trigger`)).status).toBe(405)

    const moved = await postForm({status: 'DECLINED', token}, {origin: emulator.url, 'sec-fetch-site': 'same-origin'})
    expect(moved.status).toBe(303)
    expect(moved.headers.get('location')).toBe(`${pagePath()}?done=trigger`)
    expect((await api.transaction(id)).body.status).toBe('DECLINED')
  })

  it('shows what it refuses on the page, and a notice only from its own words', async () => {
    const token = await formToken()
    const refused = await postForm({status: 'PENDING', token})
    expect(refused.status).toBe(409)
    expect(await refused.text()).toContain('it moves nowhere')
    const resend = await fetch(`${emulator.url}${pagePath()}/resend`, {
      method: 'POST',
      headers: {'content-type': 'application/x-www-form-urlencoded'},
      body: new URLSearchParams({token, which: 'last', to: 'javascript:alert(1)'}).toString(),
    })
    expect(resend.status).toBe(400)
    expect(await resend.text()).toContain('To must be an absolute http(s) address')
    const page = await (await fetch(`${emulator.url}${pagePath()}?done=<b>owned</b>&count=x`)).text()
    expect(page).not.toContain('owned')
    expect((await fetch(`${emulator.url}/_emulator/dashboard/transactions/nope`)).status).toBe(404)
  })
})
