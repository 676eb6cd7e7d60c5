/**
 * The OS keychain (macOS Keychain, Windows Credential Manager, the Secret Service on Linux) through
 * @napi-rs/keyring, every call made in a child process (keychain-process.ts) so that a call that
 * hangs can be given up on: each has 3 s to answer, as in gh and the Stripe CLI, after which the
 * process is killed and the call counts as failed.
 */
import {spawn} from 'node:child_process'
import {fileURLToPath} from 'node:url'

import type {KeychainAnswer, KeychainOp} from './keychain-protocol.js'

export {KEYCHAIN_SERVICE} from './keychain-protocol.js'
export type {KeychainAnswer, KeychainOp} from './keychain-protocol.js'

export const KEYCHAIN_TIMEOUT_MS = 3000
/** Starting Node and loading the binding is not a keychain call; a loaded machine gets more time for it. */
const STARTUP_TIMEOUT_MS = 10_000

/** Resolved when a keychain process starts, not at import (see query-thread.ts). */
const processScript = (): string => fileURLToPath(new URL('keychain-process.js', import.meta.url))

/**
 * The child's environment: paytx's own, less what only slows a Node start or changes its
 * behaviour and that a process which makes no network connection never needs: extra CA
 * certificates (read whole at every start: about 50 ms for a system bundle) and NODE_OPTIONS
 * (preloaded modules, inspector flags).
 */
export function keychainProcessEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const {NODE_EXTRA_CA_CERTS: _ca, NODE_OPTIONS: _options, ...rest} = env
  return rest
}

/** Runs the operations in order, in one child process; every answer comes back, failed or not. */
export function runKeychain(ops: readonly KeychainOp[]): Promise<KeychainAnswer[]> {
  if (ops.length === 0) return Promise.resolve([])
  return new Promise((resolve) => {
    const answers: KeychainAnswer[] = []
    let ready = false
    let settled = false
    let stdout = ''
    let stderr = ''
    const child = spawn(process.execPath, [processScript()], {stdio: ['pipe', 'pipe', 'pipe'], env: keychainProcessEnv(process.env)})
    const finish = (reason: string) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      child.kill('SIGKILL')
      while (answers.length < ops.length) answers.push({ok: false, reason})
      resolve(answers)
    }
    let timer = setTimeout(() => finish('the keychain did not start'), STARTUP_TIMEOUT_MS)
    const awaitNextAnswer = () => {
      clearTimeout(timer)
      timer = setTimeout(() => finish(`the keychain did not answer within ${KEYCHAIN_TIMEOUT_MS / 1000} s`), KEYCHAIN_TIMEOUT_MS)
    }
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
      let newline: number
      while ((newline = stdout.indexOf('\n')) >= 0 && !settled) {
        const line = parseLine(stdout.slice(0, newline))
        stdout = stdout.slice(newline + 1)
        if (!line) return finish('the keychain process answered something unexpected')
        if ('ready' in line) ready = true
        else answers.push(line)
        if (answers.length === ops.length) finish('')
        else awaitNextAnswer()
      }
    })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.on('error', (error) => finish(`the keychain process could not start (${error.message})`))
    child.on('close', () => {
      const why = stderr.trim().split('\n')[0]
      finish(`the keychain process ended ${ready ? 'early' : 'before it was ready'}${why ? ` (${why})` : ''}`)
    })
    child.stdin.on('error', () => {}) // a child that died at once is reported by 'close'
    child.stdin.end(`${JSON.stringify({ops})}\n`)
  })
}

function parseLine(text: string): KeychainAnswer | {ready: true} | undefined {
  try {
    const line = JSON.parse(text) as unknown
    return typeof line === 'object' && line !== null ? (line as KeychainAnswer | {ready: true}) : undefined
  } catch {
    return undefined
  }
}
