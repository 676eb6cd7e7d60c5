/**
 * The stand-in tunnel programs (test/fixtures/tunnel-programs: `cloudflared`, `ngrok`) put on
 * PATH for a test, and what a test needs to act as the internet: the local port that stands for
 * the public address, read from the state file each stand-in writes.
 */
import {existsSync, mkdtempSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'

import {ROOT} from './cli.js'
import {waitFor} from './wait-for.js'

export const TUNNEL_PROGRAMS_DIR = join(ROOT, 'test', 'fixtures', 'tunnel-programs')

export interface StandInState {
  program: string
  publicUrl: string
  forwardPort: number
  pid: number
  args: string[]
}

export interface StandInTunnel {
  /** Environment for the CLI: the stand-ins first on PATH, where to write the state, and how to behave. */
  env: Record<string, string>
  /** The state, once the stand-in has written it. */
  state(): Promise<StandInState>
  /** The public address as the internet would reach it: the stand-in's own local port. */
  reach(publicAddress: string): Promise<string>
}

/** The state file of every stand-in a test asked for, for killStandIns. */
const stateFiles = new Set<string>()

/** `behaviour`: '' (normal), 'silent', 'fail', 'exit-after-address' (see stand-in.mjs). */
export function standInTunnel(behaviour = ''): StandInTunnel {
  const stateFile = join(mkdtempSync(join(tmpdir(), 'paytx-tunnel-')), 'state.json')
  stateFiles.add(stateFile)
  const state = () => waitFor(() => existsSync(stateFile) && (JSON.parse(readFileSync(stateFile, 'utf8')) as StandInState), 'the stand-in tunnel to start')
  return {
    env: {PATH: `${TUNNEL_PROGRAMS_DIR}:${dirname(process.execPath)}:${process.env.PATH}`, PAYTX_TUNNEL_STATE: stateFile, PAYTX_TUNNEL_BEHAVIOUR: behaviour},
    state,
    async reach(publicAddress) {
      const {publicUrl, forwardPort} = await state()
      if (!publicAddress.startsWith(publicUrl)) throw new Error(`${publicAddress} is not on ${publicUrl}`)
      return `http://127.0.0.1:${forwardPort}${publicAddress.slice(publicUrl.length)}`
    },
  }
}

/**
 * True while a process with this pid runs. A zombie has ended, though signal 0 still finds it: an
 * orphan that died waits there for an init to reap it, and some containers' first process never does.
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  if (process.platform !== 'linux') return true
  try {
    // /proc/<pid>/stat: `pid (name) state ...`; the name may hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat[stat.lastIndexOf(')') + 2] !== 'Z'
  } catch {
    return false
  }
}

/**
 * Kills every stand-in still running. A CLI killed with SIGKILL (how a failed test's CLI is
 * ended) cannot stop its tunnel program, which would then outlive the test.
 */
export function killStandIns(): void {
  for (const stateFile of stateFiles) {
    if (existsSync(stateFile)) {
      const {pid} = JSON.parse(readFileSync(stateFile, 'utf8')) as StandInState
      if (isRunning(pid)) process.kill(pid, 'SIGKILL')
    }
  }
  stateFiles.clear()
}
