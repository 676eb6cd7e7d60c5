/**
 * The base command does what every command needs and delegates the rest (issue 41, item 2): the
 * profile and the service (cli/profile-and-service.ts), notes (cli/notes.ts), asking, failures
 * and interruption live in their own files. Held at 220 lines, so that it does not grow back into
 * the 463-line file it was.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {ROOT} from '../helpers/cli.js'

describe('src/cli/base-command.ts', () => {
  it('is at most 220 lines', () => {
    const lines = readFileSync(join(ROOT, 'src', 'cli', 'base-command.ts'), 'utf8').trimEnd().split('\n')
    expect(lines.length).toBeGreaterThan(100)
    expect(lines.length).toBeLessThanOrEqual(220)
  })

  it('holds no profile, keychain, emulator or service code of its own: it delegates them', () => {
    const text = readFileSync(join(ROOT, 'src', 'cli', 'base-command.ts'), 'utf8')
    for (const moved of ['resolveProfile', 'keysToReadFromKeychain', 'embedded-emulator', 'productionBanner', 'maxResponseBytes']) expect(text, moved).not.toContain(moved)
  })
})
