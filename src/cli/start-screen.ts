/**
 * What bare `paytx` (no command, no flag) prints: the two commands to start with, the README's
 * first (a whole payment on the local emulator, nothing to set up) and the one support staff
 * and scripts run most (a transaction's status by id), then where the rest is. `paytx --help`
 * and `paytx help` still print every command.
 */
import {wrapHanging} from '../output/wrap.js'

/** The start screen for stdout; `invokedAs` is how the user ran paytx, `width` stdout's columns (undefined in a pipe). */
export function startScreen(invokedAs: string, width: number | undefined): string {
  const fit = (line: string, hang: number) => wrapHanging(line, width, hang)
  const command = (args: string, what: string) => [...fit(`  ${invokedAs} ${args}`, 4), ...fit(`      ${what}`, 6)]
  return [
    ...fit('paytx drives the payment flows of the Payment Transaction Service from a terminal, with a local emulator of the service.', 0),
    '',
    'Start with:',
    ...command('flow --product dummy --amount 1499 --approve SETTLEMENT_COMPLETED', 'a whole payment on the local emulator: customer, transaction, approval, final status.'),
    ...command('status <id>', 'the status of a transaction, by its id (--wait waits for the final one).'),
    '',
    ...fit(`Every command: \`${invokedAs} help\`. One command: \`${invokedAs} help <command>\`.`, 0),
  ].join('\n')
}
