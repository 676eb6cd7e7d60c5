/**
 * Why the emulator could not start, as errors that carry their exit code: a busy port is a
 * problem of the machine (1), a store file that is not an emulator store one of the input (2).
 */
import {EXIT, PaytxError} from '../errors.js'

export class PortInUseError extends PaytxError {
  constructor(host: string, port: number) {
    super(
      'network',
      EXIT.service,
      `Port ${port} on ${host} is already in use, so the emulator cannot listen there.`,
      `Is an emulator already running? Stop it, or pass --port with another port (--port 0 picks a free one).`,
    )
    this.name = 'PortInUseError'
  }
}

export class StoreError extends PaytxError {
  readonly path: string

  constructor(path: string, problem: string, hint = 'It was left untouched: pass another --store (a new file is created), or move it away.') {
    super('input', EXIT.input, `The emulator store ${path} ${problem}`, hint)
    this.name = 'StoreError'
    this.path = path
  }
}
