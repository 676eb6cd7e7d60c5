/**
 * docs/commands.md is generated from the commands (`npm run docs`: oclif's `oclif readme` over the
 * manifest the build writes). This test writes a fresh copy from the current build and fails when
 * the committed page differs, so a changed flag or description cannot leave the page behind.
 */
import {spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'

const scratch = mkdtempSync(join(tmpdir(), 'paytx-docs-'))
afterAll(() => rmSync(scratch, {recursive: true, force: true}))

describe('docs/commands.md', () => {
  it('is what `npm run docs` writes from the built commands (run it when this fails)', () => {
    const fresh = join(scratch, 'commands.md')
    const result = spawnSync(process.execPath, [join(ROOT, 'scripts', 'write-command-docs.js'), fresh], {encoding: 'utf8', timeout: 30_000})
    expect(result.status, result.stderr).toBe(0)
    const generated = readFileSync(fresh, 'utf8')
    // Every command of the build but the hidden ones is in it, so a stale page is not hidden by a generator that wrote nothing.
    const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, {hidden?: boolean}>}
    const shown = Object.entries(manifest.commands).filter(([, command]) => !command.hidden)
    expect(shown.length).toBeGreaterThan(20)
    for (const [id] of shown) expect(generated).toContain(`## \`paytx ${id.replaceAll(':', ' ')}`)
    expect(readFileSync(join(ROOT, 'docs', 'commands.md'), 'utf8'), 'docs/commands.md is stale: run `npm run docs`').toBe(generated)
  }, 40_000)
})
