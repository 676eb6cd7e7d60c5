// The entry of dist/oclif-core.cjs: each of @oclif/core's module paths the bundle imports, required
// only when first asked for (so that `--version`, which asks only for run and handle, evaluates no more
// of oclif than before). The build points every import of @oclif/core at this file, loaded
// through src/process/code-cache.ts.
'use strict'

const paths = {
  '@oclif/core': () => require('@oclif/core'),
  '@oclif/core/args': () => require('@oclif/core/args'),
  '@oclif/core/command': () => require('@oclif/core/command'),
  '@oclif/core/errors': () => require('@oclif/core/errors'),
  '@oclif/core/flags': () => require('@oclif/core/flags'),
  '@oclif/core/handle': () => require('@oclif/core/handle'),
  '@oclif/core/help': () => require('@oclif/core/help'),
  '@oclif/core/run': () => require('@oclif/core/run'),
}
module.exports = (path) => {
  if (!(path in paths)) throw new Error(`${path} is not in dist/oclif-core.cjs: add it to scripts/bundle/oclif-core.cjs`)
  return paths[path]()
}
