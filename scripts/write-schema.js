#!/usr/bin/env node
// `npm run schema`: writes the JSON Schemas under schemas/ from the zod schemas the loaders check
// against (scenario files: src/smoke/scenario-schema.ts; fault files:
// src/emulator/faults/fault-schema.ts), each bundled in memory.
import {writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {build} from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

async function importBundled(entryPoint) {
  const {outputFiles} = await build({absWorkingDir: root, entryPoints: [entryPoint], bundle: true, format: 'esm', platform: 'node', write: false})
  return import(`data:text/javascript;base64,${Buffer.from(outputFiles[0].text).toString('base64')}`)
}

const writeSchema = (file, schema) => writeFileSync(join(root, 'schemas', file), `${JSON.stringify(schema, null, 2)}\n`)

const {scenarioJsonSchema} = await importBundled('src/smoke/scenario-schema.ts')
writeSchema('smoke-scenario.schema.json', scenarioJsonSchema())
const {faultFileJsonSchema} = await importBundled('src/emulator/faults/fault-schema.ts')
writeSchema('emulator-faults.schema.json', faultFileJsonSchema())
