/**
 * Opens an address in the person's browser. `BROWSER` wins when set (as in gh and git: a command,
 * `%s` replaced by the address or the address appended; the first of a colon-separated list);
 * otherwise the `open` package picks the system's opener, loaded only when needed. A failure to
 * open (no display, a BROWSER program that exits non-zero) is reported, so the caller can print
 * the address for the person to open by hand.
 */
import {type ChildProcess, spawn} from 'node:child_process'

/** Splits a command line on whitespace, honouring single and double quotes (a path with spaces). */
export function splitCommandLine(line: string): string[] {
  const words: string[] = []
  let current = ''
  let quote: '"' | "'" | undefined
  let inWord = false
  for (const ch of line) {
    if (quote) {
      if (ch === quote) quote = undefined
      else current += ch
    } else if (ch === '"' || ch === "'") {
      quote = ch
      inWord = true
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(current)
      current = ''
      inWord = false
    } else {
      current += ch
      inWord = true
    }
  }
  if (inWord) words.push(current)
  return words
}

export type BrowserOpenResult = {opened: true} | {opened: false; reason: string}

/**
 * An opener that cannot open anything fails at once (xdg-open with no display exits 3 within
 * moments); one still running after this long has handed the page to a browser, or is the browser.
 */
const OPENER_FAILURE_WINDOW_MS = 3_000

/**
 * Opens `url` and says whether that worked: the opener's exit code (non-zero is a failure) or
 * its start-up error, never an exception.
 */
export async function openInBrowser(url: string, env: NodeJS.ProcessEnv = process.env): Promise<BrowserOpenResult> {
  const browser = env.BROWSER?.split(':')[0]?.trim()
  if (browser) {
    const words = splitCommandLine(browser)
    const args = words.slice(1).map((word) => word.replaceAll('%s', url))
    if (!browser.includes('%s')) args.push(url)
    return watchOpener(`BROWSER=${browser}`, () => spawn(words[0], args, {detached: true, stdio: 'ignore'}))
  }
  const {default: open} = await import('open')
  return watchOpener('the system\'s opener (xdg-open, open or start)', () => open(url))
}

async function watchOpener(name: string, start: () => ChildProcess | Promise<ChildProcess>): Promise<BrowserOpenResult> {
  let child: ChildProcess
  try {
    child = await start()
  } catch (error) {
    return {opened: false, reason: `could not run ${name}: ${(error as Error).message}`}
  }
  return new Promise<BrowserOpenResult>((resolve) => {
    const settle = (result: BrowserOpenResult) => {
      clearTimeout(failureWindow)
      child.removeAllListeners('error').removeAllListeners('exit')
      child.unref()
      resolve(result)
    }
    const failureWindow = setTimeout(() => settle({opened: true}), OPENER_FAILURE_WINDOW_MS)
    child.once('error', (error) => settle({opened: false, reason: `could not run ${name}: ${error.message}`}))
    child.once('exit', (code, signal) => {
      if (code === 0) settle({opened: true})
      else settle({opened: false, reason: `${name} ${code === null ? `was stopped by ${signal}` : `exited with code ${code}`}`})
    })
  })
}
