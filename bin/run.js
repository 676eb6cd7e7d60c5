#!/usr/bin/env node
// CommonJS (bin/package.json), as dist/ is: Node 20 starts no ES module loader for a run.
'use strict'
const {existsSync} = require('node:fs')
const module_ = require('node:module')
const {join} = require('node:path')

const root = join(__dirname, '..')
// A clone runs from dist/, which only `npm run build` writes (the package builds on prepack):
// say so plainly instead of Node's stack for a missing module.
const main = join(root, 'dist', 'main.js')
if (!existsSync(main)) {
  process.stderr.write('paytx is not built: run npm run build\n')
  process.exit(1)
}
// Node 22.1 and later keep V8's compiled code of these CommonJS files on disk between runs (a
// cache in the temp folder; Node ignores it when it cannot write there). Older Node has no such call.
module_.enableCompileCache?.()
require(main).run(root)
