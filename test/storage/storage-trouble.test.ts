/**
 * The advice after a failed write follows its cause (src/storage/storage-trouble.ts): a full disk
 * or quota is freed (exit 1), never "check its permissions"; permissions and a read-only file
 * system are named as such (exit 2). The emulator store's errors take their advice from it
 * (test/emulator/store/store-open-trouble.test.ts).
 */
import {describe, expect, it} from 'vitest'

import {EnvironmentError, InputError} from '../../src/errors.js'
import {storageFailure, storageTrouble, storageTroubleHint} from '../../src/storage/storage-trouble.js'

const fsError = (code: string, message = `${code}: failed, write`) => Object.assign(new Error(message), {code})

describe('storageTrouble', () => {
  it.each([
    [fsError('ENOSPC'), 'full'],
    [new Error('database or disk is full'), 'full'],
    [Object.assign(new Error('SQLITE_FULL: database or disk is full'), {code: 'SQLITE_FULL'}), 'full'],
    [fsError('EDQUOT'), 'quota'],
    [fsError('EROFS'), 'read-only'],
    [new Error('SQLITE_IOERR: attempt to write: read-only file system'), 'read-only'],
    [fsError('EACCES'), 'permissions'],
    [fsError('EPERM'), 'permissions'],
    [Object.assign(new Error('attempt to write a readonly database'), {code: 'SQLITE_READONLY'}), 'permissions'],
    [new Error('wrapped', {cause: fsError('ENOSPC')}), 'full'],
    [fsError('EIO'), undefined],
  ])('%s is %s', (error, trouble) => {
    expect(storageTrouble(error)).toBe(trouble)
  })

  it('says what helps for each cause, naming the folder or the file', () => {
    expect(storageTroubleHint('full', '/data/paytx/emulator.db')).toBe('The disk that holds /data/paytx is full: free some space on it, then run the command again.')
    expect(storageTroubleHint('quota', '/data/paytx/emulator.db')).toMatch(/^Your disk quota on \/data\/paytx is used up: free some space/)
    expect(storageTroubleHint('read-only', '/data/paytx/emulator.db')).toMatch(/^\/data\/paytx is on a read-only file system/)
    expect(storageTroubleHint('permissions', '/data/paytx/emulator.db')).toBe('Check the permissions of /data/paytx/emulator.db and of /data/paytx: you need to read and write both.')
  })
})

describe('storageFailure', () => {
  it('a full disk is a failing disk (exit 1) with space to free; permissions and read-only are exit 2; other errors pass as they are', () => {
    const full = storageFailure(fsError('ENOSPC'), 'the marker', '/data/m')
    expect(full).toBeInstanceOf(EnvironmentError)
    expect(full).toMatchObject({exitCode: 1, message: 'Cannot write the marker /data/m (ENOSPC).', hint: expect.stringContaining('free some space on it')})
    expect(storageFailure(fsError('EROFS'), 'the marker', '/data/m')).toBeInstanceOf(InputError)
    expect(storageFailure(fsError('EACCES'), 'the marker', '/data/m')).toMatchObject({exitCode: 2, hint: expect.stringContaining('Check the permissions of /data/m')})
    const other = fsError('EIO')
    expect(storageFailure(other, 'the marker', '/data/m')).toBe(other)
  })
})
