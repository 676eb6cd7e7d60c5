/**
 * The numbers behind probabilistic faults: a pure function of the seed and what is drawn for,
 * the same on every machine and Node version, so that a run with a seed can be repeated.
 */
import {createHash} from 'node:crypto'

/** A number in [0, 1) for this (seed, rule, key, attempt): from the first 48 bits of their SHA-256. */
export function seededDraw(seed: number, rule: string, key: string, attempt: number): number {
  const digest = createHash('sha256').update(`${seed >>> 0}\u0000${rule}\u0000${attempt}\u0000${key}`).digest()
  return digest.readUIntBE(0, 6) / 2 ** 48
}

/** A hash of a request body, for its key when nothing else names it. */
export function bodyHash(body: string): string {
  return createHash('sha256').update(body).digest('base64url').slice(0, 22)
}

/** A seed for a run that names none; reported, so that the run can be repeated with --seed. */
export function randomSeed(): number {
  return Math.floor(Math.random() * 2 ** 32)
}
