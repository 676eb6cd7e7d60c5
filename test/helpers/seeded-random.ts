/**
 * A seeded random source (mulberry32), for tests that check a fast implementation against a
 * plain one on many generated inputs: the same seed gives the same inputs on every run, so a
 * failure can be replayed.
 */
export function seededRandom(seed: number) {
  let state = seed | 0
  const next = (): number => {
    state = (state + 0x6d2b79f5) | 0
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state)
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296
  }
  const below = (count: number) => Math.floor(next() * count)
  return {next, below, pick: <T>(items: readonly T[]): T => items[below(items.length)]}
}
