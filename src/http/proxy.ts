/**
 * Which proxy, if any, a request goes through: the standard variables (HTTPS_PROXY, HTTP_PROXY,
 * NO_PROXY, lower case first, as curl and undici's EnvHttpProxyAgent read them). Decided here,
 * without loading undici, so that the normal path (no proxy variable, or a loopback address)
 * never pays for it. Loopback addresses are never proxied: the emulator and the listeners paytx
 * runs itself are on this machine.
 */

export interface ProxySettings {
  /** Proxy for http: targets. */
  httpProxy?: string
  /** Proxy for https: targets (falls back to httpProxy, as undici and curl do). */
  httpsProxy?: string
  /** NO_PROXY as written: hosts, `.suffix` or `*.suffix` domains, `host:port`, or `*`. */
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

interface NoProxyEntry {
  hostname: string
  port: number
}

function parseNoProxy(noProxy: string): NoProxyEntry[] {
  return noProxy
    .split(/[,\s]/)
    .filter((entry) => entry.length > 0)
    .map((entry) => {
      const withPort = /^(.+):(\d+)$/.exec(entry)
      const hostname = (withPort ? withPort[1] : entry).replace(/^\*?\./, '').replace(/^\[|\]$/g, '').toLowerCase()
      return {hostname, port: withPort ? Number(withPort[2]) : 0}
    })
}

/** False when NO_PROXY names the host (itself, a domain it is under, or `*`), on any port or the one given. */
function allowedByNoProxy(hostname: string, port: number, noProxy: string): boolean {
  if (noProxy.trim() === '*') return false
  for (const entry of parseNoProxy(noProxy)) {
    if (entry.port && entry.port !== port) continue
    if (hostname === entry.hostname || hostname.endsWith(`.${entry.hostname}`)) return false
  }
  return true
}

/** The proxy to send a request for `target` through, or undefined to connect directly. */
export function proxyFor(target: URL, settings: ProxySettings): string | undefined {
  const hostname = target.hostname.replace(/^\[|\]$/g, '').toLowerCase()
  if (isLoopbackHost(hostname)) return undefined
  const proxy = target.protocol === 'https:' ? (settings.httpsProxy ?? settings.httpProxy) : settings.httpProxy
  if (proxy === undefined) return undefined
  const port = Number(target.port) || DEFAULT_PORTS[target.protocol] || 0
  return allowedByNoProxy(hostname, port, settings.noProxy) ? proxy : undefined
}
