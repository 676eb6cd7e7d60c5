/**
 * What a folder holds, as far as a check that promises to write nothing must keep it: each
 * entry's name, kind, size, mode, modification time and, for a file, a hash of its contents.
 */
import {createHash} from 'node:crypto'
import {lstatSync, readFileSync, readdirSync} from 'node:fs'
import {join} from 'node:path'

export interface EntrySnapshot {
  kind: 'file' | 'folder' | 'other'
  size: number
  mode: string
  mtimeMs: number
  sha256?: string
}

export function folderSnapshot(dir: string): Record<string, EntrySnapshot> {
  const snapshot: Record<string, EntrySnapshot> = {}
  for (const name of readdirSync(dir).sort()) {
    const info = lstatSync(join(dir, name))
    const kind = info.isFile() ? 'file' : info.isDirectory() ? 'folder' : 'other'
    snapshot[name] = {kind, size: info.size, mode: (info.mode & 0o7777).toString(8), mtimeMs: info.mtimeMs}
    if (kind === 'file') snapshot[name].sha256 = createHash('sha256').update(readFileSync(join(dir, name))).digest('hex')
  }
  return snapshot
}
