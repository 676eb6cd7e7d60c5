/**
 * The line every command that talks to production prints on stderr before anything else, so that
 * support staff always see which service they are reading from or writing to. Production is
 * decided by where the requests go (profiles/production.ts): a profile labelled sandbox whose
 * address is a production host gets the line too, and says why.
 */
import {describeProductionAddress} from '../profiles/production.js'
import type {ResolvedProfile} from '../profiles/resolve.js'
import {redactUrl} from '../secrets/redact-url.js'
import {visibleText} from './visible-text.js'

const RED_BOLD = '\u001B[1;97;41m'
const RESET = '\u001B[0m'

/** Colour only for a person at a terminal: not in a pipe, not with NO_COLOR, not on a dumb terminal. */
export function colorWanted(stream: {isTTY?: boolean}, env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(stream.isTTY) && !env.NO_COLOR && env.TERM !== 'dumb'
}

type ProductionProfile = Pick<ResolvedProfile, 'name' | 'profile' | 'production'>

/** The production address to name: the one that made the profile production, else its service address; redacted. */
export function productionAddressShown(resolved: ProductionProfile): string {
  const reason = resolved.production
  return visibleText(redactUrl(reason?.by === 'address' ? reason.address : resolved.profile.base_url, {asWritten: true}))
}

/** Why a profile labelled otherwise is production, in words; undefined when its label says production. */
export function productionWhy(resolved: ProductionProfile): string | undefined {
  const reason = resolved.production
  return reason?.by === 'address' ? describeProductionAddress(reason, productionAddressShown(resolved)) : undefined
}

export function productionBanner(resolved: ProductionProfile, options: {color: boolean}): string {
  const label = options.color ? `${RED_BOLD} PRODUCTION ${RESET}` : 'PRODUCTION'
  const labelled = resolved.production?.by === 'address' ? ` (labelled ${resolved.production.label})` : ''
  return `${label} · profile ${visibleText(resolved.name)}${labelled} · ${productionAddressShown(resolved)}`
}
