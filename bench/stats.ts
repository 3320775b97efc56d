/** Pure helpers of the benchmark: order statistics, ratios and the markdown table. */

/**
 * The p-th percentile (0..100) by linear interpolation between closest ranks
 * (Hyndman-Fan type 7, what spreadsheets and NumPy use). NaN for no values.
 */
export function percentile(values: readonly number[], p: number): number {
  const sorted = values.filter(v => Number.isFinite(v)).sort((a, b) => a - b)
  if (sorted.length === 0) return NaN
  const rank = (Math.min(100, Math.max(0, p)) / 100) * (sorted.length - 1)
  const low = Math.floor(rank)
  const high = Math.ceil(rank)
  const a = sorted[low] as number
  const b = sorted[high] as number
  return a + (b - a) * (rank - low)
}

export function median(values: readonly number[]): number {
  return percentile(values, 50)
}

/** ours / baseline as `0.12×`; `n/a` when either side is missing or the baseline is 0. */
export function ratio(ours: number, baseline: number): string {
  if (!Number.isFinite(ours) || !Number.isFinite(baseline) || baseline === 0) return 'n/a'
  const r = ours / baseline
  const digits = r >= 10 ? 0 : r >= 1 ? 1 : r >= 0.1 ? 2 : 3
  return `${r.toFixed(digits)}×`
}

/** Milliseconds for a reader: `850 ms` below 10 s, else `12.3 s`; `n/a` for NaN. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return 'n/a'
  if (Math.abs(ms) < 10_000) return `${Math.round(ms)} ms`
  return `${(ms / 1000).toFixed(1)} s`
}

export function formatMb(bytes: number): string {
  if (!Number.isFinite(bytes)) return 'n/a'
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}

/** A GitHub markdown table with padded columns; `|` in cells is escaped. */
export function markdownTable(headers: readonly string[], rows: readonly string[][]): string {
  const escape = (cell: string): string => cell.replace(/\|/g, '\\|').replace(/\n/g, ' ')
  const all = [headers, ...rows].map(row => headers.map((_, i) => escape(row[i] ?? '')))
  const widths = headers.map((_, i) => Math.max(3, ...all.map(row => (row[i] ?? '').length)))
  const line = (row: string[]): string =>
    `| ${row.map((cell, i) => cell.padEnd(widths[i] ?? 3)).join(' | ')} |`
  const [head, ...body] = all
  return [
    line(head ?? []),
    `| ${widths.map(w => '-'.repeat(w)).join(' | ')} |`,
    ...body.map(line)
  ].join('\n')
}

/** Counts of each key, sorted by key, for requests by kind. */
export function countBy<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)))
}

export function sum(values: readonly number[]): number {
  return values.reduce((s, v) => s + v, 0)
}

/** Seconds with two decimals, `1.23 s`, for timings compared at a glance; `n/a` for NaN. */
export function formatSeconds(ms: number): string {
  return Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : 'n/a'
}

/** A rate per second with two decimals, `0.73/s`; `n/a` for NaN. */
export function formatRate(perSecond: number): string {
  return Number.isFinite(perSecond) ? `${perSecond.toFixed(2)}/s` : 'n/a'
}

/** The smallest and largest value in seconds, `0.10 s – 0.12 s`, for "range over runs". */
export function formatRange(ms: readonly number[]): string {
  return `${formatSeconds(Math.min(...ms))} – ${formatSeconds(Math.max(...ms))}`
}
