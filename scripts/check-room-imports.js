#!/usr/bin/env node
// Checks that the emulator reads bottom-up: its rooms (each folder of src/emulator, and each
// file at its top) import each other in one direction, with no circle of any length, each room
// importing only rooms on its floor or below in FLOORS; and that no file of src/emulator or
// src/http is in an import circle of files. Type imports, re-exports
// and dynamic imports count (all of them couple). Prints each circle with the imports that make
// it and exits 1 if there is any; else prints the rooms' order, ground floor first.
//
//   node scripts/check-room-imports.js [--src <folder>]   (default: this repository's src/)
import {existsSync, readFileSync, readdirSync, statSync} from 'node:fs'
import {dirname, join, relative, resolve, sep} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const srcIndex = process.argv.indexOf('--src')
const srcDir = resolve(srcIndex === -1 ? join(root, 'src') : process.argv[srcIndex + 1])
/** The folders whose files may be in no circle of files. */
const ACYCLIC_FOLDERS = ['emulator', 'http']
const EMULATOR = join(srcDir, 'emulator')
/**
 * The emulator's floors, ground first: a room imports rooms of its own floor or below, never
 * above. The files at the top that every room's routes use (the request and answer, the router,
 * the key check, events, assumptions) are the ground; options and the server the roof.
 */
const FLOORS = [
  ['assumptions.ts', 'events.ts', 'http-exchange.ts', 'router.ts', 'auth.ts'],
  ['store/'],
  ['time/'],
  ['webhooks/'],
  ['faults/'],
  ['api/', 'pages/'],
  ['admin/', 'dashboard/'],
  ['options.ts'],
  ['server.ts'],
  ['index.ts'],
]
const floorOf = new Map(FLOORS.flatMap((rooms, floor) => rooms.map((room) => [room, floor])))

function sourceFiles(dir) {
  return readdirSync(dir, {withFileTypes: true}).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : []
  })
}

// `import ... from '...'`, `export ... from '...'`, `import '...'` and `import('...')`.
const SPECIFIERS = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g

/** The source file a relative specifier names (`./a.js` is `./a.ts`), or undefined outside src/. */
function targetOf(file, specifier) {
  const path = resolve(dirname(file), specifier)
  for (const candidate of [path.replace(/\.js$/, '.ts'), `${path}.ts`, join(path, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate
  }
  return undefined
}

const files = sourceFiles(srcDir)
/** file -> the files it imports */
const imports = new Map(files.map((file) => [file, new Set()]))
for (const file of files) {
  for (const [, specifier] of readFileSync(file, 'utf8').matchAll(SPECIFIERS)) {
    const target = targetOf(file, specifier)
    if (target && target !== file && imports.has(target)) imports.get(file).add(target)
  }
}

/** Tarjan's strongly connected components of a graph (Map node -> Set of nodes), those of more than one node. */
function circles(graph) {
  const index = new Map()
  const low = new Map()
  const stack = []
  const onStack = new Set()
  const found = []
  let next = 0
  const visit = (start) => {
    // Iterative, so that a long chain of imports cannot overflow the stack.
    const work = [[start, [...graph.get(start)], 0]]
    index.set(start, next)
    low.set(start, next++)
    stack.push(start)
    onStack.add(start)
    while (work.length > 0) {
      const frame = work[work.length - 1]
      const [node, targets] = frame
      if (frame[2] < targets.length) {
        const target = targets[frame[2]++]
        if (!index.has(target)) {
          index.set(target, next)
          low.set(target, next++)
          stack.push(target)
          onStack.add(target)
          work.push([target, [...(graph.get(target) ?? [])], 0])
        } else if (onStack.has(target)) low.set(node, Math.min(low.get(node), index.get(target)))
        continue
      }
      work.pop()
      if (work.length > 0) low.set(work[work.length - 1][0], Math.min(low.get(work[work.length - 1][0]), low.get(node)))
      if (low.get(node) !== index.get(node)) continue
      const component = []
      let member
      do {
        member = stack.pop()
        onStack.delete(member)
        component.push(member)
      } while (member !== node)
      if (component.length > 1) found.push(component)
    }
  }
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node)
  return found
}

/** The emulator's room of a file: its folder under src/emulator, or its own name at the top; undefined outside. */
function roomOf(file) {
  const parts = relative(EMULATOR, file).split(sep)
  if (parts[0] === '..') return undefined
  return parts.length > 1 ? `${parts[0]}/` : parts[0]
}

const rooms = new Map()
/** `from -> to` -> one file of `from` that imports `to`, as an example. */
const roomEdges = new Map()
for (const [file, targets] of imports) {
  const from = roomOf(file)
  if (!from) continue
  if (!rooms.has(from)) rooms.set(from, new Set())
  for (const target of targets) {
    const to = roomOf(target)
    if (!to || to === from) continue
    rooms.get(from).add(to)
    if (!roomEdges.has(`${from} -> ${to}`)) roomEdges.set(`${from} -> ${to}`, `${relative(srcDir, file)} imports ${relative(srcDir, target)}`)
  }
}

const problems = []
for (const room of [...rooms.keys()].sort()) {
  if (!floorOf.has(room)) problems.push(`The room ${room} of src/emulator has no floor: add it to FLOORS in scripts/check-room-imports.js.`)
}
for (const [edge, example] of roomEdges) {
  const [from, to] = edge.split(' -> ')
  if (floorOf.get(from) < floorOf.get(to)) problems.push(`A room imports a room above it: ${edge} (${example}).`)
}
for (const circle of circles(rooms)) {
  const members = new Set(circle)
  const inside = [...roomEdges].filter(([edge]) => edge.split(' -> ').every((room) => members.has(room)))
  problems.push(`Rooms of src/emulator in a circle: ${[...members].sort().join(', ')}`, ...inside.map(([edge, example]) => `  ${edge}: ${example}`))
}
const acyclic = ACYCLIC_FOLDERS.map((folder) => join(srcDir, folder) + sep)
for (const circle of circles(imports)) {
  if (!circle.some((file) => acyclic.some((folder) => file.startsWith(folder)))) continue
  const members = new Set(circle)
  const inside = circle.sort().flatMap((file) => [...imports.get(file)].filter((target) => members.has(target)).map((target) => `  ${relative(srcDir, file)} imports ${relative(srcDir, target)}`))
  problems.push(`Files in an import circle (${circle.length} files):`, ...inside)
}
if (problems.length > 0) {
  console.error(problems.join('\n'))
  process.exit(1)
}

console.log(`The emulator's rooms import one way, ground floor first: ${FLOORS.map((rooms) => rooms.join(' ')).join(' < ')}`)
console.log(`No file of src/${ACYCLIC_FOLDERS.join(' or src/')} is in an import circle (${files.length} files read).`)
