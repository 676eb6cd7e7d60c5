/**
 * The emulator's programmatic entry point: start it, read its addresses and keys, close it.
 * Kept light (types and a lazy import) so that importing it costs nothing until it starts.
 */
import type {EmulatorOptions, RunningEmulator} from './options.js'

export type {Clock} from './clock.js'
export type {EmulatorEvent} from './events.js'
export type {EmulatorOptions, PaymentProfileSetting, RunningEmulator} from './options.js'

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const {startEmulatorServer} = await import('./server.js')
  return startEmulatorServer(options)
}
