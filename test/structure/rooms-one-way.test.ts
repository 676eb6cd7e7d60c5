/**
 * The emulator reads bottom-up (scripts/check-room-imports.js): its rooms import one way, each
 * only rooms on its floor or below, and no file of src/emulator or src/http is in an import
 * circle. The script is run on the sources, and on a small tree that breaks each rule, so that a
 * script that found nothing would fail here.
 */
import {spawnSync} from 'node:child_process'
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import {ROOT} from '../helpers/cli.js'

const SCRIPT = join(ROOT, 'scripts', 'check-room-imports.js')

function check(...args: string[]) {
  return spawnSync(process.execPath, [SCRIPT, ...args], {encoding: 'utf8', timeout: 20_000})
}

const scratch = mkdtempSync(join(tmpdir(), 'paytx-rooms-'))
afterAll(() => rmSync(scratch, {recursive: true, force: true}))

function tree(files: Record<string, string>): string {
  const src = mkdtempSync(join(scratch, 'src-'))
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(src, path)), {recursive: true})
    writeFileSync(join(src, path), text)
  }
  return src
}

describe("the emulator's rooms, one way", () => {
  it('hold in src/: no room imports one above it, no circle of rooms or of files', () => {
    const run = check()
    expect(run.stderr).toBe('')
    expect(run.status).toBe(0)
    expect(run.stdout).toContain('ground floor first: assumptions.ts events.ts http-exchange.ts router.ts auth.ts < store/ < time/ < webhooks/ < faults/')
  })

  it('fail for a room that imports one above it, as the store importing the options did', () => {
    const src = tree({
      'emulator/store/index.ts': "import type {X} from '../options.js'\n",
      'emulator/options.ts': 'export type X = 1\n',
    })
    const run = check('--src', src)
    expect(run.status).toBe(1)
    expect(run.stderr).toContain('A room imports a room above it: store/ -> options.ts (emulator/store/index.ts imports emulator/options.ts).')
  })

  it('fail for a circle of rooms, type imports and re-exports included, naming each import in it', () => {
    const src = tree({
      'emulator/api/index.ts': "export {b} from '../pages/index.js'\nexport const a = 1\n",
      'emulator/pages/index.ts': "import type {a} from '../api/index.js'\nexport const b = 2\n",
    })
    const run = check('--src', src)
    expect(run.status).toBe(1)
    expect(run.stderr).toContain('Rooms of src/emulator in a circle: api/, pages/')
    expect(run.stderr).toContain('  pages/ -> api/: emulator/pages/index.ts imports emulator/api/index.ts')
  })

  it('fail for files of src/http or of one emulator room in a circle, a dynamic import included', () => {
    const src = tree({
      'http/outgoing.ts': "export const load = () => import('./proxied-request.js')\n",
      'http/proxied-request.ts': "import {x} from './outgoing-shapes.js'\nexport const y = x\n",
      'http/outgoing-shapes.ts': "import {load} from './outgoing.js'\nexport const x = load\n",
      'emulator/store/a.ts': "import {b} from './b.js'\nexport const a = b\n",
      'emulator/store/b.ts': "import {a} from './a.js'\nexport const b = a\n",
      'other/c.ts': "import {d} from './d.js'\nexport const c = d\n",
      'other/d.ts': "import {c} from './c.js'\nexport const d = c\n",
    })
    const run = check('--src', src)
    expect(run.status).toBe(1)
    expect(run.stderr).toContain('Files in an import circle (3 files):\n  http/outgoing-shapes.ts imports http/outgoing.ts')
    expect(run.stderr).toContain('  http/outgoing.ts imports http/proxied-request.ts')
    expect(run.stderr).toContain('Files in an import circle (2 files):\n  emulator/store/a.ts imports emulator/store/b.ts')
    // Only src/emulator and src/http are held to it.
    expect(run.stderr).not.toContain('other/')
  })

  it('fail for a room that has no floor yet, saying where to give it one', () => {
    const run = check('--src', tree({'emulator/verify/index.ts': 'export const v = 1\n'}))
    expect(run.status).toBe(1)
    expect(run.stderr).toContain('The room verify/ of src/emulator has no floor: add it to FLOORS in scripts/check-room-imports.js.')
  })
})
