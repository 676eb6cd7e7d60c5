import {createServer} from 'node:net'

/** Whether a server could listen on 127.0.0.1:port right now (the probe is closed again at once). */
export function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer()
    probe.once('error', () => resolve(false))
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)))
  })
}
