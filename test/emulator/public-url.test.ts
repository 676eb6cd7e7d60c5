/**
 * An emulator behind another address (a compose service name, a port mapping): --public-url puts
 * that address in approval_url and the pages, and requests naming its host are answered as the
 * emulator's own; other names are still refused on loopback, and all are answered beyond it, by
 * the dashboard as by the admin routes.
 */
import {request} from 'node:http'

import {afterEach, describe, expect, it} from 'vitest'

import {toEmulatorStartOptions} from '../../src/commands/emulator/start.js'
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js'
import {emulatorApi} from '../helpers/emulator-api.js'
import {parseFlags} from '../helpers/parse-flags.js'
import EmulatorStart from '../../src/commands/emulator/start.js'

/** A GET whose Host names the emulator as a browser elsewhere would (the connection still goes to 127.0.0.1). */
function getWithHost(url: string, host: string): Promise<{status: number; text: string}> {
  return new Promise((resolve, reject) => {
    const {hostname, port, origin} = new URL(url)
    const req = request({hostname, port, path: url.slice(origin.length), headers: {host}, agent: false}, (res) => {
      let text = ''
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
      res.on('end', () => resolve({status: res.statusCode!, text}))
    })
    req.on('error', reject)
    req.end()
  })
}

describe('emulator behind a public address', () => {
  const started: RunningEmulator[] = []
  afterEach(async () => {
    await Promise.all(started.splice(0).map((emulator) => emulator.close()))
  })

  it('--public-url: approval_url and the approval page’s form use it; the dashboard and admin routes answer its host, and still refuse others', async () => {
    const emulator = await startEmulator({port: 0, store: ':memory:', publicUrl: 'http://paytx:4010/'})
    started.push(emulator)
    expect(emulator.publicUrl).toBe('http://paytx:4010')
    const {transaction} = await emulatorApi(emulator).startPayment('dummy')
    expect(transaction.details.approval_url).toBe(`http://paytx:4010/v1/transaction/${transaction.id}/authorize`)
    const read = await emulatorApi(emulator).transaction(transaction.id)
    expect(read.body.details.approval_url).toBe(transaction.details.approval_url)

    const page = await getWithHost(`${emulator.url}/v1/transaction/${transaction.id}/authorize`, 'paytx:4010')
    expect(page.status).toBe(200)
    expect(page.text).toContain(`action="/v1/transaction/${transaction.id}/authorize"`)
    for (const path of ['/', '/_emulator/health']) {
      expect((await getWithHost(`${emulator.url}${path}`, 'paytx:4010')).status, path).toBe(200)
      expect((await getWithHost(`${emulator.url}${path}`, `127.0.0.1:${emulator.port}`)).status, path).toBe(200)
      expect((await getWithHost(`${emulator.url}${path}`, 'evil.example:4010')).status, path).toBe(403)
    }
  })

  it('without it, approval_url is the address it listens at, and a compose name is refused on loopback', async () => {
    const emulator = await startEmulator({port: 0, store: ':memory:'})
    started.push(emulator)
    const {transaction} = await emulatorApi(emulator).startPayment('dummy')
    expect(transaction.details.approval_url).toBe(`${emulator.url}/v1/transaction/${transaction.id}/authorize`)
    expect((await getWithHost(`${emulator.dashboardUrl}`, 'paytx:4010')).status).toBe(403)
  })

  it('listening beyond loopback, the dashboard answers any name, as the admin routes do (a compose service)', async () => {
    const emulator = await startEmulator({port: 0, host: '0.0.0.0', store: ':memory:'})
    started.push(emulator)
    for (const path of ['/', '/_emulator/health']) expect((await getWithHost(`http://127.0.0.1:${emulator.port}${path}`, 'paytx:4010')).status, path).toBe(200)
  })

  it.each([
    ['http://paytx:4010', 'http://paytx:4010'],
    ['https://pay.example.com/', 'https://pay.example.com'],
    ['HTTP://Paytx:4010', 'http://paytx:4010'],
  ])('emulator start --public-url %s is taken as %s', async (given, taken) => {
    const flags = await parseFlags(EmulatorStart, ['--public-url', given])
    expect(toEmulatorStartOptions(flags, {}).publicUrl).toBe(taken)
  })

  it.each(['paytx:4010', 'http://paytx:4010/v1', 'http://paytx:4010/?key=x', 'ftp://paytx', 'http://u:secretpw@paytx:4010'])('emulator start --public-url %s is refused, naming the flag', async (given) => {
    const flags = await parseFlags(EmulatorStart, ['--public-url', given])
    let error: Error & {flag?: string} = new Error('not refused')
    try {
      toEmulatorStartOptions(flags, {})
    } catch (caught) {
      error = caught as Error & {flag?: string}
    }
    expect(error.message).toMatch(/^--public-url must be an http\(s\) address with no path/)
    expect(error.message).not.toContain('secretpw')
  })
})
