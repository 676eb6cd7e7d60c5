import {type Server, createServer} from 'node:http'

import {afterEach, describe, expect, it} from 'vitest'

import {EXIT} from '../../src/errors.js'
import {ListenError, listen, toListenError} from '../../src/http/listen.js'

describe('listen', () => {
  const servers: Server[] = []
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))))
  })
  const server = () => {
    const created = createServer((_req, res) => res.end('ok'))
    servers.push(created)
    return created
  }

  it('resolves with the port actually bound when 0 is asked, and serves there', async () => {
    const address = await listen(server(), {host: '127.0.0.1', port: 0})
    expect(address.address).toBe('127.0.0.1')
    expect(address.port).toBeGreaterThan(0)
    const response = await fetch(`http://127.0.0.1:${address.port}/`)
    expect(await response.text()).toBe('ok')
  })

  it('names the port and --port when it is in use (exit 2), and says how to get a free one', async () => {
    const {port} = await listen(server(), {host: '127.0.0.1', port: 0})
    const second = server()
    const error = await listen(second, {host: '127.0.0.1', port}).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(ListenError)
    expect(error).toMatchObject({
      problem: 'port-in-use',
      flag: '--port',
      exitCode: EXIT.input,
      message: `Port ${port} on 127.0.0.1 is in use; pick another with --port or stop the other program.`,
      hint: '--port 0 picks a free one.',
    })
    expect(second.listening).toBe(false)
  })

  it('uses the caller’s words for getting a free port', async () => {
    const {port} = await listen(server(), {host: '127.0.0.1', port: 0})
    await expect(listen(server(), {host: '127.0.0.1', port, freePortHint: 'Leave --port out to use a free one.'})).rejects.toMatchObject({
      hint: 'Leave --port out to use a free one.',
    })
  })

  it.each([
    ['EACCES', 'port-not-allowed', '--port', 'Not allowed to listen on port 80 on 127.0.0.1; ports below 1024 need privileges.'],
    ['EADDRNOTAVAIL', 'no-such-address', '--host', 'Cannot listen on 127.0.0.1: it is not an address of this machine.'],
    ['ENOTFOUND', 'no-such-address', '--host', 'Cannot listen on 127.0.0.1: it is not an address of this machine.'],
  ])('maps %s to %s naming %s', (code, problem, flag, message) => {
    const socketError = Object.assign(new Error(`listen ${code}`), {code})
    expect(toListenError(socketError, {host: '127.0.0.1', port: 80})).toMatchObject({problem, flag, message})
  })

  it('passes other socket errors on unchanged', () => {
    const socketError = Object.assign(new Error('listen EMFILE'), {code: 'EMFILE'})
    expect(toListenError(socketError, {host: '127.0.0.1', port: 80})).toBe(socketError)
  })
})
