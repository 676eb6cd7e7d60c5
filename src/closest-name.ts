/**
 * The known name closest to a mistyped one, if any is close enough to be a likely typo: at most
 * a third of its letters (at least two) wrong, and not every one. Letters are compared without
 * case, and two swapped neighbours (`--jsno`) count as one mistake.
 */
export function closestName(typed: string, known: readonly string[]): string | undefined {
  let best: string | undefined
  let bestDistance = Math.min(Math.max(2, Math.floor(typed.length / 3)), typed.length - 1) + 1
  for (const name of known) {
    const distance = editDistance(typed.toLowerCase(), name.toLowerCase())
    if (distance < bestDistance) {
      best = name
      bestDistance = distance
    }
  }
  return best
}

/** Edits (insert, delete, replace, swap two neighbours) that turn a into b: optimal string alignment. */
function editDistance(a: string, b: string): number {
  let beforePrevious: number[] = []
  let previous = Array.from({length: b.length + 1}, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) current[j] = Math.min(current[j], beforePrevious[j - 2] + 1)
    }
    beforePrevious = previous
    previous = current
  }
  return previous[b.length]
}
