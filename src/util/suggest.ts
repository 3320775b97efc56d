/**
 * Levenshtein distance, case-insensitive (Jenkins looks items up case-insensitively).
 * @internal
 */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase()
  const t = b.toLowerCase()
  let previous = Array.from({ length: t.length + 1 }, (_, i) => i)
  for (let i = 1; i <= s.length; i++) {
    const current = [i]
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1
      current[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + cost
      )
    }
    previous = current
  }
  return previous[t.length] ?? 0
}

/**
 * The candidates closest to `name`, best first: those within a third of the
 * name's length, or that contain it / are contained in it.
 */
export function closestNames(name: string, candidates: readonly string[], max = 3): string[] {
  const lower = name.toLowerCase()
  const limit = Math.max(2, Math.ceil(name.length / 3))
  return candidates
    .map(candidate => {
      const c = candidate.toLowerCase()
      const lastSegment = c.split('/').pop() ?? c
      const distance = Math.min(editDistance(lower, c), editDistance(lower, lastSegment))
      const related = c.includes(lower) || lower.includes(lastSegment)
      return { candidate, distance: related ? Math.min(distance, limit) : distance }
    })
    .filter(x => x.distance <= limit && x.candidate !== name)
    .sort((x, y) => x.distance - y.distance || x.candidate.localeCompare(y.candidate))
    .slice(0, max)
    .map(x => x.candidate)
}
