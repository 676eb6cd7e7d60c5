/**
 * The emulator's routing: route tables of `{method, pattern, handler}`, matched by path segment
 * (`:` matches any one segment, passed to the handler in order). A path whose first matching
 * pattern has no route for the method is a 405 listing the allowed ones; no match is a 404.
 */
import type {IncomingMessage, ServerResponse} from 'node:http'

import {ApiError} from './http-exchange.js'

export type Handler = (request: IncomingMessage, response: ServerResponse, params: string[]) => Promise<void> | void

export interface Route {
  method: 'GET' | 'POST' | 'DELETE'
  pattern: string[]
  handler: Handler
}

function matches(pattern: string[], segments: string[]): string[] | undefined {
  if (pattern.length !== segments.length) return undefined
  const params: string[] = []
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === ':') params.push(segments[i])
    else if (pattern[i] !== segments[i]) return undefined
  }
  return params
}

function pathSegments(rawUrl: string): string[] | undefined {
  const path = rawUrl.split('?')[0].replace(/\/+$/, '')
  try {
    return path
      .split('/')
      .slice(1)
      .map((segment) => decodeURIComponent(segment))
  } catch {
    return undefined
  }
}

/** The request handler over the given route tables. */
export function routeRequests(routes: readonly Route[]): (request: IncomingMessage, response: ServerResponse) => Promise<void> {
  return async (request, response) => {
    const segments = pathSegments(request.url ?? '/')
    if (!segments) throw new ApiError(400, 'The request path is not valid (bad percent-encoding).')
    // The first pattern that matches decides, as in a table read top to bottom: a literal
    // segment (`/transaction/start`) listed before a parameter takes precedence over it.
    const first = routes.find((route) => matches(route.pattern, segments))
    if (first) {
      const samePattern = routes.filter((route) => route.pattern.join('/') === first.pattern.join('/'))
      const route = samePattern.find((candidate) => candidate.method === request.method)
      if (route) {
        await route.handler(request, response, matches(route.pattern, segments)!)
        return
      }
      const list = samePattern.map((candidate) => candidate.method).join(', ')
      throw new ApiError(405, `${request.method} is not allowed here; use ${list}.`, {method: `allowed: ${list}`}, {allow: list})
    }
    throw new ApiError(404, `Nothing is at ${request.method} ${request.url?.split('?')[0]}.`, {path: 'unknown path'})
  }
}
