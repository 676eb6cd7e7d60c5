import {describe, expect, it} from 'vitest'

import {InputError} from '../../src/errors.js'
import {type IdTarget, type LookupFlags, type LookupOptions, idShapeProblem, toLookupOptions} from '../../src/input/transaction-ids.js'

/** Texts as the streams the command reads: stdin, and the --from-file list. */
interface Texts {
  stdin?: string
  fromFile?: string
}

/** A text as a stream, in small chunks so that lines are split across them. */
async function* streamOf(text: string, chunkSize = 3): AsyncGenerator<Buffer> {
  const bytes = Buffer.from(text)
  for (let at = 0; at < bytes.length; at += chunkSize) yield bytes.subarray(at, at + chunkSize)
}

function lookupOptions(flags: LookupFlags, texts: Texts = {}): Promise<LookupOptions> {
  return toLookupOptions(flags, {stdin: streamOf(texts.stdin ?? ''), fromFile: texts.fromFile === undefined ? undefined : streamOf(texts.fromFile)})
}

async function allOf(targets: AsyncIterable<IdTarget>): Promise<IdTarget[]> {
  const all: IdTarget[] = []
  for await (const target of targets) all.push(target)
  return all
}

describe('toLookupOptions', () => {
  it.each<{name: string; flags: LookupFlags; sources?: Texts; ids: string[]; many: boolean; concurrency?: number}>([
    {name: 'one id argument', flags: {ids: ['tx-1']}, ids: ['tx-1'], many: false},
    {name: 'one id, trimmed', flags: {ids: ['  tx-1\t']}, ids: ['tx-1'], many: false},
    {name: 'several arguments', flags: {ids: ['a', 'b', 'c']}, ids: ['a', 'b', 'c'], many: true},
    {name: 'stdin where - stands', flags: {ids: ['a', '-', 'z']}, sources: {stdin: 'b\n\n# skip\n c \r\n'}, ids: ['a', 'b', 'c', 'z'], many: true},
    {name: 'one id on stdin keeps the one-id view', flags: {ids: ['-']}, sources: {stdin: '\ntx-9\n'}, ids: ['tx-9'], many: false},
    {name: 'a file after the arguments', flags: {ids: ['a'], 'from-file': 'ids.txt'}, sources: {fromFile: '\uFEFFb\n#c\nd'}, ids: ['a', 'b', 'd'], many: true},
    {name: '--from-file -', flags: {ids: [], 'from-file': '-'}, sources: {stdin: 'x\ny\n'}, ids: ['x', 'y'], many: true},
    {name: '--csv with one id gives rows', flags: {ids: ['a'], csv: true}, ids: ['a'], many: true},
    {name: '--concurrency', flags: {ids: ['a', 'b'], concurrency: 9}, ids: ['a', 'b'], many: true, concurrency: 9},
  ])('$name', async ({flags, sources, ids, many, concurrency}) => {
    const options = await lookupOptions(flags, sources)
    expect((await allOf(options.targets)).map((target) => target.id)).toEqual(ids)
    expect(options.first.id).toBe(ids[0])
    expect(options.many).toBe(many)
    expect(options.concurrency).toBe(concurrency ?? 4)
  })

  it('keeps a line that is not an id, with where it was and why, among good ones', async () => {
    const options = await lookupOptions({ids: ['-']}, {stdin: 'good\nnot good\n\nalso?bad\n'})
    expect(await allOf(options.targets)).toEqual([
      {id: 'good', where: 'stdin line 1'},
      {id: 'not good', where: 'stdin line 2', problem: 'it contains whitespace (one id per line)'},
      {id: 'also?bad', where: 'stdin line 4', problem: 'it contains "?", which cannot be part of an id in the URL'},
    ])
  })

  it.each<{name: string; flags: LookupFlags; sources?: Texts; flag: string; message: RegExp}>([
    {name: 'no id at all', flags: {ids: []}, flag: 'id', message: /A transaction id is required/},
    {name: 'an empty list', flags: {ids: ['-']}, sources: {stdin: '# only\n\n'}, flag: 'id', message: /only blank lines and comments/},
    {name: 'one id that is not one', flags: {ids: ['a/b']}, flag: 'id', message: /"a\/b" \(the id argument\) is not a transaction id/},
    {name: 'only bad lines', flags: {ids: ['-']}, sources: {stdin: 'a b\n'.repeat(2)}, flag: 'id', message: /None of the 2 lines/},
    {name: 'stdin twice', flags: {ids: ['-'], 'from-file': '-'}, flag: '--from-file', message: /stdin can be read once/},
    {name: '--concurrency 0', flags: {ids: ['a', 'b'], concurrency: 0}, flag: '--concurrency', message: /from 1 to 32/},
    {name: '--concurrency 33', flags: {ids: ['a', 'b'], concurrency: 33}, flag: '--concurrency', message: /from 1 to 32/},
    {name: '--csv with --json', flags: {ids: ['a', 'b'], csv: true, json: true}, flag: '--csv', message: /cannot be used together/},
  ])('refuses $name', async ({flags, sources, flag, message}) => {
    const caught = await lookupOptions(flags, sources).catch((error: unknown) => error)
    expect(caught).toBeInstanceOf(InputError)
    expect((caught as InputError).flag).toBe(flag)
    expect((caught as InputError).message).toMatch(message)
  })
})

describe('reading ids as they come', () => {
  it('starts after the first two ids while stdin is still open, and reads further only as the targets are taken', async () => {
    let release!: () => void
    const more = new Promise<void>((resolve) => (release = resolve))
    let linesRead = 0
    async function* stdin() {
      for (const line of ['a\n', 'b\n', 'c\n']) {
        linesRead++
        yield Buffer.from(line)
      }
      await more // a pipe whose writer has not finished
      linesRead++
      yield Buffer.from('d\n')
    }
    const options = await toLookupOptions({ids: ['-']}, {stdin: stdin()})
    expect(options.many).toBe(true)
    expect(linesRead).toBe(2)
    const iterator = options.targets[Symbol.asyncIterator]()
    expect((await iterator.next()).value?.id).toBe('a')
    expect((await iterator.next()).value?.id).toBe('b')
    expect((await iterator.next()).value?.id).toBe('c')
    release()
    expect((await iterator.next()).value?.id).toBe('d')
    expect((await iterator.next()).done).toBe(true)
  })

  /** `bytes` of `fill` in 64 KiB chunks of one reused buffer, as a pipe hands them over. */
  function* filler(bytes: number, fill: number, counter: {read: number}): Generator<Buffer> {
    const chunk = Buffer.alloc(64 * 1024, fill)
    for (let at = 0; at < bytes; at += chunk.length) {
      counter.read += Math.min(chunk.length, bytes - at)
      yield chunk.subarray(0, Math.min(chunk.length, bytes - at))
    }
  }

  it('reports a 10 MB line by its first characters and its length, and reads the ids after it', async () => {
    const counter = {read: 0}
    async function* stdin() {
      yield Buffer.from('a\n  ')
      yield* filler(10 * 1024 * 1024, 0x4a, counter)
      yield Buffer.from('\nb\n')
    }
    const options = await toLookupOptions({ids: ['-']}, {stdin: stdin()})
    const targets = await allOf(options.targets)
    expect(targets.map((target) => target.problem === undefined)).toEqual([true, false, true])
    expect(targets.map((target) => target.where)).toEqual(['stdin line 1', 'stdin line 2', 'stdin line 3'])
    expect(targets[1].id).toBe(`${'J'.repeat(40)}… (10485762 bytes)`)
    expect(targets[1].problem).toBe('it is longer than 1 MiB (10485762 bytes); an id is at most 200 characters')
    expect(targets[2].id).toBe('b')
    expect(counter.read).toBe(10 * 1024 * 1024)
  })

  it('skips a comment longer than the cap like any comment', async () => {
    async function* stdin() {
      yield Buffer.from('a\n  # pasted log: ')
      yield* filler(3 * 1024 * 1024, 0x4a, {read: 0})
      yield Buffer.from('\nb\n')
    }
    expect((await allOf((await toLookupOptions({ids: ['-']}, {stdin: stdin()})).targets)).map((target) => target.id)).toEqual(['a', 'b'])
  })

  it('one line over the cap alone is refused as not an id, with what an id looks like', async () => {
    async function* stdin() {
      yield* filler(2 * 1024 * 1024, 0x78, {read: 0})
    }
    const caught = await toLookupOptions({ids: ['-']}, {stdin: stdin()}).catch((error: unknown) => error)
    expect(caught).toBeInstanceOf(InputError)
    expect((caught as InputError).message).toMatch(/^"x{40}… \(2097152 bytes\)" \(stdin line 1\) is not a transaction id: it is longer than 1 MiB/)
    expect((caught as InputError).hint).toMatch(/one word of at most 200 characters, such as 9a2e4b7c-/)
  })

  it('ends at a line with no end in sight (stdin from /dev/zero) after 64 MiB, keeping the ids before it', async () => {
    const counter = {read: 0}
    async function* stdin() {
      yield Buffer.from('a\nb\n')
      yield* filler(Number.MAX_SAFE_INTEGER, 0, counter)
    }
    const targets = await allOf((await toLookupOptions({ids: ['-']}, {stdin: stdin()})).targets)
    expect(targets.map((target) => target.id)).toEqual(['a', 'b', ''])
    expect(targets[2]).toMatchObject({where: 'stdin line 3', problem: 'it is longer than 64 MiB; the rest of stdin was not read'})
    expect(counter.read).toBeLessThanOrEqual(64 * 1024 * 1024 + 64 * 1024)
  })

  it('refuses a list in which no line is an id, however long, naming its first lines and how many', async () => {
    const caught = await lookupOptions({ids: ['-']}, {stdin: 'a b\n'.repeat(100_000)}).catch((error: unknown) => error)
    expect(caught).toBeInstanceOf(InputError)
    const message = (caught as InputError).message
    expect(message).toMatch(/^None of the 100000 lines is a transaction id; nothing was sent; the first 10:\n/)
    expect(message).toContain('  stdin line 10: "a b": it contains whitespace')
    expect(message).not.toContain('stdin line 11:')
    expect(message).toMatch(/\n {2}… and 99990 more$/)
    expect((caught as InputError).hint).toMatch(/such as 9a2e4b7c-/)
  })

  it('past 1000 lines that are not ids before the first id, the rest of them stand as one row', async () => {
    const options = await lookupOptions({ids: ['-']}, {stdin: `${'a b\n'.repeat(1500)}good\nalso-good\n`})
    const targets = await allOf(options.targets)
    expect(targets).toHaveLength(1003)
    expect(targets[999]).toMatchObject({where: 'stdin line 1000', problem: expect.stringContaining('whitespace')})
    expect(targets[1000]).toMatchObject({id: '(500 lines)', where: 'stdin line 1001 to stdin line 1500', problem: expect.stringContaining('none of these 500 lines')})
    expect(targets.slice(1001).map((target) => target.id)).toEqual(['good', 'also-good'])
  })

  it('looks past lines that are not ids for the first id before it decides', async () => {
    const options = await lookupOptions({ids: ['-']}, {stdin: 'a b\nc/d\ne f\ngood\n'})
    expect(options.many).toBe(true)
    expect((await allOf(options.targets)).map((target) => target.problem === undefined)).toEqual([false, false, false, true])
  })
})

describe('idShapeProblem', () => {
  it.each(['9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c', '65f1c0ffee0123456789abcd', 'tx_123', 'ümlaut-id', 'a%20b', 'x'.repeat(200)])('accepts %s', (id) => {
    expect(idShapeProblem(id)).toBeUndefined()
  })

  it.each([
    ['', /empty/],
    ['a b', /whitespace/],
    ['a\u0000b', /control character/],
    ['a/b', /"\/"/],
    ['a#b', /"#"/],
    ['a\\b', /"\\"/],
    ['x'.repeat(201), /longer than 200/],
  ])('rejects %j', (id, problem) => {
    expect(idShapeProblem(id)).toMatch(problem)
  })
})
