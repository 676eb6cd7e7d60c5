/**
 * The /_emulator/ routes answer only requests that name this emulator in their Host, as the
 * dashboard does: a web page on another name reaching 127.0.0.1 through DNS rebinding would
 * otherwise read the delivery log (with each receiver's ?key= token) and drive the emulator. An
 * emulator started to listen beyond loopback is reached by other names on purpose: it answers all.
 *
 * The guard decides on the request's normalised target (router.ts), the one the router routes
 * by, never on the raw path: `/%5Femulator/webhooks` is the delivery log to both.
 */
import {isOwnHost, listensOnLoopbackOnly} from '../../http/own-host.js'
import {ApiError} from '../http-exchange.js'
import {type TargetHandler, isAdminTarget} from '../router.js'

export interface AdminHostSettings {
  /** The address the emulator listens on (`--host`). */
  listenHost: string
  /** The addresses it is reached at (known once listening): its own, and its public one when it has one. */
  ownUrls(): readonly string[]
}

/** The handler, with /_emulator/ requests under a foreign Host refused (403) while the emulator listens on loopback only. */
export function guardAdminHost(handle: TargetHandler, settings: AdminHostSettings): TargetHandler {
  if (!listensOnLoopbackOnly(settings.listenHost)) return handle
  return (request, response, target) => {
    if (isAdminTarget(target) && !isOwnHost(request.headers.host, settings.ownUrls())) {
      throw new ApiError(403, `The emulator's /_emulator/ routes answer only at ${settings.ownUrls().join(' or ')}.`, {host: "not this emulator's address"})
    }
    return handle(request, response, target)
  }
}
