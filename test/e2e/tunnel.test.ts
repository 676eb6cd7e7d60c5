/**
 * Tunnels for `webhook listen` and `flow`: stand-in cloudflared and ngrok programs on PATH
 * (test/fixtures/tunnel-programs) print their address the way the real ones do and forward to the
 * local port, so a webhook posted to the public address arrives. The tunnel is stopped on every
 * way out: Ctrl-C, SIGTERM, success, failure; missing programs, silence and early deaths are
 * each an error with what to do, exit 1.
 */
import {afterEach, describe, expect, it} from 'vitest'

import {type RunningCli, runCli, startCli, tempConfigDir} from '../helpers/cli.js'
import {postJson} from '../helpers/post-json.js'
import {type RecordingServer, startRecordingServer} from '../helpers/recording-server.js'
import {TUNNEL_PROGRAMS_DIR, isRunning, killStandIns, standInTunnel} from '../helpers/tunnel-programs.js'
import {type TunnelGroupWatch, watchTunnelGroup} from '../helpers/tunnel-group.js'
import {waitFor} from '../helpers/wait-for.js'

const TX = 'tx-tunnel-1'
const running: RunningCli[] = []
const servers: RecordingServer[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((cli) => cli.stop('SIGKILL')))
  killStandIns()
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

function start(args: string[], env: Record<string, string>, configDir?: string): RunningCli {
  const cli = startCli(args, {env, configDir})
  running.push(cli)
  return cli
}

describe('webhook listen --tunnel', () => {
  it.each([
    ['cloudflared', 'SIGINT', 'https://quiet-river-lantern-meadow.trycloudflare.com'],
    ['ngrok', 'SIGTERM', 'https://ab12-203-0-113-7.ngrok-free.app'],
  ] as const)('%s: prints the public address with the key, a webhook posted there arrives, %s stops the tunnel too', async (program, signal, publicUrl) => {
    const tunnel = standInTunnel()
    const cli = start(['webhook', 'listen', '--port', '0', '--json', '--tunnel', program], tunnel.env)
    await cli.waitFor('stdout', /\n/)
    const ready = JSON.parse(cli.stdout().split('\n')[0])
    expect(ready).toMatchObject({event: 'ready', tunnel: program, public_url: expect.stringMatching(new RegExp(`^${publicUrl.replaceAll('.', '\\.')}/webhooks\\?key=[\\w-]{20,}$`))})
    expect(new URL(ready.public_url).search).toBe(new URL(ready.url).search)
    const state = await tunnel.state()
    expect(state.args).toEqual(program === 'cloudflared' ? ['tunnel', '--url', `http://localhost:${ready.port}`] : ['http', String(ready.port), '--log', 'stdout', '--log-format', 'json'])

    const answer = await postJson(await tunnel.reach(ready.public_url), JSON.stringify({id: TX, status: 'SETTLEMENT_COMPLETED'}))
    expect(answer.status).toBe(200)
    await cli.waitFor('stdout', /"event":"webhook"/)
    expect(cli.stdout()).toContain(`"transaction_id":"${TX}"`)

    const result = await cli.stop(signal)
    expect(result.code).toBe(130)
    expect(isRunning(state.pid)).toBe(false)
  })

  it('without --json: says where the public address is, through which program', async () => {
    const tunnel = standInTunnel()
    const cli = start(['webhook', 'listen', '--port', '0', '--tunnel', 'cloudflared'], tunnel.env)
    await cli.waitFor('stderr', /Ready\. Press Ctrl-C to stop\./)
    expect(cli.stderr()).toMatch(/Public address \(through cloudflared\): https:\/\/quiet-river-lantern-meadow\.trycloudflare\.com\/webhooks\?key=\S+/)
    const {pid} = await tunnel.state()
    await cli.stop('SIGINT')
    expect(isRunning(pid)).toBe(false)
  })

  it('a program that is not installed: exit 1, says what to install, nothing left listening', async () => {
    const result = await runCli(['webhook', 'listen', '--port', '0', '--tunnel', 'cloudflared'], {env: {PATH: '/nonexistent'}})
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('cloudflared is not installed: there is no program "cloudflared" on PATH.')
    expect(result.stderr).toMatch(/Hint: Install cloudflared \(https:\/\/developers\.cloudflare\.com\/.*no Cloudflare account/)
    expect(result.stderr).not.toMatch(/\n\s+at /)
  })

  it('ngrok that never reports an address: stopped after --tunnel-timeout, exit 1, with its last output', async () => {
    const tunnel = standInTunnel('silent')
    // The stand-in is a Node program: on a loaded machine it may take over 1 s to print the first
    // line this error must show (a timeout of 1 s failed once in a loaded run).
    const result = await runCli(['webhook', 'listen', '--port', '0', '--tunnel', 'ngrok', '--tunnel-timeout', '3s'], {env: tunnel.env})
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('ngrok reported no public address within 3 s. Its last output:')
    expect(result.stderr).toContain('"msg":"client session established"')
    expect(result.stderr).toContain('--tunnel-timeout')
    expect(isRunning((await tunnel.state()).pid)).toBe(false)
  })

  it('ngrok that exits at once (no authtoken): exit 1 with its own words and how to add the token', async () => {
    const tunnel = standInTunnel('fail')
    const result = await runCli(['webhook', 'listen', '--port', '0', '--tunnel', 'ngrok'], {env: tunnel.env})
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('ngrok exited with code 1 before reporting a public address.')
    expect(result.stderr).toContain('ERR_NGROK_105')
    expect(result.stderr).toContain('ngrok config add-authtoken')
  })

  it('a tunnel that dies while listening: exit 1, says so', async () => {
    const tunnel = standInTunnel('exit-after-address')
    const result = await runCli(['webhook', 'listen', '--port', '0', '--tunnel', 'cloudflared'], {env: tunnel.env})
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/cloudflared exited with code 1 while webhooks were awaited \(0 received\): the public address no longer reaches this machine/)
  })

  it('--tunnel-command runs any tool with {port} and takes its first https address', async () => {
    const tunnel = standInTunnel()
    const cli = start(['webhook', 'listen', '--port', '0', '--json', '--tunnel-command', `"${TUNNEL_PROGRAMS_DIR}/cloudflared" tunnel --url http://localhost:{port}`], tunnel.env)
    await cli.waitFor('stdout', /\n/)
    const ready = JSON.parse(cli.stdout().split('\n')[0])
    expect(ready.tunnel).toBe(`${TUNNEL_PROGRAMS_DIR}/cloudflared`)
    expect(ready.public_url).toMatch(/^https:\/\/quiet-river-lantern-meadow\.trycloudflare\.com\/webhooks\?key=/)
    const state = await tunnel.state()
    expect(state.args).toEqual(['tunnel', '--url', `http://localhost:${ready.port}`])
    // Stopped as a person would: the tool goes with it (killed, the CLI would leave it running).
    expect((await cli.stop('SIGINT')).code).toBe(130)
    expect(isRunning(state.pid)).toBe(false)
  })

  it.each([
    [['--tunnel-command', 'my-tunnel --port 8080'], '--tunnel-command must contain {port}'],
    [['--tunnel-command', 'my-tunnel "{port}'], '--tunnel-command has a quote that is never closed'],
    [['--tunnel', 'cloudflared', '--no-token'], '--no-token with a tunnel would accept whatever anyone on the internet posts'],
    [['--tunnel', 'cloudflared', '--tunnel-timeout', 'soon'], '--tunnel-timeout must be a duration'],
  ])('%j: exit 2 before anything starts', async (args, message) => {
    const result = await runCli(['webhook', 'listen', '--port', '0', ...args], {env: {PATH: '/nonexistent'}})
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(message)
  })
})

describe('webhook listen --tunnel-command: the tunnel\'s whole process group', () => {
  const watches: TunnelGroupWatch[] = []
  afterEach(async () => {
    await Promise.all(watches.splice(0).map((watch) => watch.close()))
  })
  const watched = async () => {
    const watch = await watchTunnelGroup()
    watches.push(watch)
    return watch
  }

  it('an address that does not parse: exit 1 saying so, no stack trace, the tunnel and its child stopped', async () => {
    const watch = await watched()
    const result = await runCli(['webhook', 'listen', '--port', '0', '--tunnel-command', watch.template('garbage')], {env: watch.env})
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/reported a public address paytx cannot read: https:\/\/\[::1\. It was stopped\./)
    expect(result.stderr).not.toMatch(/\n\s+at /)
    expect((await watch.members()).length).toBe(2)
    await watch.allGone()
  })

  it('SIGTERM to paytx: exit 130, and the tunnel\'s child, which holds its pipes, stopped too', async () => {
    const watch = await watched()
    const cli = start(['webhook', 'listen', '--port', '0', '--json', '--tunnel-command', watch.template('holder')], watch.env)
    await cli.waitFor('stdout', /"event":"ready"/)
    await watch.members()
    expect((await cli.stop('SIGTERM')).code).toBe(130)
    await watch.allGone()
  })

  it('a tunnel that exits while its child holds the pipes: exit 1 (its address is dead), and the child stopped', async () => {
    const watch = await watched()
    const result = await runCli(['webhook', 'listen', '--port', '0', '--tunnel-command', watch.template('exit')], {env: watch.env})
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/exited with code 3 while webhooks were awaited \(0 received\): the public address no longer reaches this machine/)
    await watch.allGone()
  })

  it('SIGHUP (the terminal closed), which paytx does not handle: paytx ends by it, and takes the tunnel\'s group with it', async () => {
    const watch = await watched()
    const cli = start(['webhook', 'listen', '--port', '0', '--json', '--tunnel-command', watch.template('holder')], watch.env)
    await cli.waitFor('stdout', /"event":"ready"/)
    await watch.members()
    expect((await cli.stop('SIGHUP')).signal).toBe('SIGHUP')
    await watch.allGone()
  })

  it('a second Ctrl-C while a child that ignores SIGTERM is given its grace: paytx exits at once and kills the group on the way out', async () => {
    const watch = await watched()
    const cli = start(['webhook', 'listen', '--port', '0', '--json', '--tunnel-command', watch.template('stubborn')], watch.env)
    await cli.waitFor('stdout', /"event":"ready"/)
    const members = await watch.members()
    cli.child.kill('SIGINT')
    // The program has gone on the group's SIGTERM; its child ignores it and would wait for the SIGKILL after the grace.
    await members.find((member) => member.role === 'program')!.gone
    expect((await cli.stop('SIGINT')).code).toBe(130)
    await watch.allGone()
  })
})

describe('flow --tunnel against a sandbox', () => {
  interface Sandbox {
  server: RecordingServer
  configDir: string
  /** What the transaction start asked for, once it came. */
  started(): {webhookUrl: string; redirectUrl: string} | undefined
  /** From now on the transaction reads as settled (its webhook went out). */
  settle(): void
}

  /** A scripted sandbox: the transaction settles when the test says its webhook went out. */
  async function sandbox(): Promise<Sandbox> {
    let started: {webhookUrl: string; redirectUrl: string} | undefined
    let settled = false
    const server = await startRecordingServer((req) => {
      if (req.method === 'POST' && req.path === '/v1/transaction/start') {
        started = {webhookUrl: req.body.webhook_transaction_update, redirectUrl: req.body.details.redirect_url}
        return {json: {id: TX, status: 'INITIATED', amount: String(req.body.amount), payment_product: 'dummy', details: {approval_url: `${server.url}/approve/${TX}`}}}
      }
      const status = settled ? 'SETTLEMENT_COMPLETED' : 'IN_PROGRESS'
      if (req.path === `/v1/transaction/${TX}/checkoutsuccess`) return {json: {status, status_reason: '', success: settled}}
      if (req.path === `/v1/transaction/${TX}`) return {json: {id: TX, status, amount: '100', payment_product: 'dummy', details: {}}}
      return undefined
    })
    servers.push(server)
    const configDir = tempConfigDir()
    const added = await runCli(
      ['profile', 'add', 'test', '--env', 'sandbox', '--base-url', `${server.url}/v1`, '--h2h-url', `${server.url}/h2h`, '--proxy-id', '1234567890123456', '--organisation', 'org-1', '--payment-profile', 'pp-1', '--api-key-stdin', '--proxy-key-stdin'],
      {configDir, input: 'sk_test_tunnel_0123456789abcdef\npk_test_tunnel_0123456789abcdef\n'},
    )
    expect(added.code, added.stderr).toBe(0)
    return {server, configDir, started: () => started, settle: () => (settled = true)}
  }

  const FLOW = ['flow', '--profile', 'test', '--product', 'dummy', '--amount', '100', '--customer', 'cus-1', '--no-open', '--tunnel', 'cloudflared']

  it('passes the tunnel address (listener token on the path) as webhook_transaction_update; the webhook arrives through it; the tunnel stops at the end', async () => {
    const service = await sandbox()
    const tunnel = standInTunnel()
    const cli = start([...FLOW, '--json'], tunnel.env, service.configDir)
    const {webhookUrl, redirectUrl} = await waitFor(() => service.started(), 'the transaction start')
    expect(webhookUrl).toMatch(/^https:\/\/quiet-river-lantern-meadow\.trycloudflare\.com\/flow\/[\w-]{20,}\/webhook$/)
    // The service sends the webhook to the public address; the tunnel carries it to the flow's listener.
    service.settle()
    const answer = await postJson(await tunnel.reach(webhookUrl), JSON.stringify({id: TX, status: 'SETTLEMENT_COMPLETED'}))
    expect(answer.status).toBe(200)
    // The payer's browser comes back (a redirect on the machine itself, no tunnel involved).
    await fetch(`${redirectUrl}?transaction_id=${TX}`)
    const result = await cli.done
    expect(result.code, result.stderr).toBe(0)
    const summary = JSON.parse(result.stdout)
    expect(summary.webhooks).toEqual([expect.objectContaining({transactionId: TX, status: 'SETTLEMENT_COMPLETED'})])
    expect(summary.timeline).toContainEqual(expect.objectContaining({kind: 'tunnel-started', program: 'cloudflared'}))
    // Shown redacted: the token on the path is the listener's secret.
    expect(JSON.stringify(summary.timeline)).not.toContain(new URL(webhookUrl).pathname)
    expect(isRunning((await tunnel.state()).pid)).toBe(false)
  })

  it('SIGTERM while waiting: exit 130, the transaction named, the tunnel stopped', async () => {
    const service = await sandbox()
    const tunnel = standInTunnel()
    const cli = start(FLOW, tunnel.env, service.configDir)
    await waitFor(() => service.started(), 'the transaction start')
    const {pid} = await tunnel.state()
    const result = await cli.stop('SIGTERM')
    expect(result.code).toBe(130)
    expect(result.stderr).toContain(TX)
    expect(isRunning(pid)).toBe(false)
  })

  it('a tunnel that dies mid-flow ends it: exit 1, names the tunnel and the transaction to look up', async () => {
    const service = await sandbox()
    const tunnel = standInTunnel('exit-after-address')
    const result = await runCli(FLOW, {env: tunnel.env, configDir: service.configDir})
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/cloudflared exited with code 1 while the flow was running: the public address no longer reaches this machine/)
    expect(result.stderr).toContain(`status ${TX}`)
  })

  it('--tunnel with --webhook-url: exit 2, nothing sent', async () => {
    const service = await sandbox()
    const result = await runCli([...FLOW, '--webhook-url', 'https://example.com/hooks'], {configDir: service.configDir})
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('A tunnel gives the flow its own webhook address, so it cannot be combined with --webhook-url.')
    expect(service.server.requests).toHaveLength(0)
  })
})
