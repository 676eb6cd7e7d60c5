import {chmodSync, mkdirSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {invokedName} from '../../src/terminal/invoked-name.js'
import {tempConfigDir} from '../helpers/cli.js'

/** A clone (bin/run.js) and a folder on the PATH, in a temp folder. */
function layout() {
  const root = tempConfigDir()
  const clone = join(root, 'clone')
  mkdirSync(join(clone, 'bin'), {recursive: true})
  const script = join(clone, 'bin', 'run.js')
  writeFileSync(script, '#!/usr/bin/env node\n')
  chmodSync(script, 0o755)
  const pathDir = join(root, 'path-bin')
  mkdirSync(pathDir)
  return {root, clone, script, pathDir}
}

describe('invokedName: the name hints give for running paytx', () => {
  it('is paytx when started through a command named paytx (npm’s bin link, a shim)', () => {
    expect(invokedName({argv: ['node', '/usr/local/bin/paytx'], env: {}, cwd: '/tmp'})).toBe('paytx')
    expect(invokedName({argv: ['node', 'C:\\npm\\paytx.cmd'], env: {}, cwd: '/tmp'})).toBe('paytx')
  })

  it('is paytx when the script is inside an installed package', () => {
    expect(invokedName({argv: ['node', '/usr/lib/node_modules/paytx/bin/run.js'], env: {}, cwd: '/tmp'})).toBe('paytx')
  })

  it('is the script relative to the current folder when run from a clone', () => {
    const {clone, script, root} = layout()
    expect(invokedName({argv: ['node', script], env: {PATH: ''}, cwd: clone})).toBe('./bin/run.js')
    expect(invokedName({argv: ['node', script], env: {PATH: ''}, cwd: join(clone, 'bin')})).toBe('./run.js')
    // From outside the clone, the full path (quoted when the shell would split it).
    const elsewhere = join(root, 'elsewhere')
    mkdirSync(elsewhere)
    expect(invokedName({argv: ['node', script], env: {PATH: ''}, cwd: elsewhere})).toBe(script)
    const spaced = join(root, 'my clone')
    mkdirSync(join(spaced, 'bin'), {recursive: true})
    writeFileSync(join(spaced, 'bin', 'run.js'), '')
    expect(invokedName({argv: ['node', join(spaced, 'bin', 'run.js')], env: {PATH: ''}, cwd: elsewhere})).toBe(`'${join(spaced, 'bin', 'run.js')}'`)
  })

  it('is paytx when `paytx` on the PATH is this very script (npm link), not when it is another', () => {
    const {clone, script, pathDir} = layout()
    symlinkSync(script, join(pathDir, 'paytx'))
    expect(invokedName({argv: ['node', script], env: {PATH: `/nonexistent:${pathDir}`}, cwd: clone})).toBe('paytx')

    const other = layout()
    writeFileSync(join(other.pathDir, 'paytx'), '#!/bin/sh\n')
    expect(invokedName({argv: ['node', script], env: {PATH: other.pathDir}, cwd: clone})).toBe('./bin/run.js')
  })
})
