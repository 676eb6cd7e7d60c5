/**
 * The emulator's layout holds: few files at its top, each room reached through its index.ts
 * only, no two rooms importing each other, and no cycle between src/emulator and src/smoke.
 * Read from the import statements of the sources (type imports count: they couple too).
 */
import {readFileSync, readdirSync} from 'node:fs'
import {dirname, join, relative, resolve, sep} from 'node:path'

import {describe, expect, it} from 'vitest'

import {ROOT} from '../helpers/cli.js'

const SRC = join(ROOT, 'src')
const EMULATOR = join(SRC, 'emulator')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

/** Every relative module a file names in `import ... from`, `export ... from` or `import(...)`, as a path. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const specifiers = [...text.matchAll(/(?:from\s+|import\(\s*)'(\.[^']+)'/g)].map((match) => match[1])
  return specifiers.map((specifier) => resolve(dirname(file), specifier).replace(/\.js$/, '.ts'))
}

/** The room a path is in (`store`, `faults`, ...), or undefined for the top level and outside. */
function roomOf(path: string): string | undefined {
  const parts = relative(EMULATOR, path).split(sep)
  return parts.length > 1 && parts[0] !== '..' ? parts[0] : undefined
}

const rooms = readdirSync(EMULATOR, {withFileTypes: true}).filter((entry) => entry.isDirectory()).map((entry) => entry.name)
const allFiles = [...sourceFiles(SRC), ...sourceFiles(join(ROOT, 'test'))]

describe('the emulator in rooms', () => {
  it('keeps at most 8 files at its top level, and gives every room an index.ts', () => {
    const top = readdirSync(EMULATOR, {withFileTypes: true}).filter((entry) => entry.isFile())
    expect(top.length).toBeLessThanOrEqual(8)
    for (const room of rooms) expect(readdirSync(join(EMULATOR, room))).toContain('index.ts')
  })

  it("is reached from outside a room through the room's index.ts only", () => {
    const inner = allFiles.flatMap((file) =>
      importsOf(file)
        .filter((target) => roomOf(target) !== undefined && roomOf(target) !== roomOf(file) && !target.endsWith(`${sep}index.ts`))
        .map((target) => `${relative(ROOT, file)} -> ${relative(ROOT, target)}`),
    )
    expect(inner).toEqual([])
  })

  it('has no two rooms importing each other', () => {
    const edges = new Set(
      sourceFiles(EMULATOR).flatMap((file) => importsOf(file).filter((target) => roomOf(target) && roomOf(file) && roomOf(target) !== roomOf(file)).map((target) => `${roomOf(file)} -> ${roomOf(target)}`)),
    )
    const both = [...edges].filter((edge) => edges.has(edge.split(' -> ').reverse().join(' -> ')))
    expect(both).toEqual([])
  })

  it('does not import src/smoke, so smoke may import the emulator without a cycle', () => {
    const smoke = join(SRC, 'smoke') + sep
    const fromEmulator = sourceFiles(EMULATOR).flatMap((file) => importsOf(file).filter((target) => target.startsWith(smoke)).map((target) => `${relative(ROOT, file)} -> ${relative(ROOT, target)}`))
    expect(fromEmulator).toEqual([])
  })
})
