/**
 * The line every command that talks to a production profile prints on stderr before anything
 * else, so that support staff always see which service they are reading from or writing to.
 */
import {redactUrl} from '../secrets/redact-url.js'
import {visibleText} from './visible-text.js'

const RED_BOLD = '\u001B[1;97;41m'
const RESET = '\u001B[0m'

/** Colour only for a person at a terminal: not in a pipe, not with NO_COLOR, not on a dumb terminal. */
export function colorWanted(stream: {isTTY?: boolean}, env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(stream.isTTY) && !env.NO_COLOR && env.TERM !== 'dumb'
}

export function productionBanner(profileName: string, baseUrl: string, options: {color: boolean}): string {
  const label = options.color ? `${RED_BOLD} PRODUCTION ${RESET}` : 'PRODUCTION'
  return `${label} · profile ${visibleText(profileName)} · ${visibleText(redactUrl(baseUrl, {asWritten: true}))}`
}
