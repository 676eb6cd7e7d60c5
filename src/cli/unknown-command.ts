/**
 * An unknown command or help subject in paytx's error style, with the closest known command: the
 * words typed are tried longest first, so `paytx stauts <id>` finds `status` and keeps the id
 * (`paytx status <id>`), and `paytx transaction strat` finds `transaction start`.
 */
import {closestName} from '../closest-name.js'

/** The closest known command to the first words of `words`, with the words after them; undefined when none is close. */
export function closestCommand(words: readonly string[], known: readonly string[]): {typed: string; meant: string} | undefined {
  for (let count = words.length; count > 0; count--) {
    const typed = words.slice(0, count).join(' ')
    const closest = closestName(typed, known)
    if (closest) return {typed, meant: [closest, ...words.slice(count)].join(' ')}
  }
  return undefined
}

/**
 * The error and hint lines for `words` (a command as typed, split into words); `commandLine`
 * names a command as the user runs paytx. `help` true: the words were given to `paytx help`.
 */
export function unknownCommandLines(words: readonly string[], known: readonly string[], commandLine: (args: string) => string, help = false): string[] {
  const closest = closestCommand(words, known)
  const typed = closest?.typed ?? words.join(' ')
  const seeHelp = `See \`${commandLine('help')}\` for all commands.`
  const meant = closest && (help ? `help ${closest.meant}` : closest.meant)
  return [`Error: unknown command "${typed}".`, meant ? `Hint: did you mean \`${commandLine(meant)}\`? ${seeHelp}` : `Hint: ${seeHelp.replace(/^S/, 's')}`]
}
