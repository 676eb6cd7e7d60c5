/** How each tunnel program is started and where its output says the public address. */
import {describe, expect, it} from 'vitest'

import {splitTemplate, templateProblem, tunnelProgram} from '../../src/tunnel/tunnel-program.js'
import {toTunnelRequest} from '../../src/cli/tunnel-flags.js'
import {InputError} from '../../src/errors.js'

describe('tunnelProgram', () => {
  it.each([
    [{program: 'cloudflared' as const}, 'cloudflared', ['tunnel', '--url', 'http://localhost:4020']],
    [{program: 'ngrok' as const}, 'ngrok', ['http', '4020', '--log', 'stdout', '--log-format', 'json']],
    [{template: "lt --port {port} --subdomain 'my shop'"}, 'lt', ['--port', '4020', '--subdomain', 'my shop']],
  ])('%o runs %s %j', (choice, command, args) => {
    expect(tunnelProgram(choice, 4020)).toMatchObject({command, args})
  })

  it.each([
    ['cloudflared', '2026-01-16T08:32:58Z INF |  https://oklahoma-solo-younger-truck.trycloudflare.com                        |', 'https://oklahoma-solo-younger-truck.trycloudflare.com'],
    ['cloudflared', '2026-01-16T08:32:58Z INF Requesting new quick Tunnel on trycloudflare.com...', undefined],
    ['cloudflared', '2026-01-16T08:32:58Z INF Visit https://developers.cloudflare.com/cloudflare-one/connections/connect-apps', undefined],
    ['ngrok', '{"addr":"http://localhost:4020","lvl":"info","msg":"started tunnel","name":"command_line","obj":"tunnels","t":"2026-09-30T02:40:01Z","url":"https://ab12-203-0-113-7.ngrok-free.app"}', 'https://ab12-203-0-113-7.ngrok-free.app'],
    ['ngrok', '{"lvl":"info","msg":"starting web service","obj":"web","addr":"127.0.0.1:4040"}', undefined],
    ['ngrok', '{"lvl":"info","msg":"started tunnel","url":"tcp://0.tcp.ngrok.io:12345"}', undefined],
    ['ngrok', 't=2026-09-30T02:40:01+0000 lvl=info msg="started tunnel" url=https://x.ngrok-free.app', undefined],
  ] as const)('%s reads %j as %s', (program, line, address) => {
    expect(tunnelProgram({program}, 1).readAddress(line)).toBe(address)
  })

  it.each([
    ['your url is: https://shy-cat-42.loca.lt', 'https://shy-cat-42.loca.lt'],
    ['Available on the internet: https://host.tail1234.ts.net/.', 'https://host.tail1234.ts.net/'],
    ['listening at bore.pub:41234', undefined],
  ])('a template tool reads %j as %s', (line, address) => {
    expect(tunnelProgram({template: 'tool {port}'}, 1).readAddress(line)).toBe(address)
  })
})

describe('splitTemplate and templateProblem', () => {
  it.each([
    ['a b  c', ['a', 'b', 'c']],
    ['a "b c" d', ['a', 'b c', 'd']],
    ["a 'b \"c\"'", ['a', 'b "c"']],
    ['a b\\ c', ['a', 'b c']],
    ['a ""', ['a', '']],
    ['a "b', undefined],
  ])('%j splits into %j', (template, words) => {
    expect(splitTemplate(template)).toEqual(words)
  })

  it.each([
    ['lt --port {port}', undefined],
    ['lt --port 80', 'must contain {port}, where the local port goes'],
    ['   ', 'is empty'],
    ["lt '{port}", 'has a quote that is never closed'],
  ])('%j: %s', (template, problem) => {
    expect(templateProblem(template)).toBe(problem)
  })
})

describe('toTunnelRequest', () => {
  it.each([
    [{'tunnel-timeout': '30s'}, undefined],
    [{tunnel: 'cloudflared', 'tunnel-timeout': '30s'}, {choice: {program: 'cloudflared'}, timeoutMs: 30_000}],
    [{tunnel: 'ngrok', 'tunnel-timeout': '2m'}, {choice: {program: 'ngrok'}, timeoutMs: 120_000}],
    [{'tunnel-command': 'lt --port {port}', 'tunnel-timeout': '5s'}, {choice: {template: 'lt --port {port}'}, timeoutMs: 5000}],
  ])('%o is %o', (flags, request) => {
    expect(toTunnelRequest(flags)).toEqual(request)
  })

  it.each([
    [{tunnel: 'ngrok', 'tunnel-timeout': '0s'}, '--tunnel-timeout'],
    [{'tunnel-command': 'lt', 'tunnel-timeout': '5s'}, '--tunnel-command'],
  ])('%o is refused, naming %s', (flags, flag) => {
    expect(() => toTunnelRequest(flags)).toThrow(InputError)
    try {
      toTunnelRequest(flags)
    } catch (error) {
      expect((error as InputError).flag).toBe(flag)
    }
  })
})
