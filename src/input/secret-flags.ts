/**
 * Flags paytx leaves out on purpose: a secret typed as a flag value (`--pan 4024…`) stays in the
 * shell's history and in the process list, where anyone on the machine can read it. Each has a
 * `-stdin` flag instead; someone who tries the obvious name learns why, and what to type.
 */
const SECRET_FLAGS: Record<string, {what: string; example: string}> = {
  '--pan': {what: 'a card number', example: `printf '%s\\n' "$PAN" | <command> --pan-stdin`},
  '--cvv': {what: 'a CVV', example: `printf '%s\\n%s\\n' "$PAN" "$CVV" | <command> --pan-stdin --cvv-stdin`},
  '--api-key': {what: 'an API key', example: `printf '%s\\n' "$KEY" | <command> --api-key-stdin`},
  '--proxy-key': {what: 'a proxy key', example: `printf '%s\\n' "$KEY" | <command> --proxy-key-stdin`},
}

/**
 * The hint for a flag that does not exist because it would carry a secret, when the command has
 * its `-stdin` form; undefined otherwise. `command` is the command as typed (`paytx card tokenize`).
 */
export function secretFlagHint(typed: string, knownFlags: readonly string[], command: string): string | undefined {
  const flag = typed.split('=')[0]
  const secret = SECRET_FLAGS[flag]
  if (!secret || !knownFlags.includes(`${flag}-stdin`)) return undefined
  return `There is no ${flag} on purpose: ${secret.what} on the command line stays in your shell history and in the process list, where others can read it. Pipe it in with ${flag}-stdin (\`${secret.example.replace('<command>', command)}\`)${flag === '--pan' || flag === '--cvv' ? ', or leave it out on a terminal to be asked for it without it showing' : ''}.`
}
