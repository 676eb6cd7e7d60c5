/** doctor's checks that need no service: Node, clock skew, browser, folders, ports. */
import {chmodSync, mkdtempSync} from 'node:fs'
import {createServer} from 'node:net'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {browserCheck, folderCheck, nodeCheck} from '../../src/doctor/local-checks.js'
import {describeOwner, portCheck, portOwner} from '../../src/doctor/port-checks.js'
import {clockSkewSeconds} from '../../src/doctor/reach.js'
import {clockCheck} from '../../src/doctor/service-checks.js'
import {startEmulator} from '../../src/emulator/index.js'

describe('nodeCheck', () => {
  it.each([
    ['20.18.0', 'ok'],
    ['20.20.2', 'ok'],
    ['22.1.0', 'ok'],
    ['20.17.9', 'fail'],
    ['18.20.0', 'fail'],
  ] as const)('Node %s against >=20.18: %s', (version, status) => {
    expect(nodeCheck('>=20.18', version).status).toBe(status)
  })
})

describe('clock skew', () => {
  const sent = Date.parse('2026-11-25T10:00:00.000Z')
  it.each([
    ['Wed, 25 Nov 2026 10:00:00 GMT', sent, sent + 200, 0],
    ['Wed, 25 Nov 2026 10:00:30 GMT', sent, sent + 200, 30],
    ['Wed, 25 Nov 2026 09:50:00 GMT', sent, sent + 200, -600],
    [undefined, sent, sent, undefined],
    ['not a date', sent, sent, undefined],
  ])('Date %s read between %d and %d: service %s s ahead', (date, sentAt, receivedAt, skew) => {
    expect(clockSkewSeconds(date, sentAt, receivedAt)).toBe(skew)
  })

  it.each([
    [0, 'ok', 'within a second of the service’s'],
    [12, 'warn', '12 s behind the service’s'],
    [-600, 'fail', '600 s ahead of the service’s'],
    [undefined, 'ok', 'not compared'],
  ] as const)('a skew of %s s is %s', (skew, status, text) => {
    const check = clockCheck(skew)
    expect(check.status).toBe(status)
    expect(check.detail).toContain(text)
  })
})

describe('browserCheck', () => {
  it.each([
    [{BROWSER: 'firefox', PATH: '/nonexistent'}, 'linux', 'warn', 'BROWSER=firefox, but firefox is not on PATH'],
    [{BROWSER: 'node', PATH: process.env.PATH}, 'linux', 'ok', 'BROWSER=node'],
    [{PATH: '/nonexistent'}, 'linux', 'warn', 'no graphical session'],
    [{DISPLAY: ':0', PATH: '/nonexistent'}, 'linux', 'warn', 'xdg-open is not installed'],
    [{}, 'darwin', 'ok', 'open (macOS)'],
  ] as const)('%o on %s: %s', (env, platform, status, detail) => {
    const check = browserCheck(env, platform)
    expect(check.status).toBe(status)
    expect(check.detail).toContain(detail)
    if (status !== 'ok') expect(check.remedy).toContain('--approve <STATUS>')
  })
})

describe('folderCheck', () => {
  it('a private folder is fine, a shared one is a warning with the chmod to run, a missing one is made later', () => {
    const dir = mkdtempSync(join(tmpdir(), 'paytx-doctor-'))
    chmodSync(dir, 0o700)
    expect(folderCheck('data-folder', 'Data folder', dir)).toMatchObject({status: 'ok', detail: `${dir} (0700)`})
    chmodSync(dir, 0o755)
    expect(folderCheck('data-folder', 'Data folder', dir)).toMatchObject({status: 'warn', remedy: `chmod 700 '${dir}'`})
    expect(folderCheck('data-folder', 'Data folder', join(dir, 'later')).status).toBe('ok')
  })
})

describe('portCheck', () => {
  it('a free port, a paytx emulator, and another program named by its pid', async () => {
    // Another program that speaks no HTTP: it hangs up on whoever connects.
    const sockets = new Set<import('node:net').Socket>()
    const other = createServer((socket) => {
      sockets.add(socket)
      socket.end()
    })
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve))
    const otherPort = (other.address() as AddressInfo).port
    const emulator = await startEmulator({port: 0, store: ':memory:'})
    try {
      const emulatorPort = emulator.port
      expect(await portCheck('emulator-port', 'Emulator port', emulatorPort, 'x', 2000)).toMatchObject({status: 'ok', detail: expect.stringContaining('held by a paytx emulator')})
      const held = await portCheck('listen-port', 'Webhook listen port', otherPort, 'paytx webhook listen', 2000)
      expect(held.status).toBe('fail')
      expect(held.detail).toMatch(new RegExp(`^${otherPort} is held by \\S+ \\(pid ${process.pid}\\), not by paytx$`))
      expect(held.remedy).toMatch(new RegExp(`^Stop it \\(\`kill ${process.pid}\`\\), or use another port: \`paytx webhook listen --port \\d+\`\\.$`))
    } finally {
      await emulator.close()
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => other.close(resolve))
    }
    expect(await portCheck('listen-port', 'Webhook listen port', otherPort, 'x', 2000)).toMatchObject({status: 'ok', detail: `${otherPort} is free`})
  })

  it('an owner that cannot be named is said to be one, never a stack trace', async () => {
    expect(describeOwner(undefined)).toBe('a program paytx could not name (no /proc or lsof answer; it may belong to another user)')
    // Where neither /proc nor lsof can say (a platform without lsof on PATH), nothing is thrown.
    const path = process.env.PATH
    process.env.PATH = '/nonexistent'
    try {
      expect(await portOwner(1, 'darwin')).toBeUndefined()
    } finally {
      process.env.PATH = path
    }
  })
})
