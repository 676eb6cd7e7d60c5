/**
 * What a test needs to follow a stand-in tunnel's process group (test/fixtures/tunnel-groups):
 * a report server on 127.0.0.1 to which every process of the group connects with its role and
 * pid, and whose connection closes when that process dies. Waiting for those closes is waiting
 * for the deaths themselves, with no guess at how long they take.
 */
import {type AddressInfo, createServer} from 'node:net'
import {join} from 'node:path'

import {ROOT} from './cli.js'
import {isRunning} from './tunnel-programs.js'
import {waitFor} from './wait-for.js'

export const GROUP_TUNNEL = join(ROOT, 'test', 'fixtures', 'tunnel-groups', 'tunnel.mjs')

export type GroupBehaviour = 'holder' | 'stubborn' | 'exit' | 'garbage' | 'silent'

export interface GroupMember {
  role: 'program' | 'child'
  pid: number
  /** Resolves when the process has died (its connection to the report server closed). */
  gone: Promise<void>
}

export interface TunnelGroupWatch {
  /** The --tunnel-command (a template with {port}) that runs the stand-in with this behaviour. */
  template(behaviour: GroupBehaviour): string
  /** Environment the stand-in needs: where to report. */
  env: Record<string, string>
  /** Resolves once both processes of the group (program and child) have reported. */
  members(): Promise<GroupMember[]>
  /** Resolves once every process that reported has died; then checks that no pid is still running. */
  allGone(): Promise<void>
  close(): Promise<void>
}

export async function watchTunnelGroup(): Promise<TunnelGroupWatch> {
  const members: GroupMember[] = []
  const server = createServer((socket) => {
    let gone!: () => void
    const died = new Promise<void>((resolve) => (gone = resolve))
    socket.on('error', () => undefined)
    socket.on('close', () => gone())
    socket.once('data', (chunk) => {
      const {role, pid} = JSON.parse(chunk.toString('utf8')) as {role: GroupMember['role']; pid: number}
      members.push({role, pid, gone: died})
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {
    template: (behaviour) => `"${process.execPath}" "${GROUP_TUNNEL}" ${behaviour} {port}`,
    env: {PAYTX_GROUP_REPORT: String(port)},
    members: () => waitFor(() => members.length >= 2 && [...members], 'both processes of the stand-in tunnel to report'),
    async allGone() {
      await Promise.all(members.map((member) => member.gone))
      // A process's sockets close as it exits, a moment before the kernel marks it a zombie: its
      // state is read until it has ended, for at most 5 s (a process that closed its report
      // connection and lived on would still be there then).
      for (const member of members) {
        await waitFor(() => !isRunning(member.pid), `the tunnel's ${member.role} (pid ${member.pid}) to end`, 5_000).catch(() => {
          throw new Error(`the tunnel's ${member.role} (pid ${member.pid}) still runs`)
        })
      }
    },
    close: () =>
      new Promise((resolve) => {
        for (const member of members) if (isRunning(member.pid)) process.kill(member.pid, 'SIGKILL')
        server.close(() => resolve())
      }),
  }
}
