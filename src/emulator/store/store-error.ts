/**
 * Why the emulator could not start over its store: a file that is not an emulator store is a
 * problem of the input (2), a full disk a failing one (1). A busy port is http/listen.ts's ListenError, as for every local server.
 */
import {EXIT, PaytxError} from '../../errors.js'
import {isPassingTrouble, storageTrouble, storageTroubleHint} from '../../storage/storage-trouble.js'

export class StoreError extends PaytxError {
  readonly path: string
  /** What is wrong with the path, as the message says it after its name ("is a folder, not a store file."). */
  readonly problem: string

  /**
   * `cause`, the file system's or SQLite's error, decides the advice when it names one (a full
   * disk: free space, exit 1; no permission; a read-only file system); `hint` is for the others.
   */
  constructor(path: string, problem: string, hint = 'It was left untouched: pass another --store (a new file is created), or move it away.', cause?: unknown) {
    const trouble = cause === undefined ? undefined : storageTrouble(cause)
    const passing = isPassingTrouble(trouble)
    super(passing ? 'environment' : 'input', passing ? EXIT.service : EXIT.input, `The emulator store ${path} ${problem}`, trouble ? storageTroubleHint(trouble, path) : hint)
    this.name = 'StoreError'
    this.path = path
    this.problem = problem
  }
}
