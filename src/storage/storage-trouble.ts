/**
 * Why a file of paytx's could not be written (or opened), told from the error's code (the file
 * system's errno, or SQLite's code or message), so that the advice fits the cause: a full disk is
 * freed, not re-permissioned; a read-only file system is not made writable by chmod.
 */
import {dirname} from 'node:path'

import {EnvironmentError, InputError} from '../errors.js'
import {isDiskFull} from './disk-full.js'

export type StorageTrouble = 'full' | 'quota' | 'read-only' | 'permissions'

const BY_CODE: Record<string, StorageTrouble> = {
  EDQUOT: 'quota',
  EROFS: 'read-only',
  EACCES: 'permissions',
  EPERM: 'permissions',
  SQLITE_PERM: 'permissions',
  SQLITE_READONLY: 'permissions',
}

const BY_MESSAGE: [RegExp, StorageTrouble][] = [
  [/quota exceeded/i, 'quota'],
  [/read-only file system/i, 'read-only'],
  [/permission denied|operation not permitted|attempt to write a readonly database/i, 'permissions'],
]

/** The cause of a failed write, from the error or an error it wraps; undefined when it is none of these. */
export function storageTrouble(error: unknown): StorageTrouble | undefined {
  for (let current = error, depth = 0; current && depth < 5; current = (current as {cause?: unknown}).cause, depth++) {
    const {code, message} = current as {code?: unknown; message?: unknown}
    const byCode = typeof code === 'string' ? BY_CODE[code.split(':')[0]] : undefined
    if (byCode === 'quota') return byCode
    if (isDiskFull(current)) return 'full'
    if (byCode) return byCode
    const byMessage = typeof message === 'string' ? BY_MESSAGE.find(([pattern]) => pattern.test(message)) : undefined
    if (byMessage) return byMessage[1]
  }
  return undefined
}

/** A full disk or quota passes once space is freed: a failing disk (exit 1), not a wrong input. */
export function isPassingTrouble(trouble: StorageTrouble | undefined): boolean {
  return trouble === 'full' || trouble === 'quota'
}

/** What helps, for a file at `path` (its folder is named where the cause is the folder's). */
export function storageTroubleHint(trouble: StorageTrouble, path: string): string {
  const folder = dirname(path)
  switch (trouble) {
    case 'full':
      return `The disk that holds ${folder} is full: free some space on it, then run the command again.`
    case 'quota':
      return `Your disk quota on ${folder} is used up: free some space within it, then run the command again.`
    case 'read-only':
      return `${folder} is on a read-only file system: nothing can be written there; use a folder on a writable one.`
    case 'permissions':
      return `Check the permissions of ${path} and of ${folder}: you need to read and write both.`
  }
}

/**
 * The error to show for a failed write of paytx's own file at `path` (`what` names it: "the
 * emulator's address marker"): exit 1 with free space for a full disk, exit 2 with the
 * permissions or the read-only file system to look at, and the error itself for any other cause.
 */
export function storageFailure(error: unknown, what: string, path: string): Error {
  const trouble = storageTrouble(error)
  if (!trouble) return error as Error
  const code = (error as NodeJS.ErrnoException).code
  const message = `Cannot write ${what} ${path}${code ? ` (${code})` : ''}.`
  if (isPassingTrouble(trouble)) return new EnvironmentError(message, storageTroubleHint(trouble, path))
  return new InputError(message, {hint: `${storageTroubleHint(trouble, path)} PAYTX_DATA_DIR moves paytx's data folder.`})
}
