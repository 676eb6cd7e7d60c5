/** What a local server takes as sent by a web page of another site: the browser's own words for it. */
import {describe, expect, it} from 'vitest'

import {crossSiteRequest} from '../../src/http/own-host.js'

const BASE = 'http://127.0.0.1:4020/webhooks'

describe('crossSiteRequest', () => {
  it.each([
    [{origin: 'http://evil.example'}, 'a web page of another site sent it (its Origin is not this address)'],
    [{origin: 'null'}, 'a web page of another site sent it (its Origin is not this address)'],
    [{origin: 'http://127.0.0.1:4021'}, 'a web page of another site sent it (its Origin is not this address)'],
    [{origin: 'http://rebind.example:4020'}, 'a web page of another site sent it (its Origin is not this address)'],
    [{'sec-fetch-site': 'cross-site'}, 'a web page of another site sent it (Sec-Fetch-Site: cross-site)'],
    [{'sec-fetch-site': 'same-site', origin: 'http://127.0.0.1:4020'}, 'a web page of another site sent it (Sec-Fetch-Site: same-site)'],
    [{'sec-fetch-site': 'something\u001b]52;c;new'}, 'a web page sent it (Sec-Fetch-Site is not same-origin)'],
  ])('%j: %s', (headers, reason) => {
    expect(crossSiteRequest(headers, BASE)).toBe(reason)
  })

  it.each([
    [{}],
    [{origin: 'http://127.0.0.1:4020'}],
    [{origin: 'http://localhost:4020', 'sec-fetch-site': 'same-origin'}],
    [{'sec-fetch-site': 'none'}],
  ])('%j: not from another site', (headers) => {
    expect(crossSiteRequest(headers, BASE)).toBeUndefined()
  })
})
