/**
 * paytx's default ports on 127.0.0.1 (the emulator's, `webhook listen`'s): free, held by a paytx
 * emulator (asked: its health route says so) or by paytx itself (fine), or held by another program,
 * named with its pid where the system says which (Linux: /proc; elsewhere lsof, when installed).
 */
import {execFile} from 'node:child_process'
import {readFileSync, readdirSync, readlinkSync} from 'node:fs'
import {request} from 'node:http'
import {createServer} from 'node:net'

import {visibleText} from '../terminal/visible-text.js'
import {type DoctorCheck, fail, ok} from './report.js'

/** lsof gets this long to name a port's owner. */
const LSOF_TIMEOUT_MS = 2000

export interface PortOwner {
  pid: number
  /** The program's name (Linux: /proc/PID/comm; lsof: COMMAND). */
  name: string
  /** Its command line, where the system shows it. */
  processCommand: string
}

export function canListen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen(port, host, () => server.close(() => resolve(true)))
  })
}

/** The emulator's health answer at host:port, if a paytx emulator is what answers. */
export function emulatorHealth(port: number, timeoutMs: number, host = '127.0.0.1'): Promise<{store?: string} | undefined> {
  return new Promise((resolve) => {
    // agent: false, so that no kept-alive connection holds the emulator open after the answer.
    const req = request({host: host.replace(/^\[|\]$/g, ''), port, path: '/_emulator/health', timeout: timeoutMs, agent: false}, (res) => {
      let text = ''
      res.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk
        if (text.length > 64 * 1024) req.destroy()
      })
      res.on('end', () => {
        try {
          const body = JSON.parse(text) as {emulator?: unknown; store?: unknown}
          resolve(body.emulator === 'paytx' ? {store: typeof body.store === 'string' ? body.store : undefined} : undefined)
        } catch {
          resolve(undefined)
        }
      })
    })
    req.on('timeout', () => req.destroy(new Error('no answer')))
    req.on('error', () => resolve(undefined))
    req.on('close', () => resolve(undefined))
    req.end()
  })
}

/** The listening socket's inode for a port, from /proc/net/tcp and tcp6. */
function listeningInode(port: number): string | undefined {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0')
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string
    try {
      text = readFileSync(table, 'utf8')
    } catch {
      continue
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/)
      // local_address is ADDR:PORT in hex; state 0A is LISTEN; field 9 is the inode.
      if (fields[1]?.endsWith(`:${hexPort}`) && fields[3] === '0A') return fields[9]
    }
  }
  return undefined
}

function readProc(pid: string, file: string): string {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8')
  } catch {
    return ''
  }
}

function holdsSocket(pid: string, inode: string): boolean {
  let fds: string[]
  try {
    fds = readdirSync(`/proc/${pid}/fd`)
  } catch {
    return false
  }
  return fds.some((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`
    } catch {
      return false
    }
  })
}

/** Linux: the listening socket's inode in /proc/net/tcp(6), then the process with a descriptor on it. */
export function procPortOwner(port: number): PortOwner | undefined {
  const inode = listeningInode(port)
  if (!inode || inode === '0') return undefined
  let pids: string[]
  try {
    pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))
  } catch {
    return undefined
  }
  const pid = pids.find((candidate) => holdsSocket(candidate, inode))
  if (pid === undefined) return undefined
  const processCommand = readProc(pid, 'cmdline').split('\0').filter(Boolean).join(' ').slice(0, 200)
  return {pid: Number(pid), name: readProc(pid, 'comm').trim() || processCommand.split(' ')[0] || '?', processCommand}
}

/** Elsewhere: `lsof -nP -iTCP:PORT -sTCP:LISTEN -Fpc` (p<pid>, c<command> lines), when lsof is installed. */
function lsofPortOwner(port: number): Promise<PortOwner | undefined> {
  return new Promise((resolve) => {
    try {
      execFile('lsof', ['-nP', `-iTCP:${port}`, '-sTCP:LISTEN', '-Fpc'], {timeout: LSOF_TIMEOUT_MS, windowsHide: true}, (error, stdout) => {
        const pid = /^p(\d+)$/m.exec(stdout ?? '')?.[1]
        const name = /^c(.+)$/m.exec(stdout ?? '')?.[1]
        resolve(pid && !(error && !stdout) ? {pid: Number(pid), name: name ?? '?', processCommand: name ?? ''} : undefined)
      })
    } catch {
      resolve(undefined)
    }
  })
}

/** Which process holds a listening port, where the system says; undefined when it cannot be named. */
export async function portOwner(port: number, platform: NodeJS.Platform = process.platform): Promise<PortOwner | undefined> {
  try {
    if (platform === 'linux') return procPortOwner(port) ?? (await lsofPortOwner(port))
    return await lsofPortOwner(port)
  } catch {
    return undefined
  }
}

/** A port owner in words: `python3 (pid 4242)`, or why it has no name. */
export function describeOwner(owner: PortOwner | undefined): string {
  if (!owner) return 'a program paytx could not name (no /proc or lsof answer; it may belong to another user)'
  return `${visibleText(owner.name)} (pid ${owner.pid})`
}

/** paytx itself (`webhook listen`, an emulator started by a command): its program or script is paytx's. */
function isPaytx(owner: PortOwner): boolean {
  const [program = '', script = ''] = owner.processCommand.split(' ')
  return [program, script].some((part) => /(^|\/)(paytx|run\.js)$/.test(part) || /paytx\/bin\/run\.js$/.test(part))
}

/** The first port after `port` that nothing holds (of the next nine), to offer instead. */
export async function freePortAfter(port: number): Promise<number> {
  for (let candidate = port + 1; candidate <= Math.min(65_535, port + 9); candidate++) {
    if (await canListen(candidate)) return candidate
  }
  return port + 1
}

/** The port, free, held by paytx, or held by another program named with its pid; `command` is what uses the port (`paytx emulator start`). */
export async function portCheck(id: string, label: string, port: number, command: string, timeoutMs: number): Promise<DoctorCheck> {
  if (await canListen(port)) return ok(id, label, `${port} is free`)
  const health = await emulatorHealth(port, timeoutMs)
  if (health) return ok(id, label, `${port} is held by a paytx emulator (it answered as one${health.store ? `; store ${health.store}` : ''})`)
  const owner = await portOwner(port)
  if (owner && isPaytx(owner)) return ok(id, label, `${port} is held by paytx (pid ${owner.pid}: ${visibleText(owner.processCommand)})`)
  const stop = owner ? `Stop it (\`kill ${owner.pid}\`)` : `Stop the program that holds ${port}`
  return fail(id, label, `${port} is held by ${describeOwner(owner)}, not by paytx`, `${stop}, or use another port: \`${command} --port ${await freePortAfter(port)}\`.`)
}
