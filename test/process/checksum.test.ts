import {randomBytes} from 'node:crypto'

import {describe, expect, it} from 'vitest'

import {checksum} from '../../src/process/checksum.js'

/** The checksum as its comment defines it, computed with BigInt: the WebAssembly module must agree. */
function reference(data: Uint8Array): string {
  const padded = Buffer.alloc(Math.ceil(data.length / 8) * 8)
  padded.set(data)
  let sum = 0n
  let sumOfSums = 0n
  for (let at = 0; at < padded.length; at += 8) {
    sum = BigInt.asUintN(64, sum + padded.readBigUInt64LE(at))
    sumOfSums = BigInt.asUintN(64, sumOfSums + sum)
  }
  const rotated = BigInt.asUintN(64, (sumOfSums << 32n) | (sumOfSums >> 32n))
  return (sum ^ rotated).toString(16).padStart(16, '0')
}

describe('checksum', () => {
  it('is the sum of words and the sum of sums its comment describes, for any length', () => {
    // Longer than a WebAssembly page (the memory grows), then shorter again (the padding is zeroed anew).
    for (const length of [0, 1, 7, 8, 9, 1000, 65_536, 200_003, 13]) {
      const data = randomBytes(length)
      expect(checksum(data), `length ${length}`).toBe(reference(data))
    }
  })

  it('changes when a byte changes or two words change places', () => {
    const data = randomBytes(100_000)
    const original = checksum(data)
    const flipped = Buffer.from(data)
    flipped[54_321] ^= 0x10
    expect(checksum(flipped)).not.toBe(original)
    const swapped = Buffer.from(data)
    swapped.set(data.subarray(800, 808), 808)
    swapped.set(data.subarray(808, 816), 800)
    expect(checksum(swapped)).not.toBe(original)
    // A view into a larger buffer is read from its own start.
    expect(checksum(Buffer.concat([Buffer.from('x'), data]).subarray(1))).toBe(original)
  })
})
