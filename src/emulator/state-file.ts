/**
 * The state file: the emulator's data as one JSON document, written atomically (a temporary
 * file in the same folder, then a rename) so that a crash never leaves half a file. A file that
 * cannot be read as emulator state is reported and left untouched, never replaced.
 */
import {readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {basename, dirname, join} from 'node:path'

import {EmulatorStore} from './store.js'
import {StateFileError} from './start-errors.js'

/** The stored state, or undefined when the file does not exist yet. */
export function loadStateFile(path: string): EmulatorStore | undefined {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new StateFileError(path, `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`, 'Check its permissions, or pass another --state-file.')
  }
  const untouched = 'It was left untouched: fix it, move it away, or pass another --state-file to start afresh.'
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new StateFileError(path, `is not valid JSON (${(error as Error).message}).`, untouched)
  }
  try {
    return EmulatorStore.fromDocument(value)
  } catch (error) {
    throw new StateFileError(path, `is not emulator state: ${(error as Error).message}.`, untouched)
  }
}

export function saveStateFile(path: string, store: EmulatorStore, savedAt: string): void {
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`)
  try {
    writeFileSync(temporary, `${JSON.stringify(store.toDocument(savedAt), null, 2)}\n`, {mode: 0o600})
    renameSync(temporary, path)
  } catch (error) {
    rmSync(temporary, {force: true})
    throw new StateFileError(path, `cannot be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`, 'Check that its folder exists and is writable, or pass another --state-file.')
  }
}
