/**
 * The one check for an absolute http(s) URL, used wherever an address is typed in (profiles, flags,
 * scenario files, request bodies): anything `new URL` reads with the http: or https: scheme.
 */

/** The URL, or undefined when the text is not an absolute http or https address. */
export function parseHttpUrl(text: string): URL | undefined {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return undefined
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined
}

export function isAbsoluteHttpUrl(text: string): boolean {
  return parseHttpUrl(text) !== undefined
}
