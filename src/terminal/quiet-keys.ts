/**
 * Keys typed while a spinner or a live view is drawn: neither echoed by the terminal nor left to
 * break the drawing (Enter would leave a frozen spinner line per key). While held, a terminal
 * stdin is put in raw mode and what is typed is read and dropped; Ctrl-C (which raw mode no
 * longer turns into a signal) is sent as SIGINT, so it stops the command as before. Released,
 * stdin is as it was: its mode back, paused, so it no longer keeps the process alive.
 *
 * ora's own `discardStdin` does the same but never starts reading a stdin nobody read before
 * (it adds its listener without resuming the stream), so the keys and Ctrl-C pile up unread.
 */

export interface KeyboardInput {
  isTTY?: boolean
  isRaw?: boolean
  setRawMode?(mode: boolean): unknown
  on(event: 'data', listener: (chunk: Buffer | string) => void): unknown
  off(event: 'data', listener: (chunk: Buffer | string) => void): unknown
  resume(): unknown
  pause(): unknown
}

export interface QuietKeys {
  /** Stops dropping keys; stdin is as it was. Calling it again does nothing. */
  release(): void
}

const CTRL_C = 0x03

/** Holds the keyboard quiet until `release()`; nothing to do (and nothing done) unless stdin is a terminal. */
export function quietKeys(stdin: KeyboardInput = process.stdin, interrupt: () => void = () => process.kill(process.pid, 'SIGINT')): QuietKeys {
  if (!stdin.isTTY || typeof stdin.setRawMode !== 'function') return {release: () => {}}
  const wasRaw = Boolean(stdin.isRaw)
  const onData = (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
    if (bytes.includes(CTRL_C)) interrupt()
  }
  stdin.setRawMode(true)
  stdin.on('data', onData)
  stdin.resume()
  let held = true
  return {
    release() {
      if (!held) return
      held = false
      stdin.off('data', onData)
      stdin.setRawMode?.(wasRaw)
      stdin.pause()
    },
  }
}
