/**
 * Which proxy, if any, a request goes through: the standard variables (HTTPS_PROXY, HTTP_PROXY,
 * NO_PROXY, lower case first, as curl and undici's EnvHttpProxyAgent read them). Decided here,
 * without loading undici, so that the normal path (no proxy variable, or a loopback address)
 * never pays for it. Loopback addresses are never proxied: the emulator and the listeners paytx
 * runs itself are on this machine.
 */
import {BlockList, isIP} from 'node:net'

export interface ProxySettings {
  /** Proxy for http: targets. */
  httpProxy?: string
  /** Proxy for https: targets (falls back to httpProxy, as undici and curl do). */
  httpsProxy?: string
  /** NO_PROXY as written: hosts, `.suffix` or `*.suffix` domains, IP addresses and CIDR blocks, `host:port`, `*`. */
  noProxy: string
}

const DEFAULT_PORTS: Record<string, number> = {'http:': 80, 'https:': 443}

/** The proxy variables of an environment; an empty value counts as unset. */
export function proxySettingsFromEnv(env: NodeJS.ProcessEnv): ProxySettings {
  const read = (name: string) => env[name.toLowerCase()] || env[name.toUpperCase()] || undefined
  return {httpProxy: read('http_proxy'), httpsProxy: read('https_proxy'), noProxy: read('no_proxy') ?? ''}
}

/** True when any proxy variable is set: only then is undici loaded. */
export function anyProxy(settings: ProxySettings): boolean {
  return settings.httpProxy !== undefined || settings.httpsProxy !== undefined
}

/** 127.0.0.0/8, ::1 and localhost (with its subdomains): this machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase()
  if (host === 'localhost' || host.endsWith('.localhost')) return true
  if (host === '::1' || host === '0:0:0:0:0:0:0:1') return true
  if (/^::ffff:127\./.test(host)) return true
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
}

/**
 * One NO_PROXY entry, as curl reads them: `*` (everything), an IP address or a CIDR block
 * (`10.0.0.0/8`, `fd00::/8`), or a host name that also covers its subdomains, written with or
 * without a leading `.` or `*.`; each may end in `:port`. Case and a trailing dot do not count.
 */
type NoProxyEntry = {kind: 'all'} | {kind: 'name'; name: string; port: number} | {kind: 'block'; block: BlockList; port: number}

/** A host as NO_PROXY compares it: no brackets, no trailing dot (`example.com.` is `example.com`), lower case. */
function comparableHost(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '').toLowerCase()
}

/** The entry's host part and port: `host:port`, `[v6]:port`, or a bare IPv6 address (its colons are not a port). */
function splitPort(entry: string): {host: string; port: number} {
  const bracketed = /^\[([^\]]*)\](?::(\d+))?$/.exec(entry)
  if (bracketed) return {host: bracketed[1], port: Number(bracketed[2] ?? 0)}
  if (entry.split(':').length > 2) return {host: entry, port: 0}
  const withPort = /^(.+):(\d+)$/.exec(entry)
  return withPort ? {host: withPort[1], port: Number(withPort[2])} : {host: entry, port: 0}
}

function parseNoProxyEntry(entry: string): NoProxyEntry | undefined {
  if (entry === '*') return {kind: 'all'}
  const {host, port} = splitPort(entry)
  const cidr = /^([^/]+)\/(\d{1,3})$/.exec(host)
  const address = comparableHost(cidr ? cidr[1] : host)
  const family = isIP(address)
  if (family !== 0) {
    const bits = cidr ? Number(cidr[2]) : family === 4 ? 32 : 128
    if (bits > (family === 4 ? 32 : 128)) return undefined
    const block = new BlockList()
    block.addSubnet(address, bits, family === 4 ? 'ipv4' : 'ipv6')
    return {kind: 'block', block, port}
  }
  // A CIDR suffix on something that is not an address matches nothing, as in curl.
  if (cidr) return undefined
  const name = comparableHost(host.replace(/^\*?\./, ''))
  return name === '' ? undefined : {kind: 'name', name, port}
}

function parseNoProxy(noProxy: string): NoProxyEntry[] {
  return noProxy
    .split(/[,\s]/)
    .filter((entry) => entry.length > 0)
    .map((entry) => parseNoProxyEntry(entry))
    .filter((entry): entry is NoProxyEntry => entry !== undefined)
}

function entryCovers(entry: NoProxyEntry, host: string, port: number): boolean {
  if (entry.kind === 'all') return true
  if (entry.port && entry.port !== port) return false
  const family = isIP(host)
  if (entry.kind === 'block') return family !== 0 && entry.block.check(host, family === 4 ? 'ipv4' : 'ipv6')
  // A name covers names only: `0.0.5` is no domain that 10.0.0.5 is under.
  return family === 0 && (host === entry.name || host.endsWith(`.${entry.name}`))
}

/** False when NO_PROXY names the host (itself, a domain it is under, an address block it is in, or `*`), on any port or the one given. */
function allowedByNoProxy(hostname: string, port: number, noProxy: string): boolean {
  const host = comparableHost(hostname)
  return !parseNoProxy(noProxy).some((entry) => entryCovers(entry, host, port))
}

/** The proxy to send a request for `target` through, or undefined to connect directly. */
export function proxyFor(target: URL, settings: ProxySettings): string | undefined {
  const hostname = comparableHost(target.hostname)
  if (isLoopbackHost(hostname)) return undefined
  const proxy = target.protocol === 'https:' ? (settings.httpsProxy ?? settings.httpProxy) : settings.httpProxy
  if (proxy === undefined) return undefined
  const port = Number(target.port) || DEFAULT_PORTS[target.protocol] || 0
  return allowedByNoProxy(hostname, port, settings.noProxy) ? proxy : undefined
}
