/**
 * Every YAML block of the README and docs/ (CI recipes, scenario and fault files) is YAML that a
 * parser takes: GitHub Actions, GitLab and paytx itself refuse a file that is not, and a recipe
 * that is copied from here must work as it stands.
 */
import {readFileSync, readdirSync} from 'node:fs'
import {join, relative} from 'node:path'
import {describe, expect, it} from 'vitest'
import {parseAllDocuments} from 'yaml'

import {ROOT} from '../helpers/cli.js'

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap((entry) =>
    entry.isDirectory() ? markdownFiles(join(dir, entry.name)) : entry.name.endsWith('.md') ? [join(dir, entry.name)] : [],
  )
}

/** Each ```yaml (or ```yml) block of a page, with the line it starts on. */
function yamlBlocks(file: string): {where: string; text: string}[] {
  const blocks: {where: string; text: string}[] = []
  const lines = readFileSync(file, 'utf8').split('\n')
  for (let index = 0; index < lines.length; index++) {
    const open = /^(\s*)(`{3,})ya?ml\s*$/.exec(lines[index])
    if (!open) continue
    const [, indent, fence] = open
    const body: string[] = []
    let end = index + 1
    while (end < lines.length && lines[end].trim() !== fence) body.push(lines[end++].slice(indent.length))
    blocks.push({where: `${relative(ROOT, file)}:${index + 1}`, text: body.join('\n')})
    index = end
  }
  return blocks
}

const BLOCKS = [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs'))].flatMap(yamlBlocks)

describe('YAML in the docs', () => {
  it('has blocks to check (the README’s CI tour and docs/smoke.md’s recipes among them)', () => {
    expect(BLOCKS.map((block) => block.where.split(':')[0])).toEqual(expect.arrayContaining(['README.md', 'docs/smoke.md']))
  })

  it.each(BLOCKS.map((block) => [block.where, block.text]))('%s parses', (_where, text) => {
    const problems = parseAllDocuments(text).flatMap((document) => ('errors' in document ? document.errors.map((error) => error.message) : []))
    expect(problems).toEqual([])
  })

  it('a CI recipe runs paytx as a project that depends on it does: npx paytx, examples from node_modules/paytx', () => {
    const recipes = BLOCKS.filter((block) => /\bruns-on:|\bscript:|- run:/.test(block.text))
    expect(recipes.length).toBeGreaterThan(0)
    for (const recipe of recipes) {
      expect(recipe.text, recipe.where).not.toMatch(/\.\/bin\/run\.js|npm run build/)
      for (const [, file] of recipe.text.matchAll(/paytx smoke run (\S+)/g)) expect(file, recipe.where).toMatch(/^node_modules\/paytx\/examples\//)
    }
  })
})
