/**
 * docs/emulator.md's container recipe: the compose service's command line, and the Dockerfile's
 * CMD, are the one this test starts an emulator with (on a free port instead of 4010), and it
 * serves as the page says: approval_url at the public address, its name answered. No image is
 * built here (none can be); what the image would run is.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {parse} from 'yaml'

import EmulatorStart, {toEmulatorStartOptions} from '../../src/commands/emulator/start.js'
import {startEmulator} from '../../src/emulator/index.js'
import {ROOT} from '../helpers/cli.js'
import {emulatorApi} from '../helpers/emulator-api.js'
import {parseFlags} from '../helpers/parse-flags.js'

const PAGE = readFileSync(join(ROOT, 'docs', 'emulator.md'), 'utf8')

function block(language: string, containing: string): string {
  const found = [...PAGE.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((match) => match[1]).find((text) => text.includes(containing))
  if (!found) throw new Error(`docs/emulator.md has no ${language} block with ${containing}`)
  return found
}

const compose = parse(block('yaml', 'services:')) as {services: Record<string, {command: string; environment?: Record<string, string>}>}
const command = compose.services.paytx.command.split(/\s+/)
const dockerCmd = JSON.parse(/^CMD (\[.*\])$/m.exec(block('dockerfile', 'FROM node'))![1]) as string[]

describe('the container recipe', () => {
  it('runs paytx emulator start, the same in the Dockerfile and the compose service', () => {
    expect(command.slice(0, 3)).toEqual(['paytx', 'emulator', 'start'])
    expect(dockerCmd).toEqual(command)
  })

  it('its command line starts an emulator that serves at the public address it names', async () => {
    // --json is oclif's own flag (how the lines are printed), not one of the emulator's options.
    expect(command).toContain('--json')
    const flags = await parseFlags(EmulatorStart, command.slice(3).filter((arg) => arg !== '--json'))
    const options = toEmulatorStartOptions(flags, {})
    expect(options).toMatchObject({host: '0.0.0.0', publicUrl: 'http://paytx:4010', store: ':memory:'})
    const emulator = await startEmulator({...options, port: 0})
    try {
      const {transaction} = await emulatorApi(emulator).startPayment('dummy')
      expect(transaction.details.approval_url).toMatch(/^http:\/\/paytx:4010\/v1\/transaction\//)
      // The tests container's addresses are the emulator's, on the compose name.
      const environment = compose.services.tests.environment!
      expect(environment.PAYMENT_BASE_URL).toBe(`${options.publicUrl}/v1`)
      expect(environment.PAYMENT_H2H_URL).toBe(`${options.publicUrl}/h2h`)
      expect(environment.PAYMENT_API_KEY).toBe(emulator.apiKey)
    } finally {
      await emulator.close()
    }
  })
})
