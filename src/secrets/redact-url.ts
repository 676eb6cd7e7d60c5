/**
 * Addresses as paytx shows them: the parts of a URL that can hold a secret are replaced, the rest
 * kept so that the address can still be recognised. A password (`user:secret@`), a user name
 * given alone (`https://<token>@host`: how a token rides in a URL), every query value
 * (`?key=<token>`) and fragment value are secrets; so is a path segment that looks like a token
 * (long, random mixed letters and digits that are not a UUID-shaped id).
 *
 * Every address paytx shows passes here, whether or not it parses: a proxy variable or a profile
 * field can hold `http://user:pw@host:99999` or `user:pw@[::1`, and such text is redacted by the
 * same rules read off its shape, never shown as it was.
 */
const REDACTED = '…'

/**
 * A path segment that is most likely a credential: 20+ characters of a token alphabet that mix
 * letters with digits or upper with lower case (a random token, base64url or hex), and are not a
 * UUID-shaped id. Words joined by dashes (`transaction-update-handler`) stay.
 */
function looksLikeToken(segment: string): boolean {
  if (segment.length < 20 || !/^[A-Za-z0-9_~.-]+$/.test(segment)) return false
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(segment)) return false
  const digitsAndLetters = /[0-9]/.test(segment) && /[A-Za-z]/.test(segment)
  const mixedCase = /[a-z]/.test(segment) && /[A-Z]/.test(segment)
  return digitsAndLetters || mixedCase
}

function redactedPath(path: string): string {
  return path
    .split('/')
    .map((segment) => (looksLikeToken(segment) ? REDACTED : segment))
    .join('/')
}

/** `user:…` when a password follows a user name that is not itself a token; `…` for a user name alone. */
function redactedUserinfo(user: string, hasPassword: boolean): string {
  if (!hasPassword) return REDACTED
  return `${looksLikeToken(user) ? REDACTED : user}:${REDACTED}`
}

/** `a=…&b=…`: the names kept (unless they look like a token), every value hidden. */
function redactedPairs(pairs: string): string {
  return pairs
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=')
      const name = equals === -1 ? pair : pair.slice(0, equals)
      return `${looksLikeToken(name) ? REDACTED : name}=${REDACTED}`
    })
    .join('&')
}

/** A fragment of pairs (`#access_token=…`) like a query, any other like a path. */
function redactedFragment(fragment: string): string {
  return fragment.includes('=') ? redactedPairs(fragment) : redactedPath(fragment)
}

/** The text as a URL when it is written as one (`scheme://...`) and parses; undefined otherwise. */
function absoluteUrl(text: string): URL | undefined {
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(text)) return undefined
  try {
    return new URL(text)
  } catch {
    return undefined
  }
}

function redactParsed(url: URL): string {
  if (url.password) {
    url.password = REDACTED
    if (looksLikeToken(url.username)) url.username = REDACTED
  } else if (url.username) {
    url.username = REDACTED
  }
  if (url.search.length > 1) url.search = `?${redactedPairs(url.search.slice(1))}`
  if (url.hash.length > 1) url.hash = `#${redactedFragment(url.hash.slice(1))}`
  url.pathname = redactedPath(url.pathname)
  return url.toString().replaceAll(encodeURIComponent(REDACTED), REDACTED)
}

/**
 * Text that does not parse as a URL, redacted by its shape: everything before its last `@` is
 * taken for credentials (a password can hold `/`, `#` or `?` once it is not encoded), the query
 * and fragment values are hidden, token-like path segments too.
 */
function redactByShape(text: string): string {
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.exec(text)?.[0] ?? ''
  let rest = text.slice(scheme.length)
  let userinfo = ''
  const at = rest.lastIndexOf('@')
  if (at !== -1) {
    const written = rest.slice(0, at)
    const colon = written.indexOf(':')
    userinfo = `${redactedUserinfo(colon === -1 ? written : written.slice(0, colon), colon !== -1)}@`
    rest = rest.slice(at + 1)
  }
  const hashAt = rest.indexOf('#')
  const fragment = hashAt === -1 ? '' : `#${redactedFragment(rest.slice(hashAt + 1))}`
  if (hashAt !== -1) rest = rest.slice(0, hashAt)
  const queryAt = rest.indexOf('?')
  const query = queryAt === -1 ? '' : `?${redactedPairs(rest.slice(queryAt + 1))}`
  if (queryAt !== -1) rest = rest.slice(0, queryAt)
  return `${scheme}${userinfo}${redactedPath(rest)}${query}${fragment}`
}

/**
 * The address with its credentials, query and fragment values and token-like path segments
 * redacted; text that does not parse as an absolute URL is redacted by its shape. A parsed address
 * is written as URLs are (`http://host:8080/`); with `asWritten`, one that holds nothing to hide
 * comes back exactly as it was given (a profile's address as its owner typed it).
 */
export function redactUrl(address: string | URL, options: {asWritten?: boolean} = {}): string {
  if (address instanceof URL) return redactParsed(new URL(address.href))
  const url = absoluteUrl(address)
  if (!url) return redactByShape(address)
  const written = url.href
  const shown = redactParsed(url)
  return options.asWritten && shown === written ? address : shown
}
