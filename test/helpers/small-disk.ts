/**
 * A small disk for the full-disk suites of the system tier (root with mount rights, as in CI): a
 * tmpfs mounted for one test file and unmounted after it, and a filler that takes its last byte.
 */
import {execFileSync} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll} from 'vitest'

/** Mounts a tmpfs of `size` (mount's syntax: 256k, 2m) for the calling file; returns its folder. */
export function smallDiskForThisFile(size: string, prefix: string): string {
  const mountPoint = mkdtempSync(join(tmpdir(), prefix))
  let mounted = false
  beforeAll(() => {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', mountPoint], {timeout: 10_000})
    mounted = true
  })
  afterAll(() => {
    // Lazily: a failed test's emulator may still hold a file there, and the mount must not outlive the file.
    if (mounted) execFileSync('umount', ['-l', mountPoint], {timeout: 10_000})
    rmSync(mountPoint, {recursive: true, force: true})
  })
  return mountPoint
}

/** Fills the file system under `dir` to the last byte, in blocks of `blockBytes`; returns the filler to remove. */
export function fillDisk(dir: string, blockBytes = 1024): string {
  const filler = join(dir, 'filler')
  try {
    execFileSync('dd', ['if=/dev/zero', `of=${filler}`, `bs=${blockBytes}`], {stdio: 'ignore', timeout: 10_000})
  } catch {
    // dd stops with an error once the disk is full: that is the point.
  }
  return filler
}
