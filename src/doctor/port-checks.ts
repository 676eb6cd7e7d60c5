/**
 * paytx's default ports on 127.0.0.1 (the emulator's, `webhook listen`'s): free, held by paytx
 * (fine), or held by another program, named where the system says which (Linux: /proc).
 */
import {readFileSync, readdirSync, readlinkSync} from 'node:fs'
import {request} from 'node:http'
import {createServer} from 'node:net'

import {type DoctorCheck, ok, warn} from './report.js'

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}

/** The emulator's health answer at that port, if a paytx emulator is what answers. */
function emulatorHealth(port: number, timeoutMs: number): Promise<{store?: string} | undefined> {
  return new Promise((resolve) => {
    // agent: false, so that no kept-alive connection holds the emulator open after the answer.
    const req = request({host: '127.0.0.1', port, path: '/_emulator/health', timeout: timeoutMs, agent: false}, (res) => {
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

/** Which process holds a listening port: its pid, name and command line, where /proc says. */
export function portOwner(port: number): {pid: number; name: string; commandLine: string} | undefined {
  const inode = listeningInode(port)
  if (!inode) return undefined
  let pids: string[]
  try {
    pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))
  } catch {
    return undefined
  }
  for (const pid of pids) {
    let fds: string[]
    try {
      fds = readdirSync(`/proc/${pid}/fd`)
    } catch {
      continue
    }
    for (const fd of fds) {
      let link = ''
      try {
        link = readlinkSync(`/proc/${pid}/fd/${fd}`)
      } catch {
        continue
      }
      if (link !== `socket:[${inode}]`) continue
      const read = (file: string) => {
        try {
          return readFileSync(`/proc/${pid}/${file}`, 'utf8')
        } catch {
          return ''
        }
      }
      return {pid: Number(pid), name: read('comm').trim(), commandLine: read('cmdline').split('\0').filter(Boolean).join(' ').slice(0, 200)}
    }
  }
  return undefined
}

export async function portCheck(id: string, label: string, port: number, usedBy: string, timeoutMs: number): Promise<DoctorCheck> {
  if (await canListen(port)) return ok(id, label, `${port} is free`)
  const health = await emulatorHealth(port, timeoutMs)
  if (health) return ok(id, label, `${port} is held by a paytx emulator${health.store ? ` (store ${health.store})` : ''}`)
  const owner = portOwner(port)
  if (owner && /\bpaytx\b|bin\/run\.js/.test(owner.commandLine)) return ok(id, label, `${port} is held by paytx (pid ${owner.pid}: ${owner.commandLine})`)
  const who = owner ? `${owner.name} (pid ${owner.pid}: ${owner.commandLine})` : 'another program'
  return warn(id, label, `${port} is held by ${who}`, `Stop it, or give ${usedBy} another --port.`)
}
