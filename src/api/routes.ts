/**
 * The paths the service documents (service-api.md), to tell a 404 for an unknown id from a 404
 * for a path the service does not have (`paytx api .../refund`): the first means "check the id",
 * the second "there is no such path", and saying the first for the second sends people hunting
 * for a wrong id.
 */
import type {ServiceError} from '../errors.js'

interface Route {
  method: string
  path: RegExp
  shown: string
}

const SEGMENT = '[^/]+'

const API_ROUTES: readonly Route[] = [
  {method: 'POST', path: /\/v1\/customer$/, shown: 'POST /v1/customer'},
  {method: 'POST', path: /\/v1\/transaction\/start$/, shown: 'POST /v1/transaction/start'},
  {method: 'GET', path: new RegExp(`/v1/transaction/${SEGMENT}$`), shown: 'GET /v1/transaction/<id>'},
  {method: 'GET', path: new RegExp(`/v1/transaction/${SEGMENT}/checkoutsuccess$`), shown: 'GET /v1/transaction/<id>/checkoutsuccess'},
]

const H2H_ROUTES: readonly Route[] = [{method: 'POST', path: new RegExp(`/tokenize/proxy/${SEGMENT}$`), shown: 'POST /tokenize/proxy/<proxy id>'}]

/** The route a request names, if the service documents one for it (any method, for the wording). */
function routeFor(routes: readonly Route[], pathname: string): Route | undefined {
  return routes.find((route) => route.path.test(pathname.replace(/\/+$/, '')))
}

/**
 * A 404 to a path the service does not document gets a hint that says so, with the documented
 * paths; any other error is returned as it is.
 */
export function explainUnknownPath(error: ServiceError, method: string, pathname: string, target: 'api' | 'h2h'): ServiceError {
  if (error.status !== 404) return error
  const routes = target === 'h2h' ? H2H_ROUTES : API_ROUTES
  const route = routeFor(routes, pathname)
  if (route && route.method === method) return error
  const documented = routes.map((entry) => entry.shown).join(', ')
  // The id-and-profile remedies a 404 carries do not apply: the path is what is wrong.
  error.remedies.length = 0
  error.hint = route
    ? `The service takes ${route.shown}, not ${method}: pass -X ${route.method}.`
    : `The service has no ${method} ${pathname}: the 404 is about the path, not an id. The paths it documents: ${documented}.`
  return error
}
