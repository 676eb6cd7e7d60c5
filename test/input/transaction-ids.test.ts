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

  it('reports a line over the 1 MiB cap as not an id and reads no further', async () => {
    async function* stdin() {
      yield Buffer.from('a\nb\n')
      for (let mib = 0; mib < 4; mib++) yield Buffer.alloc(512 * 1024, 0x78)
      throw new Error('read past the cap')
    }
    const targets = await allOf((await toLookupOptions({ids: ['-']}, {stdin: stdin()})).targets)
    expect(targets.map((target) => target.id)).toEqual(['a', 'b', ''])
    expect(targets[2]).toMatchObject({where: 'stdin line 3', problem: 'it is longer than 1 MiB; the rest of stdin was not read'})
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
