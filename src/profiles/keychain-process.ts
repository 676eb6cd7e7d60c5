/**
 * The keychain, in a process of its own. The binding's calls block inside the OS (a D-Bus call to
 * a stalled Secret Service, a macOS access dialog), and a blocked call can be abandoned neither on
 * a worker thread nor on the libuv pool: Node waits for it even in `process.exit`. A child process
 * can be killed, so paytx runs every keychain call here (see keychain.ts).
 *
 * Protocol: one JSON line on stdin, `{"ops": KeychainOp[]}` (keys travel only through the pipes,
 * never in arguments or the environment); stdout gets `{"ready": true}` once the binding is
 * loaded, then one JSON line per operation, in order.
 */
import {createRequire} from 'node:module'

import {KEYCHAIN_SERVICE, type KeychainAnswer, type KeychainOp} from './keychain-protocol.js'

type EntryClass = typeof import('@napi-rs/keyring').Entry

function send(line: object): void {
  process.stdout.write(`${JSON.stringify(line)}\n`)
}

/** The binding's Entry, or why there is no keychain to use. */
function loadEntry(): EntryClass | string {
  // Without a session bus address libdbus would try to autolaunch a bus (through X11 where built
  // in), which is never what a user meant: there is simply no Secret Service to talk to.
  if (process.platform === 'linux' && !process.env.DBUS_SESSION_BUS_ADDRESS) return 'no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set'
  try {
    return createRequire(import.meta.url)('@napi-rs/keyring').Entry as EntryClass
  } catch (error) {
    return `the keychain library cannot be loaded here (${(error as Error).message.split('\n')[0]})`
  }
}

function perform(Entry: EntryClass, op: KeychainOp): KeychainAnswer {
  try {
    // Pinned to the Secret Service on Linux: the binding's fallback, the kernel keyring, forgets
    // everything at log-out, so a key "stored" there would be lost.
    const entry = new Entry(KEYCHAIN_SERVICE, op.account, {linux: {store: 'secret-service'}})
    if (op.op === 'get') return {ok: true, value: entry.getPassword() ?? undefined}
    if (op.op === 'set') {
      entry.setPassword(op.value)
      return {ok: true}
    }
    return {ok: true, deleted: entry.deletePassword()}
  } catch (error) {
    return {ok: false, reason: (error as Error).message.split('\n')[0]}
  }
}

let input = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', (chunk: string) => (input += chunk))
process.stdin.on('end', () => {
  const {ops} = JSON.parse(input) as {ops: KeychainOp[]}
  const Entry = loadEntry()
  send({ready: true})
  for (const op of ops) send(typeof Entry === 'string' ? {ok: false, reason: Entry} : perform(Entry, op))
})
