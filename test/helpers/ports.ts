import {readFileSync} from 'node:fs'
import {connect, createServer} from 'node:net'

/** Whether a server could listen on 127.0.0.1:port right now (the probe is closed again at once). */
export function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer()
    probe.once('error', () => resolve(false))
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)))
  })
}

/**
 * The first port the system hands out for a listen on port 0 (Linux's ephemeral range; 32768 if
 * it cannot be read). Ports below it are never given to a server listening on port 0.
 */
function firstEphemeralPort(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0])
    return Number.isInteger(low) && low > 0 ? low : 32_768
  } catch {
    return 32_768
  }
}

/** Ports each test worker picks from: a block of its own below the ephemeral range. */
const PORTS_PER_WORKER = 500
const FIRST_PICKED_PORT = 10_000
let nextPicked = 0

/**
 * A port that is free on 127.0.0.1 and that nothing else in the test run is handed, for tests
 * that must pass a port (not 0) or need one where nothing listens (a refused connection). A port
 * freed by a closed server could be handed at once to any server listening on port 0, such as an
 * emulator another test worker starts: a test that counted on "connection refused" there got
 * that emulator's 401 once. So it is picked below the system's ephemeral range, in a block of this
 * worker's (workers run their files one at a time), and checked free.
 */
export async function freePort(): Promise<number> {
  const worker = Number(process.env.VITEST_POOL_ID ?? process.env.VITEST_WORKER_ID ?? 1)
  const blocks = Math.floor((firstEphemeralPort() - FIRST_PICKED_PORT) / PORTS_PER_WORKER)
  if (blocks < 1) return ephemeralPort()
  const base = FIRST_PICKED_PORT + ((worker - 1) % blocks) * PORTS_PER_WORKER
  for (let tried = 0; tried < PORTS_PER_WORKER; tried++) {
    const port = base + (nextPicked++ % PORTS_PER_WORKER)
    if ((await canBind(port)) && !(await isListening(port))) return port
  }
  return ephemeralPort()
}

/** A port the system handed out for a listen on port 0 a moment ago. */
function ephemeralPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const {port} = probe.address() as {port: number}
      probe.close(() => resolve(port))
    })
  })
}

/** Whether something accepts connections on 127.0.0.1:port (unlike canBind, never in the way of a server about to listen there). */
export function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}
