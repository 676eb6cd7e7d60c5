/** The readings file: its shipped JSON schema, its version, and how readings map onto the emulator's switches. */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {ROOT} from '../helpers/cli.js'
import {NO_READINGS, parseReadings, readingsJsonSchema, readingsToEmulatorOptions} from '../../src/emulator-readings/readings.js'

describe('readings', () => {
  it('schemas/emulator-readings.schema.json is the schema the loader checks against (regenerate with `npm run schema`)', () => {
    expect(JSON.parse(readFileSync(join(ROOT, 'schemas', 'emulator-readings.schema.json'), 'utf8'))).toEqual(readingsJsonSchema())
  })

  it('another version, or a reading no switch has, is a problem naming the file', () => {
    expect(parseReadings('{"version": 2}', 'r.json')).toBe('r.json is a readings file of version 2; this paytx reads version 1')
    const file = {version: 1, profile: 'sb', taken_at: 'x', assumptions: {...NO_READINGS, 'card-record': 'newest'}, additive: []}
    expect(parseReadings(JSON.stringify(file), 'r.json')).toMatch(/^r\.json: assumptions\.card-record: /)
    expect(parseReadings('{', 'r.json')).toMatch(/^r\.json is not JSON/)
  })

  it('each reading maps onto an existing switch; null leaves the default', () => {
    expect(readingsToEmulatorOptions(NO_READINGS)).toEqual({assumptions: {}})
    expect(readingsToEmulatorOptions({'id-keys': '_id', 'card-record': 'earlier', 'webhook-body': 'full', 'webhook-retries': 'not-retried', 'api-key-header': 'Authorization'})).toEqual({
      assumptions: {idKeys: '_id', cardRecord: 'earlier', webhookPayload: 'full'},
      apiKeyHeader: 'Authorization',
      webhookAttempts: 1,
    })
    expect(readingsToEmulatorOptions({...NO_READINGS, 'webhook-retries': 'retried'})).toEqual({assumptions: {}})
  })
})
