/**
 * The one gate of every file paytx reads (src/input/input-file.ts): special files are told apart
 * before they are opened for reading, a FIFO is read through the event loop (its writer's close
 * ends the read, a signal ends the wait), and reads are capped. A call that blocked a thread on a
 * FIFO would not return: the test's own timeout says so.
 */
import {execFileSync} from 'node:child_process'
import {createWriteStream, mkdirSync, mkdtempSync, symlinkSync, writeFileSync} from 'node:fs'
import {type Server, createServer} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {InterruptedError} from '../../src/errors.js'
import {readFileCapped, readStreamCapped, untilAborted} from '../../src/input/bounded-read.js'
import {FileTooLargeError, SpecialFileError, openInputFile, readRegularFileSync} from '../../src/input/input-file.js'

const folder = () => mkdtempSync(join(tmpdir(), 'paytx-input-file-'))

function fifo(): string {
  const path = join(folder(), 'pipe')
  execFileSync('mkfifo', [path], {timeout: 5_000})
  return path
}

/** Writes `text` into the FIFO once a reader has opened it (the writer's open waits for one), then closes it. */
function writeInto(path: string, text: string | Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const writer = createWriteStream(path)
    writer.on('error', reject)
    writer.end(text, () => resolve())
  })
}

const servers: Server[] = []
afterEach(() => {
  for (const server of servers.splice(0)) server.close()
})

function socketFile(): Promise<string> {
  const path = join(folder(), 'socket')
  const server = createServer()
  servers.push(server)
  return new Promise((resolve) => server.listen(path, () => resolve(path)))
}

describe('readRegularFileSync (the profile file)', () => {
  it('reads a regular file, and one behind a link', () => {
    const dir = folder()
    writeFileSync(join(dir, 'real.json'), '{"profiles":{}}')
    symlinkSync(join(dir, 'real.json'), join(dir, 'linked.json'))
    expect(readRegularFileSync(join(dir, 'real.json'), 1024).toString()).toBe('{"profiles":{}}')
    expect(readRegularFileSync(join(dir, 'linked.json'), 1024).toString()).toBe('{"profiles":{}}')
  })

  it('refuses a FIFO at once, without waiting for a writer', () => {
    const path = fifo()
    expect(() => readRegularFileSync(path, 1024)).toThrow(new SpecialFileError(path, 'fifo'))
    expect(() => readRegularFileSync(path, 1024)).toThrow('it is a FIFO (named pipe), not a regular file')
  })

  it('refuses a device, and a link to one naming where it leads, without reading it', () => {
    const link = join(folder(), 'profiles.json')
    symlinkSync('/dev/zero', link)
    expect(() => readRegularFileSync('/dev/zero', 1024)).toThrow('it is a device, not a regular file')
    expect(() => readRegularFileSync(link, 1024)).toThrow('it is a link to /dev/zero, a device, not a regular file')
  })

  it('refuses a socket and a folder (EISDIR, as callers name it)', async () => {
    const socket = await socketFile()
    expect(() => readRegularFileSync(socket, 1024)).toThrow('it is a socket, not a regular file')
    const dir = folder()
    mkdirSync(join(dir, 'profiles.json'))
    expect(() => readRegularFileSync(join(dir, 'profiles.json'), 1024)).toThrow(expect.objectContaining({code: 'EISDIR', message: 'it is a folder'}))
  })

  it('refuses a file over the cap from its size, and reads one at the cap', () => {
    const path = join(folder(), 'big')
    writeFileSync(path, 'x'.repeat(1025))
    expect(() => readRegularFileSync(path, 1024)).toThrow(FileTooLargeError)
    writeFileSync(path, 'x'.repeat(1024))
    expect(readRegularFileSync(path, 1024)).toHaveLength(1024)
  })

  it('throws the file system error of a missing file as it comes', () => {
    expect(() => readRegularFileSync(join(folder(), 'missing'), 1024)).toThrow(expect.objectContaining({code: 'ENOENT'}))
  })
})

describe('openInputFile and readFileCapped (files named on the command line)', () => {
  it('reads a FIFO until its writer closes it', async () => {
    const path = fifo()
    const [text] = await Promise.all([readFileCapped(path, {flag: '--data'}), writeInto(path, '{"first_name": "Jane"}')])
    expect(text).toBe('{"first_name": "Jane"}')
  })

  it('stops reading a FIFO at the cap, naming the flag, the file and the cap', async () => {
    const path = fifo()
    const writing = writeInto(path, Buffer.alloc(256 * 1024)).catch(() => {})
    await expect(readFileCapped(path, {flag: '--input', maxBytes: 64 * 1024})).rejects.toThrow(`--input: ${path} is larger than 64 KiB, the most paytx reads here.`)
    await writing
  })

  it('refuses a device and a socket before reading', async () => {
    await expect(readFileCapped('/dev/zero', {flag: '--input', maxBytes: 1024 * 1024})).rejects.toThrow('it is a device, not a regular file')
    await expect(readFileCapped(await socketFile(), {flag: '--input'})).rejects.toThrow(SpecialFileError)
  })

  it('refuses a FIFO where the reader takes none, without opening it', async () => {
    await expect(openInputFile(fifo(), {fifo: false})).rejects.toThrow('it is a FIFO (named pipe), not a regular file')
  })

  it('ends the wait for a FIFO that has a writer who writes nothing when the signal aborts, with its reason', async () => {
    const path = fifo()
    const file = await openInputFile(path, {fifo: true})
    const controller = new AbortController()
    // The writer's open returns once the reader's end is open: the reader is now waiting for data.
    const writer = createWriteStream(path)
    await new Promise((resolve) => writer.once('open', resolve))
    const reading = readStreamCapped(untilAborted(file.chunks, controller.signal), {flag: 'FILE', source: path})
    controller.abort(new InterruptedError())
    await expect(reading).rejects.toBeInstanceOf(InterruptedError)
    writer.destroy()
    file.close()
  })
})
