import {EventEmitter} from 'node:events'

import {describe, expect, it} from 'vitest'

import {InterruptedError} from '../../src/errors.js'
import {type SignalSource, type StopSignal, listenForInterrupt} from '../../src/terminal/interrupt.js'

/** A process stand-in: signals are emitted by the test, exit is recorded instead of done. */
function fakeProcess() {
  const emitter = new EventEmitter()
  const exits: number[] = []
  const source = {
    on: (event: StopSignal, listener: () => void) => emitter.on(event, listener),
    off: (event: StopSignal, listener: () => void) => emitter.off(event, listener),
    exit: (code: number) => {
      exits.push(code)
      return undefined as never
    },
  } satisfies SignalSource
  return {source, exits, send: (signal: StopSignal) => emitter.emit(signal), listeners: (signal: StopSignal) => emitter.listenerCount(signal)}
}

describe('listenForInterrupt', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)('aborts on the first %s with an InterruptedError and names the signal', (signal) => {
    const fake = fakeProcess()
    const interruption = listenForInterrupt(undefined, fake.source)
    expect(interruption.signal.aborted).toBe(false)
    fake.send(signal)
    expect(interruption.signal.aborted).toBe(true)
    expect(interruption.signal.reason).toBeInstanceOf(InterruptedError)
    expect(interruption.received).toBe(signal)
    expect(fake.exits).toEqual([])
  })

  it('exits 130 at once on a second signal, whichever it is', () => {
    const fake = fakeProcess()
    listenForInterrupt(undefined, fake.source)
    fake.send('SIGTERM')
    fake.send('SIGINT')
    expect(fake.exits).toEqual([130])
  })

  it('listens only for the signals asked (SIGHUP for the emulator) and stops listening when disposed', () => {
    const fake = fakeProcess()
    const plain = listenForInterrupt(undefined, fake.source)
    expect(fake.listeners('SIGHUP')).toBe(0)
    const withHangUp = listenForInterrupt(['SIGINT', 'SIGTERM', 'SIGHUP'], fake.source)
    expect(fake.listeners('SIGHUP')).toBe(1)
    plain.dispose()
    withHangUp.dispose()
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) expect(fake.listeners(signal)).toBe(0)
  })
})

describe('after Ctrl-C at a terminal, which echoed ^C', () => {
  /** stdout and stderr of one terminal: what reaches the screen, in order. */
  function terminal({tty = true, raw = false} = {}) {
    let screen = ''
    const stream = () => ({isTTY: tty, write: (chunk: string | Uint8Array) => ((screen += chunk.toString()), true)})
    return {io: {stdin: {isTTY: tty, isRaw: raw}, stdout: stream(), stderr: stream()}, screen: () => screen}
  }

  it('the next write starts a new line, once, whether on stderr or stdout', () => {
    const fake = fakeProcess()
    const term = terminal()
    const interruption = listenForInterrupt(undefined, fake.source, term.io)
    fake.send('SIGINT')
    term.io.stdout.write('pending-1: Interrupted.\n')
    term.io.stderr.write('Stopped.\n')
    interruption.dispose()
    expect(term.screen()).toBe('\npending-1: Interrupted.\nStopped.\n')
  })

  it.each([
    ['a line of its own', '\nStopped (SIGINT).\n'],
    ['a live line redrawn from its start, which wipes the ^C', '\r\u001B[2K'],
  ])('no new line is added before %s', (_, first) => {
    const fake = fakeProcess()
    const term = terminal()
    listenForInterrupt(undefined, fake.source, term.io)
    fake.send('SIGINT')
    term.io.stderr.write(first)
    expect(term.screen()).toBe(first)
  })

  it('with nothing written after it, the new line comes when the command ends, for the shell prompt', () => {
    const fake = fakeProcess()
    const term = terminal()
    const interruption = listenForInterrupt(undefined, fake.source, term.io)
    fake.send('SIGINT')
    expect(term.screen()).toBe('')
    interruption.dispose()
    expect(term.screen()).toBe('\n')
  })

  it.each([
    ['SIGTERM (nothing echoed)', {}, 'SIGTERM'],
    ['a keyboard held in raw mode by a spinner (nothing echoed)', {raw: true}, 'SIGINT'],
    ['no terminal', {tty: false}, 'SIGINT'],
  ] as const)('nothing is added after %s', (_, options, signal) => {
    const fake = fakeProcess()
    const term = terminal(options)
    const interruption = listenForInterrupt(undefined, fake.source, term.io)
    fake.send(signal)
    term.io.stderr.write('Stopped.\n')
    interruption.dispose()
    expect(term.screen()).toBe('Stopped.\n')
  })
})
