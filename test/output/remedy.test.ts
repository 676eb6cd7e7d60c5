/** Remedies as data become words only here, with the command named as the user typed it. */
import {describe, expect, it} from 'vitest'

import {NetworkError} from '../../src/errors.js'
import {hintText, remedyText} from '../../src/output/remedy.js'
import type {Remedy} from '../../src/remedy.js'

describe('remedyText', () => {
  it.each<[Remedy, string, string]>([
    [{kind: 'start-emulator'}, 'npx paytx', 'Start the emulator with `npx paytx emulator start`, or pick another profile with --profile.'],
    [{kind: 'check-profile', concern: 'api-key'}, './bin/run.js', 'Check the API key of the profile (`./bin/run.js profile show`) or PAYTX_API_KEY, and that the key belongs to this environment.'],
    [{kind: 'look-up-transaction', situation: 'started', transactionId: 'tx-1'}, 'paytx', 'Transaction tx-1 was started; look it up with `paytx status tx-1`.'],
    [{kind: 'look-up-transaction', situation: 'service-failed'}, 'paytx', 'The service failed; the request may still have been processed. Look it up before trying again (`paytx status <id>` for a transaction).'],
    [{kind: 'set-profile-values', profile: 'prod', flags: ['--h2h-url', '--proxy-id'], variable: 'PAYTX_PROXY_KEY'}, 'paytx', 'Set --h2h-url, --proxy-id with `paytx profile add prod` (or PAYTX_PROXY_KEY for one run).'],
    [{kind: 'pipe-values', flags: ['--pan-stdin', '--cvv-stdin']}, 'paytx', `Pipe both values, e.g. printf '%s\\n%s\\n' "$A" "$B" | paytx ... --pan-stdin --cvv-stdin`],
    // The profile's address can hold credentials: shown redacted, as every address is.
    [{kind: 'start-emulator', situation: 'fault-rules', profile: 'local', baseUrl: 'http://u:s3cret@127.0.0.1:4010/v1?key=s3cret'}, 'paytx', 'Fault rules live in a running emulator: start one with `paytx emulator start` (profile "local" points at http://u:…@127.0.0.1:4010/v1?key=…).'],
    [{kind: 'start-emulator', situation: 'fault-rules', profile: 'local', baseUrl: 'http://127.0.0.1:4010'}, 'paytx', 'Fault rules live in a running emulator: start one with `paytx emulator start` (profile "local" points at http://127.0.0.1:4010).'],
    [{kind: 'fix-profile-file', path: '/cfg/profiles.json'}, 'paytx', 'Fix the file by hand, or move it away and add the profiles again with `paytx profile add`; paytx leaves /cfg/profiles.json as it is until then.'],
  ])('%j as run by %s', (remedy, invokedAs, words) => {
    expect(remedyText(remedy, invokedAs)).toBe(words)
  })
})

describe('hintText', () => {
  it('says the error’s own words first, then each remedy in order; the error keeps them as data', () => {
    const error = new NetworkError('Could not connect.', {hint: 'Nothing listens there.', remedy: {kind: 'start-emulator'}}).withRemedy({
      kind: 'look-up-transaction',
      situation: 'started',
      transactionId: 'tx-1',
    })
    expect(hintText(error, 'paytx')).toBe(
      'Nothing listens there. Start the emulator with `paytx emulator start`, or pick another profile with --profile. Transaction tx-1 was started; look it up with `paytx status tx-1`.',
    )
    expect(error.toJSON()).toMatchObject({hint: 'Nothing listens there.', remedies: [{kind: 'start-emulator'}, {kind: 'look-up-transaction', transactionId: 'tx-1'}]})
  })

  it('is nothing for an error with neither', () => {
    expect(hintText({}, 'paytx')).toBeUndefined()
  })
})
