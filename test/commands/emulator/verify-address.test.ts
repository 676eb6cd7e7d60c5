/** `emulator verify` names the profile's address without the credentials it may hold. */
import {describe, expect, it} from 'vitest'

import {tempConfigDir} from '../../helpers/cli.js'
import {freePort} from '../../helpers/ports.js'
import {runCommand} from '../../helpers/run-command.js'

describe('emulator verify', () => {
  it('names the sandbox it sends to with its password and ?key= value redacted', async () => {
    const configDir = tempConfigDir()
    // Nothing listens there: verify says where it sends, then fails to connect.
    const base = `http://svc:v3rify-pa55@127.0.0.1:${await freePort()}/v1?key=v3rify-k3y`
    const added = await runCommand(['profile', 'add', 'sb', '--env', 'sandbox', '--base-url', base, '--api-key-stdin'], {configDir, input: 'sk_test_verify_0123456789abcdef\n'})
    expect(added.exitCode, added.stderr).toBe(0)
    const result = await runCommand(['emulator', 'verify', '--profile', 'sb', '--timeout', '2'], {configDir})
    expect(result.stderr).toContain(`Sending the same requests to profile "sb" (${base.replace('v3rify-pa55', '…').replace('v3rify-k3y', '…')}) and to a fresh emulator…`)
    expect(result.stdout + result.stderr).not.toMatch(/v3rify-pa55|v3rify-k3y/)
  })
})
