/** The known name closest to a mistyped one, if any is close enough to be a likely typo. */
export function closestName(typed: string, known: string[]): string | undefined {
  let best: string | undefined
  let bestDistance = Math.max(2, Math.floor(typed.length / 3)) + 1
  for (const name of known) {
    const distance = editDistance(typed, name)
    if (distance < bestDistance) {
      best = name
      bestDistance = distance
    }
  }
  return best
}

/** Levenshtein distance, one row at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({length: b.length + 1}, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]
}
