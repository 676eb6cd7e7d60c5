import {connect, createServer} from 'node:net'

/** Whether a server could listen on 127.0.0.1:port right now (the probe is closed again at once). */
export function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer()
    probe.once('error', () => resolve(false))
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)))
  })
}

/** A port that was free on 127.0.0.1 a moment ago (for tests that must pass a port, not 0). */
export function freePort(): Promise<number> {
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
