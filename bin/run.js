#!/usr/bin/env node
import {existsSync} from 'node:fs'
import module from 'node:module'

// A clone runs from dist/, which only `npm run build` writes (the package builds on prepack):
// say so plainly instead of Node's stack for a missing module.
const main = new URL('../dist/main.js', import.meta.url)
if (!existsSync(main)) {
  process.stderr.write('paytx is not built: run npm run build\n')
  process.exit(1)
}
// Node 22.1 and later keep V8's compiled code of the bundle on disk between runs (a cache in the
// temp folder; Node ignores it when it cannot write there). Older Node has no such call.
module.enableCompileCache?.()
await import(main.href)
