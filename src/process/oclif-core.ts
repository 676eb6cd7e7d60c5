/**
 * oclif, as the bundle imports it: every import of @oclif/core or one of its module paths is
 * pointed here by the build (scripts/build.js, oclifCorePlugin), and gets that module from
 * dist/oclif-core.cjs, one CommonJS file loaded with V8's code cache (see code-cache.ts).
 */
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {requireWithCodeCache} from './code-cache.js'

type OclifCoreModules = (path: string) => Record<string, unknown>
let oclifCore: OclifCoreModules | undefined

export function oclifCoreModule(path: string): Record<string, unknown> {
  // The bundle's chunks and dist/oclif-core.cjs all sit in dist/.
  oclifCore ??= requireWithCodeCache(join(dirname(fileURLToPath(import.meta.url)), 'oclif-core.cjs')) as OclifCoreModules
  return oclifCore(path)
}
