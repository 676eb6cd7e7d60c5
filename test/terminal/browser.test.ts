import {describe, expect, it} from 'vitest'

import {splitCommandLine} from '../../src/terminal/browser.js'

describe('splitCommandLine (reading BROWSER)', () => {
  it('splits on whitespace and keeps quoted words whole', () => {
    expect(splitCommandLine('firefox')).toEqual(['firefox'])
    expect(splitCommandLine('  chromium --new-window  %s ')).toEqual(['chromium', '--new-window', '%s'])
    expect(splitCommandLine(`"/opt/My Browser/run" --flag 'a b' ''`)).toEqual(['/opt/My Browser/run', '--flag', 'a b', ''])
  })
})
