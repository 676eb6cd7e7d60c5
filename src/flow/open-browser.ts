/**
 * Opening a URL in the user's browser. `BROWSER`, when set, names the program (with arguments;
 * `%s` marks where the URL goes, else it is appended), as git, gh and Python's webbrowser read
 * it; otherwise the system's opener is used through `open`.
 */
/** Splits a command line on whitespace, honouring single and double quotes. */
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

export function browserCommand(browser: string, url: string): {command: string; args: string[]} {
  const words = splitCommandLine(browser)
  const placed = words.some((word) => word.includes('%s'))
  const args = words.slice(1).map((word) => word.replaceAll('%s', url))
  if (!placed) args.push(url)
  return {command: words[0], args}
}

export async function openInBrowser(url: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const browser = env.BROWSER?.trim()
  if (!browser) {
    const {default: open} = await import('open')
    const child = await open(url)
    child.once('error', () => undefined)
    child.unref()
    return
  }
  const {spawn} = await import('node:child_process')
  const {command, args} = browserCommand(browser, url)
  await new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, {stdio: 'ignore', detached: true, env})
    child.once('spawn', () => {
      child.unref()
      resolve()
    })
    child.once('error', (error: NodeJS.ErrnoException) => {
      reject(new Error(`could not start the browser "${command}" named by BROWSER (${error.code === 'ENOENT' ? 'no such program' : error.message})`))
    })
  })
}
