/**
 * `${env.NAME}` in a scenario file's strings: the value of the environment variable NAME, read
 * once as the file is checked (a shop's service on a port CI picked, a token), so that a file
 * needs no `sed` before it runs. A variable that is not set is a problem of the file, named with
 * its line; so is one whose value holds `${`, which the file would read as a reference.
 */
import type {ValuePath} from '../input/scenario-source.js'

const ENV_REFERENCE = /\$\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}/g

type Problem = (path: ValuePath, name: string, problem: string) => void

/** The value with every `${env.NAME}` in its strings replaced; `refused` hears of each that cannot be, by the path of its string. */
export function withEnvironmentValues(value: unknown, env: NodeJS.ProcessEnv, refused: Problem, path: ValuePath = []): unknown {
  if (typeof value === 'string') {
    return value.replaceAll(ENV_REFERENCE, (written, name: string, at: number) => {
      // `$${env.X}` is the literal text, as `$${` is everywhere in a scenario file.
      if (at > 0 && value[at - 1] === '$') return written
      const set = env[name]
      if (set === undefined) refused(path, name, `the environment variable ${name} is not set (set it, or write $\${ for a literal "\${")`)
      else if (set.includes('${')) refused(path, name, `the value of ${name} holds "\${", which the file would read as a reference`)
      else return set
      return written
    })
  }
  if (Array.isArray(value)) return value.map((item, index) => withEnvironmentValues(item, env, refused, [...path, index]))
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withEnvironmentValues(item, env, refused, [...path, key])]))
  }
  return value
}
