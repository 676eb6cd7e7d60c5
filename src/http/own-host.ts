/**
 * The names a local server answers to. A web page the developer visits can make the browser send
 * requests to 127.0.0.1 under a name of its own (DNS rebinding); such a request carries that
 * name in its Host header, so a server on loopback answers only requests that name it.
 */

/** The Host values that name the server at `baseUrl` on this machine: its own, and localhost, 127.0.0.1 and [::1] at its port. */
export function ownHostNames(baseUrl: string): Set<string> {
  const {host, port} = new URL(baseUrl)
  return new Set([host, `localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`])
}

export function isOwnHost(hostHeader: string | undefined, baseUrl: string): boolean {
  return hostHeader !== undefined && ownHostNames(baseUrl).has(hostHeader.toLowerCase())
}

/** Whether a server listening on `host` is reached from this machine only (then any other Host is foreign). */
export function listensOnLoopbackOnly(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host)
}
