import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {Readable} from 'node:stream'

import {describe, expect, it} from 'vitest'

import {InputError} from '../../src/errors.js'
import {formatByteSize, readFileCapped, readLines, readStreamCapped} from '../../src/input/bounded-read.js'

/** A stream of `total` zero bytes in 64 KiB chunks, produced lazily as /dev/zero would; counts what was pulled. */
function zeros(total: number): Readable & {pulled: number} {
  const chunk = Buffer.alloc(64 * 1024)
  let left = total
  const stream = new Readable({
    read() {
      if (left <= 0) return void this.push(null)
      const size = Math.min(chunk.length, left)
      left -= size
      stream.pulled += size
      this.push(chunk.subarray(0, size))
    },
  }) as Readable & {pulled: number}
  stream.pulled = 0
  return stream
}

async function collect(lines: AsyncIterable<{text: string; number: number}>) {
  const seen = []
  for await (const line of lines) seen.push(line)
  return seen
}

describe('readLines', () => {
  it('yields lines split across chunks, without their ends, numbered from 1, a BOM and a last line without end included', async () => {
    const stream = Readable.from([Buffer.from('\uFEFFfir'), Buffer.from('st\r\nsecond\n\nthi'), Buffer.from('rd')])
    expect(await collect(readLines(stream, {flag: '-', source: 'stdin'}))).toEqual([
      {text: 'first', number: 1},
      {text: 'second', number: 2},
      {text: '', number: 3},
      {text: 'third', number: 4},
    ])
  })

  it('stops at a line longer than the cap, naming the flag and the line, having pulled little more than the cap', async () => {
    const stream = zeros(1024 * 1024 * 1024)
    const read = collect(readLines(stream, {flag: 'id', source: 'stdin', maxBytes: 256 * 1024}))
    await expect(read).rejects.toThrow(InputError)
    await expect(read).rejects.toThrow('id: line 1 of stdin is longer than 256 KiB; one value per line is expected.')
    expect(stream.pulled).toBeLessThan(512 * 1024)
  })

  it('counts the bytes of a long line that ends within a chunk', async () => {
    const stream = Readable.from([Buffer.from(`ok\n${'x'.repeat(20)}\n`)])
    await expect(collect(readLines(stream, {flag: 'id', source: 'stdin', maxBytes: 10}))).rejects.toThrow('line 2 of stdin is longer than 10 bytes')
  })
})

describe('readLines with longLines: skip', () => {
  it('yields a long line cut to its first bytes with its length, and reads the lines after it', async () => {
    const stream = Readable.from([Buffer.from('ok\nab'), Buffer.alloc(3 * 1024 * 1024, 0x78), Buffer.from('cd\nnext\nlong'), Buffer.alloc(1024, 0x79)])
    const lines = await collect(readLines(stream, {flag: 'id', source: 'stdin', maxBytes: 1024, longLines: 'skip'}))
    expect(lines).toEqual([
      {text: 'ok', number: 1},
      {text: `ab${'x'.repeat(254)}`, number: 2, longBytes: 3 * 1024 * 1024 + 4},
      {text: 'next', number: 3},
      {text: `long${'y'.repeat(252)}`, number: 4, longBytes: 1028},
    ])
  })

  it('ends with the input error at a line longer than 64 MiB, having pulled little more', async () => {
    const stream = zeros(1024 * 1024 * 1024)
    await expect(collect(readLines(stream, {flag: 'id', source: 'stdin', maxBytes: 1024, longLines: 'skip'}))).rejects.toThrow('id: line 1 of stdin is longer than 64 MiB')
    expect(stream.pulled).toBeLessThan(65 * 1024 * 1024)
  })
})

describe('readStreamCapped and readFileCapped', () => {
  it('read up to the cap and refuse beyond it, naming the flag, the source and the cap', async () => {
    expect(await readStreamCapped(Readable.from([Buffer.from('{"a":'), Buffer.from('1}')]), {flag: '--input', source: 'stdin'})).toBe('{"a":1}')
    const stream = zeros(1024 * 1024 * 1024)
    await expect(readStreamCapped(stream, {flag: '--input', source: 'stdin', maxBytes: 1024 * 1024})).rejects.toThrow(
      '--input: stdin is larger than 1 MiB, the most paytx reads here.',
    )
    expect(stream.pulled).toBeLessThan(2 * 1024 * 1024)
  })

  it('refuse a regular file over the cap from its size, and a device before reading it', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'paytx-bounded-'))
    const big = join(folder, 'big.json')
    writeFileSync(big, 'x'.repeat(2048))
    await expect(readFileCapped(big, {flag: '--input', maxBytes: 1024})).rejects.toThrow(`--input: ${big} is larger than 1 KiB`)
    await expect(readFileCapped('/dev/zero', {flag: '--input', maxBytes: 1024 * 1024})).rejects.toThrow('it is a device, not a regular file')
    await expect(readFileCapped(folder, {flag: '--input'})).rejects.toMatchObject({code: 'EISDIR'})
    expect(formatByteSize(10 * 1024 * 1024)).toBe('10 MiB')
  })
})
