/**
 * Why the emulator could not start over its store: a file that is not an emulator store is a
 * problem of the input (2). A busy port is http/listen.ts's ListenError, as for every local server.
 */
import {EXIT, PaytxError} from '../../errors.js'

export class StoreError extends PaytxError {
  readonly path: string
  /** What is wrong with the path, as the message says it after its name ("is a folder, not a store file."). */
  readonly problem: string

  constructor(path: string, problem: string, hint = 'It was left untouched: pass another --store (a new file is created), or move it away.') {
    super('input', EXIT.input, `The emulator store ${path} ${problem}`, hint)
    this.name = 'StoreError'
    this.path = path
    this.problem = problem
  }
}
