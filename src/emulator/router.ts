/**
 * The emulator's routing: each request's path is normalised once (`requestTarget`), and every
 * layer that decides by path (the request faults, the admin Host guard, the route tables) is
 * handed that same target, so that no spelling of a path can mean one thing to a guard and
 * another to the router. Route tables are `{method, pattern, handler}`, matched by path segment
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

/** A request's path as every layer sees it: decoded, dot segments resolved, empty segments dropped. */
export interface RequestTarget {
  /** The decoded segments (`/a%2Fb/c` is `['a/b', 'c']`). */
  segments: readonly string[]
  /** The segments as one path, `%` and `/` within a segment encoded again so that it reads back the same. */
  path: string
  /** The query string without its `?` (not decoded). */
  query: string
}

/**
 * A handler that is given the request's one normalised target: a promise only when its work is
 * one (a body to read, a query thread to ask); a status read is answered within the call, with no
 * promise made on its way.
 */
export type TargetHandler = (request: IncomingMessage, response: ServerResponse, target: RequestTarget) => Promise<void> | void

function invalidPath(reason: string): ApiError {
  return new ApiError(400, `The request path is not valid (${reason}).`, {path: reason})
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    throw invalidPath('bad percent-encoding')
  }
}

/**
 * The one normaliser of request paths. Segments are decoded before dot segments are resolved, as
 * a browser treats `%2e` as `.`; empty segments (`//`, a trailing `/`) are dropped. Only the
 * origin form (`/path?query`) is accepted: an absolute URL as the target would carry a host of
 * its own beside the Host header. Throws a 400 ApiError naming what is wrong.
 */
export function requestTarget(rawUrl: string): RequestTarget {
  if (!rawUrl.startsWith('/')) throw invalidPath('must start with /')
  const queryAt = rawUrl.indexOf('?')
  const rawPath = queryAt === -1 ? rawUrl : rawUrl.slice(0, queryAt)
  // Without a `%`, decoding leaves every segment as it is, and there is nothing to encode again.
  const encoded = rawPath.includes('%')
  const segments: string[] = []
  for (const raw of rawPath.split('/')) {
    const segment = encoded ? decodeSegment(raw) : raw
    if (segment === '' || segment === '.') continue
    if (segment === '..') segments.pop()
    else segments.push(segment)
  }
  const path = `/${encoded ? segments.map((segment) => segment.replaceAll('%', '%25').replaceAll('/', '%2F')).join('/') : segments.join('/')}`
  return {segments, path, query: queryAt === -1 ? '' : rawUrl.slice(queryAt + 1)}
}

/**
 * Whether the target is under /_emulator/ (the emulator's own routes and the dashboard). Any case
 * counts, so that what guards these routes still covers them should matching ever ignore case.
 */
export function isAdminTarget(target: RequestTarget): boolean {
  return target.segments[0]?.toLowerCase() === '_emulator'
}

function matches(pattern: string[], segments: readonly string[]): boolean {
  if (pattern.length !== segments.length) return false
  for (let i = 0; i < pattern.length; i++) if (pattern[i] !== ':' && pattern[i] !== segments[i]) return false
  return true
}

/** The segments a pattern's `:` matched, in order. */
function paramsOf(pattern: string[], segments: readonly string[]): string[] {
  const params: string[] = []
  for (let i = 0; i < pattern.length; i++) if (pattern[i] === ':') params.push(segments[i])
  return params
}

/** The request handler over the given route tables, routing by the request's normalised target. */
export function routeRequests(routes: readonly Route[]): TargetHandler {
  // The routes of each pattern, in table order, found once (not joined again at every request).
  const byPattern = new Map<string, Route[]>()
  for (const route of routes) {
    const key = route.pattern.join('/')
    byPattern.set(key, [...(byPattern.get(key) ?? []), route])
  }
  const samePatternAs = new Map(routes.map((route) => [route, byPattern.get(route.pattern.join('/'))!]))
  // Only a pattern of as many segments can match: the table's routes by length, each in table order.
  const byLength = new Map<number, Route[]>()
  for (const route of routes) byLength.set(route.pattern.length, [...(byLength.get(route.pattern.length) ?? []), route])
  return (request, response, {segments, path}) => {
    // The first pattern that matches decides, as in a table read top to bottom: a literal
    // segment (`/transaction/start`) listed before a parameter takes precedence over it.
    const first = byLength.get(segments.length)?.find((route) => matches(route.pattern, segments))
    if (first) {
      const samePattern = samePatternAs.get(first)!
      const route = samePattern.find((candidate) => candidate.method === request.method)
      if (route) return route.handler(request, response, paramsOf(route.pattern, segments))
      const list = samePattern.map((candidate) => candidate.method).join(', ')
      throw new ApiError(405, `${request.method} is not allowed here; use ${list}.`, {method: `allowed: ${list}`}, {allow: list})
    }
    throw new ApiError(404, `Nothing is at ${request.method} ${path}.`, {path: 'unknown path'})
  }
}
