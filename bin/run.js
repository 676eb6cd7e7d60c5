#!/usr/bin/env node
import module from 'node:module'

// Node 22.1 and later keep V8's compiled code of the bundle on disk between runs (a cache in the
// temp folder; Node ignores it when it cannot write there). Older Node has no such call.
module.enableCompileCache?.()
await import('../dist/main.js')
