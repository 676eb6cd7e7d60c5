/**
 * The names a local server answers to, and the requests a web page of another site sends it. A
 * web page the developer visits can make the browser send requests to 127.0.0.1 under a name of
 * its own (DNS rebinding); such a request carries that name in its Host header, so a server on
 * loopback answers only requests that name it. A page can also post to 127.0.0.1 directly (a
 * `text/plain` form or fetch needs no CORS permission to be sent); the browser then says where it
 * came from in `Origin` and `Sec-Fetch-Site`, which a server-to-server request never carries.
 */
import type {IncomingHttpHeaders} from 'node:http'

/**
 * The Host values that name the server at `baseUrl` on this machine: its own, and localhost,
 * 127.0.0.1 and [::1] at its port. A server reached at other addresses too (a public address
 * behind a port mapping or a compose service name) is named by each of theirs as well.
 */
export function ownHostNames(baseUrls: string | readonly string[]): Set<string> {
  const names = new Set<string>()
  for (const baseUrl of typeof baseUrls === 'string' ? [baseUrls] : baseUrls) {
    const {host, port} = new URL(baseUrl)
    for (const name of [host, `localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) names.add(name)
  }
  return names
}

export function isOwnHost(hostHeader: string | undefined, baseUrls: string | readonly string[]): boolean {
  return hostHeader !== undefined && ownHostNames(baseUrls).has(hostHeader.toLowerCase())
}

/** Whether a server listening on `host` is reached from this machine only (then any other Host is foreign). */
export function listensOnLoopbackOnly(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host)
}

function isOwnOrigin(origin: string, baseUrls: string | readonly string[]): boolean {
  try {
    return ownHostNames(baseUrls).has(new URL(origin).host)
  } catch {
    return false
  }
}

/**
 * Why the request was sent by a web page of another site than the server at `baseUrls`, or
 * undefined when nothing says so. The reasons are fixed words: a header's own text is not repeated.
 */
export function crossSiteRequest(headers: IncomingHttpHeaders, baseUrls: string | readonly string[]): string | undefined {
  const fetchSite = headers['sec-fetch-site']
  if (fetchSite === 'cross-site' || fetchSite === 'same-site') return `a web page of another site sent it (Sec-Fetch-Site: ${fetchSite})`
  if (fetchSite !== undefined && fetchSite !== 'same-origin' && fetchSite !== 'none') return 'a web page sent it (Sec-Fetch-Site is not same-origin)'
  const {origin} = headers
  if (origin !== undefined && !isOwnOrigin(origin, baseUrls)) return 'a web page of another site sent it (its Origin is not this address)'
  return undefined
}
