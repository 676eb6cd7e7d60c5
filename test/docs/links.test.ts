/**
 * The README stays a front page (at most 200 lines; the rest lives under docs/), and no page sends
 * a reader nowhere: every relative link of README.md, CONTRIBUTING.md and docs/**\/*.md names a
 * file that exists and, when it has a #fragment into a Markdown page, a heading of that page.
 */
import {existsSync, readFileSync, readdirSync} from 'node:fs'
import {dirname, join, relative, resolve} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap((entry) =>
    entry.isDirectory() ? markdownFiles(join(dir, entry.name)) : entry.name.endsWith('.md') ? [join(dir, entry.name)] : [],
  )
}

const PAGES = [join(ROOT, 'README.md'), join(ROOT, 'CONTRIBUTING.md'), ...markdownFiles(join(ROOT, 'docs'))]

/** The page's lines outside fenced code blocks (a link or heading in an example is not one). */
function proseLines(text: string): string[] {
  let fence: string | undefined
  return text.split('\n').filter((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1]
    if (marker && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined
      return false
    }
    return fence === undefined
  })
}

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as dashes, repeats numbered. */
function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const line of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1]
    if (heading === undefined) continue
    const words = heading.replaceAll(/\[([^\]]*)\]\([^)]*\)/g, '$1').toLowerCase()
    const base = words.replaceAll(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replaceAll(' ', '-')
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    anchors.add(count === 0 ? base : `${base}-${count}`)
  }
  return anchors
}

/** Relative link targets of a page: `[text](target)`, outside code (fenced or inline) and HTML comments. */
function relativeLinks(text: string): string[] {
  const prose = proseLines(text)
    .join('\n')
    .replaceAll(/<!--[\s\S]*?-->/g, '')
    .replaceAll(/(`+)[\s\S]*?\1/g, '``')
  return [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)]
    .map((match) => match[1])
    .filter((target) => !/^[a-z][a-z\d+.-]*:/i.test(target))
}

describe('the docs', () => {
  it('keep the README at most 200 lines', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    expect(readme.replace(/\n$/, '').split('\n').length).toBeLessThanOrEqual(200)
  })

  it('link only to files and headings that exist', () => {
    const broken: string[] = []
    let checked = 0
    for (const page of PAGES) {
      for (const target of relativeLinks(readFileSync(page, 'utf8'))) {
        checked++
        const [path, fragment] = target.split('#', 2)
        const file = path === '' ? page : resolve(dirname(page), decodeURIComponent(path))
        const where = `${relative(ROOT, page)}: ${target}`
        if (!existsSync(file)) broken.push(`${where} (no such file)`)
        else if (fragment && file.endsWith('.md') && !headingAnchors(readFileSync(file, 'utf8')).has(fragment)) broken.push(`${where} (no such heading)`)
      }
    }
    expect(broken).toEqual([])
    // The check saw the links at all: the README alone links to every page under docs/.
    expect(checked).toBeGreaterThan(PAGES.length)
  })

  it('turn headings into the anchors GitHub makes', () => {
    const anchors = headingAnchors('# Waiting for a transaction: `paytx status <id> --wait`\n## The store\n## The store\n```\n# not a heading\n```\n')
    expect([...anchors]).toEqual(['waiting-for-a-transaction-paytx-status-id---wait', 'the-store', 'the-store-1'])
  })
})
