#!/usr/bin/env node
// `npm run schema`: writes schemas/smoke-scenario.schema.json from the scenario schema in
// src/smoke/scenario-schema.ts (the one the loader checks against), bundled in memory.
import {writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {build} from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const {outputFiles} = await build({
  absWorkingDir: root,
  entryPoints: ['src/smoke/scenario-schema.ts'],
  bundle: true,
  format: 'esm',
  platform: 'node',
  write: false,
})
const {scenarioJsonSchema} = await import(`data:text/javascript;base64,${Buffer.from(outputFiles[0].text).toString('base64')}`)
writeFileSync(join(root, 'schemas', 'smoke-scenario.schema.json'), `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`)
