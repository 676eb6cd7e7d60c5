/**
 * Addresses as paytx shows them: the parts of a URL that can hold a secret are replaced, the rest
 * kept so that the address can still be recognised. A password (`user:secret@`) and every query
 * value (`?key=<token>`) are secrets; so is a path segment that looks like a token (long, random
 * mixed letters and digits that are not a UUID-shaped id).
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

/**
 * The URL with its password, its query values and token-like path segments redacted. Text that is
 * not an absolute URL comes back unchanged (there is nothing to recognise in it).
 */
export function redactUrl(address: string | URL): string {
  let url: URL
  try {
    url = new URL(String(address))
  } catch {
    return String(address)
  }
  const segments = url.pathname.split('/')
  const query = [...url.searchParams.keys()]
  // An address with nothing to hide is shown as it was typed, not as the parser spells it.
  if (!url.password && query.length === 0 && !segments.some(looksLikeToken)) return String(address)
  if (url.password) url.password = REDACTED
  if (query.length > 0) url.search = `?${query.map((key) => `${encodeURIComponent(key)}=${REDACTED}`).join('&')}`
  url.pathname = segments.map((segment) => (looksLikeToken(segment) ? REDACTED : segment)).join('/')
  return url.toString().replaceAll(encodeURIComponent(REDACTED), REDACTED)
}
