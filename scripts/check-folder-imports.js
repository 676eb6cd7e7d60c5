#!/usr/bin/env node
// Checks that no two folders of src/ import each other, type imports and dynamic imports
// included (both couple the folders), by reading every import specifier of every source file.
// Prints each pair of folders that import each other, with one file of each side as an example,
// and exits 1 if there is any. Files at the top of src/ (the base command, errors) are not a folder.
//
//   node scripts/check-folder-imports.js [--allow a<->b ...]
import {readFileSync, readdirSync} from 'node:fs'
import {dirname, join, relative, resolve, sep} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const srcDir = join(root, 'src')
const allowed = new Set(process.argv.slice(2).filter((arg, index, all) => all[index - 1] === '--allow'))

function sourceFiles(dir) {
  return readdirSync(dir, {withFileTypes: true}).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : []
  })
}

/** The top folder of src/ a file is in, or undefined for a file at the top. */
function folderOf(file) {
  const parts = relative(srcDir, file).split(sep)
  return parts.length > 1 ? parts[0] : undefined
}

// `import ... from '...'`, `export ... from '...'`, `import '...'` and `import('...')`.
const SPECIFIERS = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g

const edges = new Map()
for (const file of sourceFiles(srcDir)) {
  const from = folderOf(file)
  if (!from) continue
  for (const [, specifier] of readFileSync(file, 'utf8').matchAll(SPECIFIERS)) {
    const to = folderOf(resolve(dirname(file), specifier))
    if (!to || to === from) continue
    const key = `${from}->${to}`
    if (!edges.has(key)) edges.set(key, relative(root, file))
  }
}

const cycles = []
for (const [key, example] of edges) {
  const [from, to] = key.split('->')
  if (from > to || !edges.has(`${to}->${from}`)) continue
  if (allowed.has(`${from}<->${to}`) || allowed.has(`${to}<->${from}`)) continue
  cycles.push(`${from} <-> ${to}: ${example} imports ${to}/, ${edges.get(`${to}->${from}`)} imports ${from}/`)
}
if (cycles.length > 0) {
  console.error(`Folders of src/ that import each other:\n${cycles.map((line) => `  ${line}`).join('\n')}`)
  process.exit(1)
}
console.log(`No two folders of src/ import each other (${edges.size} folder-to-folder imports checked).`)
