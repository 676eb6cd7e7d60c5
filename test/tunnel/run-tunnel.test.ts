/**
 * startTunnel with stand-in tunnels that start a child of their own, which holds the output
 * pipes (test/fixtures/tunnel-groups): the whole group is stopped on every way out (stop, an
 * error, an unreadable address, Ctrl-C, the start's timeout), a child that ignores SIGTERM is
 * killed after the grace, and a program that exits while its child holds the pipes is noticed.
 * Each death is awaited as an event: the process's connection to the test's report server closes.
 */
import {afterEach, describe, expect, it} from 'vitest'

import {EnvironmentError, InterruptedError} from '../../src/errors.js'
import {STOP_GRACE_MS} from '../../src/tunnel/process-group.js'
import {startTunnel} from '../../src/tunnel/run-tunnel.js'
import {tunnelProgram} from '../../src/tunnel/tunnel-program.js'
import {type GroupBehaviour, type TunnelGroupWatch, watchTunnelGroup} from '../helpers/tunnel-group.js'

describe('startTunnel: the tunnel program and everything it starts', () => {
  const watches: TunnelGroupWatch[] = []
  const savedReport = process.env.PAYTX_GROUP_REPORT
  afterEach(async () => {
    await Promise.all(watches.splice(0).map((watch) => watch.close()))
    if (savedReport === undefined) delete process.env.PAYTX_GROUP_REPORT
    else process.env.PAYTX_GROUP_REPORT = savedReport
  })

  /** The stand-in tunnel for `behaviour`, as --tunnel-command would run it, and the watch on its group. */
  const standIn = async (behaviour: GroupBehaviour) => {
    const watch = await watchTunnelGroup()
    watches.push(watch)
    // The stand-in reads where to report from the environment it inherits from this process.
    Object.assign(process.env, watch.env)
    return {watch, program: tunnelProgram({template: watch.template(behaviour)}, 4020)}
  }
  const rejection = (promise: Promise<unknown>) => promise.then(() => expect.unreachable('the start should have failed'), (error: unknown) => error as Error)

  it('stop() ends the program and its child, though the child holds the pipes (stop used to wait on them for ever)', async () => {
    const {watch, program} = await standIn('holder')
    const tunnel = await startTunnel(program, {timeoutMs: 20_000})
    expect(tunnel.publicUrl).toBe('https://group-test.example.net')
    expect((await watch.members()).map((member) => member.role).sort()).toEqual(['child', 'program'])
    await tunnel.stop()
    await watch.allGone()
  })

  it('a child that ignores SIGTERM is killed after the grace', {timeout: 20_000 + STOP_GRACE_MS}, async () => {
    const {watch, program} = await standIn('stubborn')
    const tunnel = await startTunnel(program, {timeoutMs: 20_000})
    await watch.members()
    await tunnel.stop()
    await watch.allGone()
  })

  it('a program that exits while its child holds the pipes: died resolves, and stop() ends the child', async () => {
    const {watch, program} = await standIn('exit')
    const tunnel = await startTunnel(program, {timeoutMs: 20_000})
    const members = await watch.members()
    const exit = await tunnel.died
    expect(exit).toMatchObject({code: 3, signal: null})
    expect(exit.lastLines).toContain('your url is: https://group-test.example.net')
    const child = members.find((member) => member.role === 'child')!
    // The child is alive until paytx stops the group (its report connection is still open).
    expect(await Promise.race([child.gone.then(() => 'gone'), Promise.resolve('alive')])).toBe('alive')
    await tunnel.stop()
    await watch.allGone()
  })

  it('an address that does not parse: an EnvironmentError naming it (no crash), and the group stopped', async () => {
    const {watch, program} = await standIn('garbage')
    const error = await rejection(startTunnel(program, {timeoutMs: 20_000}))
    expect(error).toBeInstanceOf(EnvironmentError)
    expect(error.message).toMatch(/reported a public address paytx cannot read: https:\/\/\[::1\. It was stopped\./)
    expect((await watch.members()).length).toBe(2)
    await watch.allGone()
  })

  it('Ctrl-C while the program starts: InterruptedError, and the group stopped', async () => {
    const {watch, program} = await standIn('silent')
    const controller = new AbortController()
    const started = rejection(startTunnel(program, {timeoutMs: 20_000, signal: controller.signal}))
    await watch.members()
    controller.abort()
    expect(await started).toBeInstanceOf(InterruptedError)
    await watch.allGone()
  })

  it('no address within the timeout: an EnvironmentError, and every process that had started is stopped', async () => {
    const {watch, program} = await standIn('silent')
    const error = await rejection(startTunnel(program, {timeoutMs: 2000}))
    expect(error.message).toMatch(/reported no public address within 2 s/)
    await watch.allGone()
  })
})
