/** Keys held quiet while a spinner runs (src/terminal/quiet-keys.ts), with a fake terminal stdin. */
import {EventEmitter} from 'node:events'
import {describe, expect, it} from 'vitest'

import {quietKeys} from '../../src/terminal/quiet-keys.js'

class FakeTerminalInput extends EventEmitter {
  isTTY = true
  isRaw = false
  flowing = false
  setRawMode(mode: boolean) {
    this.isRaw = mode
  }
  resume() {
    this.flowing = true
  }
  pause() {
    this.flowing = false
  }
}

describe('quietKeys', () => {
  it('reads and drops what is typed in raw mode (no echo), turns Ctrl-C into an interrupt, and gives stdin back as it was', () => {
    const stdin = new FakeTerminalInput()
    let interrupts = 0
    const keys = quietKeys(stdin, () => interrupts++)
    expect(stdin.isRaw).toBe(true)
    expect(stdin.flowing).toBe(true)
    stdin.emit('data', Buffer.from('\r\rtyped\r'))
    expect(interrupts).toBe(0)
    stdin.emit('data', Buffer.from('\u0003'))
    expect(interrupts).toBe(1)
    keys.release()
    keys.release()
    expect(stdin.isRaw).toBe(false)
    expect(stdin.flowing).toBe(false)
    expect(stdin.listenerCount('data')).toBe(0)
  })

  it('leaves a stdin that is not a terminal alone (a pipe, a file, a test)', () => {
    const stdin = new FakeTerminalInput()
    stdin.isTTY = false
    quietKeys(stdin, () => {}).release()
    expect(stdin.isRaw).toBe(false)
    expect(stdin.flowing).toBe(false)
  })
})
