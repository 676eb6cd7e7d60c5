/**
 * `/_emulator/faults`: the fault rules of a running emulator, for scripts in any language.
 * GET lists them with their counts (open, like the health endpoint); POST adds one rule, or
 * `{seed?, rules}`; DELETE removes all, DELETE /_emulator/faults/<id> one (both need the API key).
 */
import * as z from 'zod'

import {formatPath} from '../../input/scenario-source.js'
import {type EmulatorKeys, requireApiKey} from '../auth.js'
import {ApiError, readJsonRequest, sendJson} from '../http-exchange.js'
import type {Route} from '../router.js'
import {type FaultRules, view} from './fault-rules.js'
import {faultFileSchema, faultRuleSchema} from './fault-schema.js'

export interface FaultRouteSettings {
  keys: EmulatorKeys
  maxBodyBytes: number
}

const addRequestSchema = z.union([faultRuleSchema, faultFileSchema.pick({seed: true, rules: true})])

function invalidBody(error: z.ZodError): ApiError {
  const details: Record<string, string> = {}
  for (const issue of error.issues) details[issue.path.length === 0 ? 'body' : `body.${formatPath(issue.path as (string | number)[])}`] = issue.message
  return new ApiError(400, `The fault rule is not valid: ${Object.keys(details).join(', ')}.`, details)
}

export function faultRoutes(faults: FaultRules, settings: FaultRouteSettings): Route[] {
  const list = () => ({seed: faults.seed, rules: faults.list()})
  return [
    {
      method: 'GET',
      pattern: ['_emulator', 'faults'],
      handler: (_request, response) => sendJson(response, 200, list()),
    },
    {
      method: 'POST',
      pattern: ['_emulator', 'faults'],
      handler: async (request, response) => {
        requireApiKey(request, settings.keys)
        const body = await readJsonRequest(request, settings.maxBodyBytes)
        // A single rule is told apart by its `fault`; its own errors are the ones worth showing.
        const isSingleRule = Boolean(body) && typeof body === 'object' && 'fault' in (body as object)
        const parsed = isSingleRule ? faultRuleSchema.safeParse(body) : addRequestSchema.safeParse(body)
        if (!parsed.success) {
          throw invalidBody(isSingleRule ? parsed.error : (faultFileSchema.pick({seed: true, rules: true}).safeParse(body).error ?? parsed.error))
        }
        const value = parsed.data
        const rules = 'fault' in value ? [value] : value.rules
        if (!('fault' in value) && value.seed !== undefined) faults.reseed(value.seed)
        const added = rules.map((rule) => view(faults.add(rule)))
        sendJson(response, 200, {seed: faults.seed, added})
      },
    },
    {
      method: 'DELETE',
      pattern: ['_emulator', 'faults'],
      handler: (request, response) => {
        requireApiKey(request, settings.keys)
        sendJson(response, 200, {removed: faults.clear()})
      },
    },
    {
      method: 'DELETE',
      pattern: ['_emulator', 'faults', ':'],
      handler: (request, response, [id]) => {
        requireApiKey(request, settings.keys)
        if (!faults.remove(id)) throw new ApiError(404, `No fault rule has the id ${JSON.stringify(id)}.`, {'params.id': 'unknown fault rule; see GET /_emulator/faults'})
        sendJson(response, 200, {removed: 1, id})
      },
    },
  ]
}
