/**
 * While doctor's network checks wait, on a terminal: one live line on stderr that says what is
 * waited for, how long at most, and how to stop (`⠹ Waiting for the service at 127.0.0.1:4010,
 * port 4020: 9 s at most; Ctrl-C to stop`), fitted to one line and cleared when the waiting ends,
 * so the report starts on a clean line. Callers draw it on terminals only, never under --json.
 */
import {visibleLength} from './wrap.js'

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']
const FRAME_MS = 100
const CLEAR_LINE = '\r\u001B[2K'

export interface WaitingLine {
  /** What is still waited for; an empty list clears the line. */
  update(waitingFor: readonly string[]): void
  /** Clears the line and stops drawing (the end, an error, Ctrl-C). */
  stop(): void
}

export interface WaitingLineOptions {
  width: number
  /** When doctor stops waiting, in `now()`'s time. */
  until: number
  now?: () => number
}

/** The line's words, the longest that fits in `room` columns: every name, else how many. */
export function waitingText(waitingFor: readonly string[], secondsLeft: number, room: number): string {
  const tail = `: ${secondsLeft} s at most; Ctrl-C to stop`
  const whole = `Waiting for ${waitingFor.join(', ')}${tail}`
  if (visibleLength(whole) <= room) return whole
  const counted = `Waiting for ${waitingFor.length} check${waitingFor.length === 1 ? '' : 's'}${tail}`
  if (visibleLength(counted) <= room) return counted
  const short = `Waiting ${secondsLeft} s; Ctrl-C stops`
  return short.length <= room ? short : short.slice(0, Math.max(0, room))
}

export function startWaitingLine(stream: NodeJS.WritableStream, options: WaitingLineOptions): WaitingLine {
  const now = options.now ?? Date.now
  let waiting: readonly string[] = []
  let frame = 0
  let drawn = false
  let timer: NodeJS.Timeout | undefined
  const draw = () => {
    const secondsLeft = Math.max(0, Math.ceil((options.until - now()) / 1000))
    // The mark and its space take two columns; the last column stays free so the line never wraps.
    stream.write(`${CLEAR_LINE}${FRAMES[frame++ % FRAMES.length]} ${waitingText(waiting, secondsLeft, options.width - 3)}`)
    drawn = true
  }
  const clear = () => {
    clearInterval(timer)
    timer = undefined
    if (drawn) stream.write(CLEAR_LINE)
    drawn = false
  }
  return {
    update(waitingFor) {
      waiting = waitingFor
      if (waiting.length === 0) return clear()
      draw()
      timer ??= setInterval(draw, FRAME_MS).unref()
    },
    stop: clear,
  }
}
