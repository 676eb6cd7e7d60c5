/**
 * A real Secret Service for keychain tests: a private D-Bus session bus and an unlocked
 * gnome-keyring-daemon whose keyring lives in a temporary folder, so that no test touches a real
 * keyring. CLI processes reach it through the `env` it returns. The system tier runs it where the
 * daemons are (test/tiers.ts skips it, saying so, where they are not; CI fails instead).
 */
import {type ChildProcess, spawn, spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

/** The daemons live as long as the test file at most: killed after this in any case. */
const DAEMON_TIMEOUT_MS = 10 * 60_000
const COMMAND_TIMEOUT_MS = 10_000

export interface SecretService {
  /** Environment for processes that should use this keyring. */
  env: {DBUS_SESSION_BUS_ADDRESS: string}
  /** `secret-tool` against this keyring; stdout. */
  secretTool(...args: string[]): string
  /** Signals the bus: SIGSTOP makes every keychain call hang (as a stalled keychain does), SIGCONT resumes. */
  signalBus(signal: 'SIGSTOP' | 'SIGCONT'): void
  stop(): Promise<void>
}

function waitForLine(child: ChildProcess, pattern: RegExp, what: string, timeoutMs = 15_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = ''
    const timer = setTimeout(() => reject(new Error(`${what} did not start within ${timeoutMs} ms:\n${output}`)), timeoutMs)
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8')
      const match = pattern.exec(output)
      if (match) {
        clearTimeout(timer)
        resolve(match[1] ?? match[0])
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`${what} exited (${code}) before it was ready:\n${output}`))
    })
  })
}

/** Ready once the keyring owns the Secret Service's bus name (else the bus would start another keyring for it). */
async function waitForSecretsName(env: NodeJS.ProcessEnv, keyring: ChildProcess, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  const args = ['--session', '--print-reply', '--dest=org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus.NameHasOwner', 'string:org.freedesktop.secrets']
  while (Date.now() < deadline) {
    if (keyring.exitCode !== null) throw new Error(`gnome-keyring-daemon exited (${keyring.exitCode}) before it was ready`)
    if (/boolean true/.test(spawnSync('dbus-send', args, {env, encoding: 'utf8', timeout: COMMAND_TIMEOUT_MS}).stdout ?? '')) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error('gnome-keyring-daemon did not take the name org.freedesktop.secrets on the test bus')
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    child.once('exit', () => resolve())
    child.kill('SIGCONT')
    child.kill('SIGTERM')
  })
}

export async function startSecretService(): Promise<SecretService> {
  const home = mkdtempSync(join(tmpdir(), 'paytx-keyring-'))
  const address = `unix:path=${join(home, 'bus')}`
  const bus = spawn('dbus-daemon', ['--session', '--nofork', `--address=${address}`, '--print-address=1'], {stdio: ['ignore', 'pipe', 'pipe'], timeout: DAEMON_TIMEOUT_MS})
  await waitForLine(bus, /unix:path=\S+/, 'dbus-daemon')
  const env = {...process.env, DBUS_SESSION_BUS_ADDRESS: address, HOME: home, XDG_DATA_HOME: join(home, 'data'), XDG_RUNTIME_DIR: home}
  const keyring = spawn('gnome-keyring-daemon', ['--foreground', '--unlock', '--components=secrets'], {env, stdio: ['pipe', 'ignore', 'ignore'], timeout: DAEMON_TIMEOUT_MS})
  keyring.stdin.end('test-keyring-password')
  try {
    await waitForSecretsName(env, keyring)
  } catch (error) {
    await Promise.all([stopProcess(keyring), stopProcess(bus)])
    throw error
  }
  return {
    env: {DBUS_SESSION_BUS_ADDRESS: address},
    secretTool: (...args) => spawnSync('secret-tool', args, {env, encoding: 'utf8', timeout: COMMAND_TIMEOUT_MS}).stdout,
    signalBus(signal) {
      bus.kill(signal)
    },
    async stop() {
      await stopProcess(keyring)
      await stopProcess(bus)
      rmSync(home, {recursive: true, force: true})
    },
  }
}
