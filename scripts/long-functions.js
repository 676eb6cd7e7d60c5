#!/usr/bin/env node
// Lists the functions of src/ longer than a limit (60 lines by default), longest first, with the
// TypeScript compiler's own parse: declarations, methods, arrow functions and function
// expressions, counted from their first line to their last (a nested function counts in both).
//
//   node scripts/long-functions.js [--max 60] [--exclude emulator]
// Exits 1 when there is any.
import {readFileSync, readdirSync} from 'node:fs'
import {join, relative} from 'node:path'
import {fileURLToPath} from 'node:url'

import ts from 'typescript'

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..')
const args = process.argv.slice(2)
const option = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined)
const max = Number(option('--max') ?? 60)
const excluded = args.flatMap((arg, index) => (args[index - 1] === '--exclude' ? [arg] : []))

function sourceFiles(dir) {
  return readdirSync(dir, {withFileTypes: true}).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : []
  })
}

function nameOf(node) {
  if (node.name) return node.name.getText()
  const parent = node.parent
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))) return parent.name.getText()
  return '(anonymous)'
}

const long = []
for (const file of sourceFiles(join(root, 'src'))) {
  const path = relative(root, file)
  if (excluded.some((folder) => path.startsWith(join('src', folder)))) continue
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true)
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line
      const lines = last - first + 1
      const owner = node.parent && ts.isClassLike(node.parent) && node.parent.name ? `${node.parent.name.getText()}.` : ''
      if (lines > max) long.push({lines, where: `${path}:${first + 1}`, name: `${owner}${nameOf(node)}`})
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
}
long.sort((a, b) => b.lines - a.lines)
for (const {lines, where, name} of long) console.log(`${String(lines).padStart(4)}  ${name}  ${where}`)
console.log(`${long.length} function${long.length === 1 ? '' : 's'} over ${max} lines${excluded.length > 0 ? ` (outside ${excluded.join(', ')})` : ''}.`)
process.exitCode = long.length > 0 ? 1 : 0
