#!/usr/bin/env node
// Redaction speed (src/secrets/redact.ts) on hostile text, against ordinary JSON of the same size,
// measured side by side in the same run (rounds interleaved, medians): every webhook body, error
// message and --verbose line goes through it, so a shape that makes it slow makes paytx slow.
// Two paths, as paytx uses them: `text` (redactText, for bodies that are not JSON and for every
// message shown) and `body` (redactBody of the parsed value, for webhook and API bodies; parsing is
// not redaction, and V8's JSON.parse alone takes ~10x longer on 1 MB of deep nesting than on flat JSON).
// Targets (issue 21): 1 MB of any shape takes at most 2x the time of 1 MB of ordinary JSON on the
// same path, and 10 MB at most 12x its own 1 MB time. Exits 1 when a target is missed.
// PAYTX_BENCH_REDACT_ROUNDS sets the rounds (default 7); PAYTX_BENCH_REDACT_LARGE=0 skips 10 MB.
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'

import {build} from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const ROUNDS = Number(process.env.PAYTX_BENCH_REDACT_ROUNDS ?? 7)
const LARGE = process.env.PAYTX_BENCH_REDACT_LARGE !== '0'
const MB = 1024 * 1024
const TARGET_SHAPE_RATIO = 2
const TARGET_GROWTH = 12

// The module is bundled from the source, so that the bench measures the code as it is now.
const scratch = mkdtempSync(join(tmpdir(), 'paytx-bench-redact-'))
const bundle = join(scratch, 'redact.mjs')
await build({entryPoints: [join(root, 'src', 'secrets', 'redact.ts')], bundle: true, platform: 'node', format: 'esm', outfile: bundle, logLevel: 'error'})
const {redactBody, redactText} = await import(pathToFileURL(bundle).href)
rmSync(scratch, {recursive: true, force: true})

/** `unit` repeated to `bytes` characters, closed by `tail` (the end of a JSON document, say). */
function repeatTo(bytes, unit, head = '', tail = '') {
  const count = Math.max(1, Math.floor((bytes - head.length - tail.length) / unit.length))
  return head + unit.repeat(count) + tail
}

/** A list of transaction records as the service sends them: ids, amounts, dates, names, URLs. */
function ordinaryJson(bytes) {
  const record = (index) => ({
    id: `4f1c2a10-5b1e-4f6a-8c2d-${String(400000000000 + index).padStart(12, '0')}`,
    status: 'SETTLEMENT_COMPLETED',
    amount: String(1000 + (index % 9000)),
    currency: 'EUR',
    payment_product: 'card',
    created_at: '2026-11-22T14:15:27.123Z',
    customer: {id: `c-${index}`, first_name: 'Piet', last_name: 'Pieters', phone_number: '+31612345679', postal_code: '1012 JS'},
    details: {card: {pan: '•••• 3153', expiry: '12/29'}, redirect_url: `https://shop.example/orders/${index}?step=2`},
  })
  const records = []
  let size = 2
  for (let index = 0; size < bytes; index++) {
    const text = JSON.stringify(record(index))
    records.push(text)
    size += text.length + 1
  }
  return `[${records.join(',')}]`
}

function deepJson(bytes) {
  const inner = '{"pan":"4024007108173153","note":"4024-0071-0817-3153"}'
  const depth = Math.floor((bytes - inner.length) / 6)
  return `${'{"a":'.repeat(depth)}${inner}${'}'.repeat(depth)}`
}

/** Each shape: how to make `bytes` of it, and whether it is JSON (then both paths are timed). */
const SHAPES = {
  'ordinary JSON': {make: ordinaryJson, json: true},
  'digit groups (1 1 1 ...)': {make: (bytes) => repeatTo(bytes, '1 ')},
  'dashed digit groups (1-1-1...)': {make: (bytes) => repeatTo(bytes, '1-')},
  'spaced card numbers': {make: (bytes) => repeatTo(bytes, '4024 0071 0817 3153 ')},
  'dashed card numbers': {make: (bytes) => repeatTo(bytes, '4024-0071-0817-3153 ')},
  'URL-encoded card numbers': {make: (bytes) => repeatTo(bytes, 'n=4024%200071%200817%203153&p=4024+0071+0817+3153&')},
  'run of non-Luhn groups': {make: (bytes) => repeatTo(bytes, '4024 0071 0817 3154 ')},
  'one run of digits': {make: (bytes) => repeatTo(bytes, '4')},
  'card fields in a form': {make: (bytes) => repeatTo(bytes, 'pan=4024007108173153&cvv=123&')},
  'UUIDs': {make: (bytes) => repeatTo(bytes, '4f1c2a10-5b1e-4f6a-1234-123456789011 ')},
  'unterminated quoted values': {make: (bytes) => repeatTo(bytes, 'cvv="')},
  'unclosed XML fields': {make: (bytes) => repeatTo(bytes, '<cvv>')},
  'deep JSON': {make: deepJson, json: true},
  'JSON list of card numbers': {make: (bytes) => repeatTo(bytes, '"4024 0071 0817 3153",', '[', '"x"]'), json: true},
  'JSON digit groups in a string': {make: (bytes) => repeatTo(bytes, '1 ', '{"note":"', '"}'), json: true},
  'JSON CVV of spaces': {make: (bytes) => repeatTo(bytes, ' ', '{"cvv":"', 'x"}'), json: true},
  'JSON card number field of digits': {make: (bytes) => repeatTo(bytes, '4', '{"pan":"', '"}'), json: true},
}

const PATHS = {
  text: (input) => redactText(input.text),
  body: (input) => redactBody(input.parsed),
}

function timeOnce(path, input) {
  const started = process.hrtime.bigint()
  PATHS[path](input)
  return Number(process.hrtime.bigint() - started) / 1e6
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

/** Median milliseconds of every shape on every path it has, at `bytes`, in interleaved rounds. */
function measure(bytes, rounds) {
  const inputs = Object.entries(SHAPES).map(([name, shape]) => {
    const text = shape.make(bytes)
    return {name, text, parsed: shape.json ? JSON.parse(text) : undefined, paths: shape.json ? ['text', 'body'] : ['text']}
  })
  const samples = new Map()
  for (let round = 0; round < rounds; round++) {
    for (const input of inputs) {
      for (const path of input.paths) {
        const key = `${input.name}\t${path}`
        if (!samples.has(key)) samples.set(key, [])
        samples.get(key).push(timeOnce(path, input))
      }
    }
  }
  return new Map([...samples].map(([key, values]) => [key, median(values)]))
}

// A warm-up round, so that the first shape does not pay for compiling the code.
measure(MB / 16, 2)
const small = measure(MB, ROUNDS)
const large = LARGE ? measure(10 * MB, Math.max(3, Math.ceil(ROUNDS / 2))) : undefined

const pad = (text, width) => String(text).padEnd(width)
const ms = (value) => `${value.toFixed(1)} ms`
console.log(`${pad('shape', 36)}${pad('path', 6)}${pad('1 MB', 12)}${pad('vs JSON', 10)}${large ? `${pad('10 MB', 12)}${pad('10 MB / 1 MB', 12)}` : ''}`)
const missed = []
for (const [key, time] of small) {
  const [name, path] = key.split('\t')
  const reference = small.get(`ordinary JSON\t${path}`)
  const ratio = time / reference
  if (ratio > TARGET_SHAPE_RATIO) missed.push(`${name} (${path}): 1 MB takes ${ratio.toFixed(2)}x ordinary JSON (target at most ${TARGET_SHAPE_RATIO}x)`)
  let largeColumns = ''
  if (large) {
    const growth = large.get(key) / time
    if (growth > TARGET_GROWTH) missed.push(`${name} (${path}): 10 MB takes ${growth.toFixed(1)}x its 1 MB time (target at most ${TARGET_GROWTH}x)`)
    largeColumns = `${pad(ms(large.get(key)), 12)}${pad(`${growth.toFixed(1)}x`, 12)}`
  }
  console.log(`${pad(name, 36)}${pad(path, 6)}${pad(ms(time), 12)}${pad(`${ratio.toFixed(2)}x`, 10)}${largeColumns}`)
}
console.log(`\nmedians of ${ROUNDS} rounds at 1 MB${large ? `, ${Math.max(3, Math.ceil(ROUNDS / 2))} at 10 MB` : ''}; targets: at most ${TARGET_SHAPE_RATIO}x ordinary JSON, 10 MB at most ${TARGET_GROWTH}x 1 MB`)
if (missed.length > 0) {
  console.log(`\nMissed:\n${missed.map((line) => `  ${line}`).join('\n')}`)
  process.exit(1)
}
console.log('All targets met.')
