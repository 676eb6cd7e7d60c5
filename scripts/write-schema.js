#!/usr/bin/env node
// `npm run schema`: writes the JSON Schemas under schemas/ from the zod schemas the loaders check
// against (scenario files: src/smoke/scenario-schema.ts; fault files:
// src/emulator/faults/, through its index.ts), and the service's contract as an OpenAPI document
// (src/api/openapi.ts, for this package's version), and the readings of `emulator verify --save`
// (src/emulator-readings/readings.ts), each bundled in memory.
import {readFileSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {build} from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

// A bundled CommonJS dependency (yaml, reached through the faults room's entry) calls require,
// which an ES module loaded from a data: URL lacks: the banner gives it one.
const requireBanner = `import {createRequire as __createRequire} from 'node:module'; const require = __createRequire(${JSON.stringify(join(root, 'package.json'))});`

async function importBundled(entryPoint) {
  const {outputFiles} = await build({absWorkingDir: root, entryPoints: [entryPoint], bundle: true, format: 'esm', platform: 'node', write: false, banner: {js: requireBanner}})
  return import(`data:text/javascript;base64,${Buffer.from(outputFiles[0].text).toString('base64')}`)
}

const writeSchema = (file, schema) => writeFileSync(join(root, 'schemas', file), `${JSON.stringify(schema, null, 2)}\n`)

const {scenarioJsonSchema} = await importBundled('src/smoke/scenario-schema.ts')
writeSchema('smoke-scenario.schema.json', scenarioJsonSchema())
const {faultFileJsonSchema} = await importBundled('src/emulator/faults/index.ts')
writeSchema('emulator-faults.schema.json', faultFileJsonSchema())
const {openApiDocument} = await importBundled('src/api/openapi.ts')
writeSchema('openapi.json', openApiDocument(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version))
const {readingsJsonSchema} = await importBundled('src/emulator-readings/readings.ts')
writeSchema('emulator-readings.schema.json', readingsJsonSchema())
