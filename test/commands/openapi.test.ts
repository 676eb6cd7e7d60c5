/** `paytx openapi` prints the contract's OpenAPI document (src/api/openapi.ts), the one shipped in schemas/. */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {ROOT} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'

const SHIPPED = JSON.parse(readFileSync(join(ROOT, 'schemas', 'openapi.json'), 'utf8'))

describe('paytx openapi', () => {
  it('prints the document, indented, and only it on stdout', async () => {
    const result = await runCommand(['openapi'])
    expect(result.exitCode).toBe(0)
    expect(result.stderr).toBe('')
    expect(JSON.parse(result.stdout)).toEqual(SHIPPED)
    expect(result.stdout).toMatch(/^\{\n {2}"openapi": "3\.1\.0",/)
  })

  it('--compact prints it on one line; --json prints the document itself', async () => {
    const compact = await runCommand(['openapi', '--compact'])
    expect(compact.stdout.trim().split('\n')).toHaveLength(1)
    expect(JSON.parse(compact.stdout)).toEqual(SHIPPED)
    expect(JSON.parse((await runCommand(['openapi', '--json'])).stdout)).toEqual(SHIPPED)
  })
})
