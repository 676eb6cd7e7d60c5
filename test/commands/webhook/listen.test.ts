/** `webhook listen`'s flags into what it listens with, in-process. */
import {describe, expect, it} from 'vitest'

import WebhookListen, {toWebhookListenOptions} from '../../../src/commands/webhook/listen.js'
import {parseFlags} from '../../helpers/parse-flags.js'

const ENV = {newToken: () => 'fresh-token'}

async function options(argv: string[]) {
  return toWebhookListenOptions(await parseFlags(WebhookListen, argv), ENV)
}

describe('toWebhookListenOptions', () => {
  it('listens on 127.0.0.1:4020 with a fresh token and a 1 MiB body limit by default', async () => {
    expect(await options([])).toEqual({
      host: '127.0.0.1',
      port: 4020,
      token: 'fresh-token',
      maxBodyBytes: 1024 ** 2,
      forwardUrl: undefined,
      save: undefined,
      fetch: false,
    })
  })

  it.each([
    [['--token', 'my-own-token-123'], {token: 'my-own-token-123'}],
    [['--no-token'], {token: undefined}],
    [['--port', '0', '--host', '0.0.0.0'], {port: 0, host: '0.0.0.0'}],
    [['--max-body', '65536'], {maxBodyBytes: 65_536}],
    [['--max-body', '512kb'], {maxBodyBytes: 512 * 1024}],
    [['--max-body', '2 MiB'], {maxBodyBytes: 2 * 1024 ** 2}],
    [['--save', 'hooks.ndjson', '--fetch'], {save: 'hooks.ndjson', fetch: true}],
    [['--forward-to', 'http://localhost:3000/hooks?shop=1'], {forwardUrl: new URL('http://localhost:3000/hooks?shop=1')}],
  ])('%j gives %j', async (argv, expected) => {
    expect(await options(argv)).toMatchObject(expected)
  })

  it.each([
    [['--max-body', 'lots'], '--max-body', '--max-body must be a size in bytes such as 65536, 512kb or 1mb (got "lots").'],
    [['--max-body', '0'], '--max-body', '--max-body must be a size in bytes'],
    [['--max-body', '33mb'], '--max-body', '--max-body can be at most 32mb, the largest body the listener holds (got "33mb").'],
    [['--max-body', '3 parsecs'], '--max-body', '--max-body must be a size in bytes'],
    [['--forward-to', 'localhost:3000'], '--forward-to', '--forward-to must be an absolute http(s) URL (got "localhost:3000").'],
    [['--forward-to', 'ftp://example.com/hooks'], '--forward-to', '--forward-to must be an absolute http(s) URL'],
    [['--token', ''], '--token', '--token must not be empty; use --no-token to accept webhooks without one.'],
  ])('refuses %j naming %s', async (argv, flag, message) => {
    await expect(options(argv)).rejects.toMatchObject({flag, exitCode: 2, message: expect.stringContaining(message)})
  })

  it('leaves --token with --no-token to oclif’s parser', async () => {
    await expect(parseFlags(WebhookListen, ['--token', 'abc', '--no-token'])).rejects.toThrow(/--no-token|--token/)
  })
})
