/**
 * Whoever reads paytx's output may be slow (`paytx profile list --json | less`, a loaded CI job):
 * paytx ends once it has handed all of its output over, however long that takes. Two defects
 * stood here: process.exit() cut what was still queued for the pipe at 64 KiB, and oclif's
 * unawaited 10 s flush deadline ended paytx with a stack trace while the reader held stdout.
 */
import {spawn} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {expect, it} from 'vitest'

import {ROOT, cleanEnv, tempConfigDir} from '../helpers/cli.js'

const PROFILES = 2_000
/** Longer than the deadline oclif gave its flush. */
const READER_AWAY_MS = 11_000

it('hands all of a long --json document to a reader that reads nothing for 11 s, exits 0, and prints no error', async () => {
  const configDir = tempConfigDir()
  const profiles = Object.fromEntries(
    Array.from({length: PROFILES}, (_, n) => [`p${n}`, {env: 'sandbox', base_url: 'https://sandbox.spryngpayments.com/v1', api_key_header: 'X-APIKEY', api_key: `key-of-p${n}-0123456789`}]),
  )
  writeFileSync(join(configDir, 'profiles.json'), JSON.stringify({profiles}), {mode: 0o600})
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'run.js'), 'profile', 'list', '--json'], {
    env: {...cleanEnv(), PAYTX_CONFIG_DIR: configDir},
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 60_000,
  })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve))
  const chunks: Buffer[] = []
  child.stdout.pause()
  setTimeout(() => {
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk))
    child.stdout.resume()
  }, READER_AWAY_MS)

  expect(await exited, stderr).toBe(0)
  expect(stderr).toBe('')
  const text = Buffer.concat(chunks).toString('utf8')
  expect(text.length).toBeGreaterThan(64 * 1024)
  expect(JSON.parse(text).profiles).toHaveLength(PROFILES + 1)
  // Keys are shown masked, as everywhere.
  expect(text).not.toContain('key-of-p1-0123456789')
}, 90_000)
