/**
 * Opens an address in the person's browser. `BROWSER` wins when set (as in gh and git: a command,
 * `%s` replaced by the address or the address appended; the first of a colon-separated list);
 * otherwise the `open` package picks the system's opener, loaded only when needed.
 */
import {spawn} from 'node:child_process'

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

export async function openInBrowser(url: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const browser = env.BROWSER?.split(':')[0]?.trim()
  if (browser) {
    const words = splitCommandLine(browser)
    const args = words.slice(1).map((word) => word.replaceAll('%s', url))
    if (!browser.includes('%s')) args.push(url)
    await new Promise<void>((resolve, reject) => {
      const child = spawn(words[0], args, {detached: true, stdio: 'ignore'})
      child.once('error', (error) => reject(new Error(`could not run BROWSER=${browser}: ${error.message}`)))
      child.once('spawn', () => {
        child.unref()
        resolve()
      })
    })
    return
  }
  const {default: open} = await import('open')
  const child = await open(url)
  await new Promise<void>((resolve, reject) => {
    child.once('error', (error) => reject(new Error(`could not open a browser: ${error.message}`)))
    if (child.pid === undefined) return
    resolve()
  })
}
