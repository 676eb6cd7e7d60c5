/**
 * What to say about an address of an emulator that ran inside the command (the embedded default
 * of a `local` profile with no emulator running): it stopped when the command ended, so the
 * address is dead by the time anyone opens it. Said plainly, with how to keep one running.
 */

export interface CommandEmulatorAddress {
  /** The address of the emulator the command ran. */
  emulatorUrl: string
  /** The profile's base URL: an emulator started there later serves the same store, so the address works again. */
  profileBaseUrl: string
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin
  } catch {
    return false
  }
}

/** Whether `url` is served by the emulator that ran inside the command. */
export function servedByCommandEmulator(url: string, emulator: CommandEmulatorAddress): boolean {
  return sameOrigin(url, emulator.emulatorUrl)
}

/** The words beside such an address in a result: it does not answer now. */
export const DEAD_ADDRESS_MARK = '(not served now: the emulator stopped with this command)'

/**
 * Why `what` (e.g. "the approval URL") does not answer, and how to keep an emulator running;
 * `start` is the command line of `emulator start` as the user runs paytx.
 */
export function commandEmulatorNote(emulator: CommandEmulatorAddress, what: string, start: string): string {
  if (sameOrigin(emulator.emulatorUrl, emulator.profileBaseUrl)) {
    return (
      `The emulator ran only for this command and stopped with it, so nothing answers at ${what} now. ` +
      `Keep one running with \`${start}\` in another terminal: it serves the same store, so ${what} works again.`
    )
  }
  return (
    `The emulator ran only for this command, on a port of its own (another command's emulator held ${emulator.profileBaseUrl}), ` +
    `and stopped with it: nothing will answer at ${what} again. Keep one running with \`${start}\` in another terminal and run this command again.`
  )
}
