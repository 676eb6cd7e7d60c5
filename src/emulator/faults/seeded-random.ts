/**
 * A small seeded generator (mulberry32): the same seed gives the same numbers in the same order
 * on every machine and Node version, which is what makes probabilistic faults repeatable.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

/** A seed for a run that names none; reported, so that the run can be repeated with --seed. */
export function randomSeed(): number {
  return Math.floor(Math.random() * 2 ** 32)
}
