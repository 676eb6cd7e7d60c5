import {chmodSync, mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {openInBrowser, splitCommandLine} from '../../src/terminal/browser.js'

describe('splitCommandLine (reading BROWSER)', () => {
  it('splits on whitespace and keeps quoted words whole', () => {
    expect(splitCommandLine('firefox')).toEqual(['firefox'])
    expect(splitCommandLine('  chromium --new-window  %s ')).toEqual(['chromium', '--new-window', '%s'])
    expect(splitCommandLine(`"/opt/My Browser/run" --flag 'a b' ''`)).toEqual(['/opt/My Browser/run', '--flag', 'a b', ''])
  })
})

describe('openInBrowser', () => {
  const dir = mkdtempSync(join(tmpdir(), 'paytx-opener-'))
  const script = (name: string, body: string) => {
    const file = join(dir, name)
    writeFileSync(file, `#!/bin/sh\n${body}\n`)
    chmodSync(file, 0o755)
    return file
  }

  it('reports success when the BROWSER program exits 0, with the address in its arguments', async () => {
    const seen = join(dir, 'seen.txt')
    const browser = script('ok-browser', `printf '%s\\n' "$@" > "${seen}"`)
    await expect(openInBrowser('http://127.0.0.1:4010/pay?a=1', {BROWSER: `${browser} --new-window %s`})).resolves.toEqual({opened: true})
    expect(readFileSync(seen, 'utf8')).toBe('--new-window\nhttp://127.0.0.1:4010/pay?a=1\n')
  })

  it('reports the exit code of a BROWSER program that fails (no display), instead of claiming success', async () => {
    const browser = script('no-display', 'exit 3')
    await expect(openInBrowser('http://127.0.0.1:4010/pay', {BROWSER: browser})).resolves.toEqual({opened: false, reason: `BROWSER=${browser} exited with code 3`})
  })

  it('reports a BROWSER program that cannot be run', async () => {
    const result = await openInBrowser('http://127.0.0.1:4010/pay', {BROWSER: '/nonexistent/browser'})
    expect(result).toMatchObject({opened: false, reason: expect.stringMatching(/^could not run BROWSER=\/nonexistent\/browser: .*ENOENT/)})
  })

  it('takes a BROWSER program still running after a few seconds as a browser that opened', async () => {
    const browser = script('stays-open', 'sleep 5')
    const started = Date.now()
    await expect(openInBrowser('http://127.0.0.1:4010/pay', {BROWSER: browser})).resolves.toEqual({opened: true})
    expect(Date.now() - started).toBeLessThan(10_000)
  }, 15_000)
})
