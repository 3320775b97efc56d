/**
 * The crowd of the jobs scenario (many single-job runs at once against one
 * server), its pure part: how far apart the runs start, the figures made of
 * the runs once they ended, and the text that shows them. A run of the crowd
 * that fails is a figure, not the end of the bench: the other runs' figures
 * stand, and the report says how many failed and why the first did.
 */
import { printedAt, failureReason, splitRuns } from '../runners/records.js'
import type { RunRecord } from '../runners/runs.js'
import { formatRate, formatSeconds as S, markdownTable, median, percentile } from '../stats.js'

/** Crowds up to this size start 100 ms apart on builds of the base length, as every crowd did before larger ones were spread. */
const SMALL_CROWD = 50
const SMALL_SPACING_MS = 100
/**
 * Beyond SMALL_CROWD, two start-ups a second. A start-up of the bundle costs
 * about 0.25 s of CPU, and each run following its build a few ms a second:
 * 200 runs started 100 ms apart asked for more than this 2-core machine has,
 * the run queue grew past 200, and the server, which shares the bench's one
 * process, answered so late that runs failed at their first contact with it.
 */
const LARGE_SPACING_MS = 500
/** The builds last at least this many times the start-up window, so that every run follows its build well before the first ends. */
const BUILD_PER_WINDOW = 2
/**
 * The niceness of the crowd's runs: the server shares the bench's process,
 * and on a crowded machine the scheduler would give it one share among
 * hundreds; Jenkins has a machine of its own, so it goes first.
 */
export const CROWD_NICE = 19

/** How a crowd of `runs` starts: how far apart, and how long its builds last (at least `baseBuildMs`). */
export function crowdPlan(
  runs: number,
  baseBuildMs: number
): { spacingMs: number; buildMs: number } {
  if (runs <= SMALL_CROWD) return { spacingMs: SMALL_SPACING_MS, buildMs: baseBuildMs }
  const windowMs = runs * LARGE_SPACING_MS
  return {
    spacingMs: LARGE_SPACING_MS,
    buildMs: Math.max(baseBuildMs, Math.ceil((BUILD_PER_WINDOW * windowMs) / 10_000) * 10_000)
  }
}

/** The plan as the settings text says it, for the crowds run. */
export function planText(
  crowds: ReadonlyArray<Pick<Crowd, 'runs' | 'spacingMs' | 'buildMs'>>
): string {
  return crowds
    .map(c => `${c.runs} runs started ${c.spacingMs} ms apart on ${S(c.buildMs)} builds`)
    .join(', ')
}

export interface Crowd {
  runs: number
  /** How far apart the runs started. */
  spacingMs: number
  /** How long each build lasted. */
  buildMs: number
  /** Runs that did not end as they should (exit 0, their build ended): not in the figures below. */
  failed: number
  /** The first failed run to end: why, in one line. */
  firstFailure?: string
  /** From the first spawn to the last exit of the runs that succeeded. */
  spanMs: number
  /** Every request the crowd's user made, failed runs' included (one user: they cannot be told apart). */
  requests: number
  /** Requests per second while every run that succeeded was following its build (all started, none ended). */
  steadyRate: number
  /** Per run that succeeded. */
  perRunRate: number
  /** Requests per second over the span. */
  overallRate: number
  delayMedian: number
  delayP95: number
  /** Step wall time minus build duration, median. */
  overheadMedian: number
  /** From a run's spawn to its trigger reaching the server: a start-up the machine delays shows here. */
  startupMedian: number
  startupMax: number
  /** The machine's 1-minute load average when the first build ended: a crowd that measures the machine shows here. */
  load: number
}

const builtMs = (r: RunRecord): number => (r.build?.finishedAt ?? NaN) - (r.build?.startedAt ?? NaN)
const minOf = (values: number[]): number => (values.length ? Math.min(...values) : NaN)
const maxOf = (values: number[]): number => (values.length ? Math.max(...values) : NaN)

/** The crowd's figures, from the runs that succeeded; `requests` are the server's log of the crowd's user. */
export function crowdFigures(input: {
  runs: readonly RunRecord[]
  requests: ReadonlyArray<{ time: number }>
  spacingMs: number
  buildMs: number
  load: number
}): Crowd {
  const { succeeded: ok, failed } = splitRuns(input.runs)
  const first = [...failed].sort((a, b) => a.exitAt - b.exitAt)[0]
  const start = minOf(ok.map(r => r.spawnAt))
  const end = maxOf(ok.map(r => r.exitAt))
  // Steady state: every run started its build, none ended yet.
  const from = maxOf(ok.map(r => r.build?.startedAt ?? NaN))
  const to = minOf(ok.map(r => r.build?.finishedAt ?? NaN))
  const steady = input.requests.filter(q => q.time >= from && q.time <= to).length
  const steadyRate = to > from ? steady / ((to - from) / 1000) : NaN
  const spanned = input.requests.filter(q => q.time >= start && q.time <= end).length
  const detections = ok.map(
    r => printedAt(r, `#${r.build?.number} finished:`) - (r.build?.finishedAt ?? NaN)
  )
  const startups = ok.map(r => (r.build?.queuedAt ?? NaN) - r.spawnAt)
  return {
    runs: input.runs.length,
    spacingMs: input.spacingMs,
    buildMs: input.buildMs,
    failed: failed.length,
    ...(first ? { firstFailure: failureReason(first) } : {}),
    spanMs: end - start,
    requests: input.requests.length,
    steadyRate,
    perRunRate: steadyRate / ok.length,
    overallRate: end > start ? spanned / ((end - start) / 1000) : NaN,
    delayMedian: median(detections),
    delayP95: percentile(detections, 95),
    overheadMedian: median(ok.map(r => r.exitAt - r.spawnAt - builtMs(r))),
    startupMedian: median(startups),
    startupMax: maxOf(startups),
    load: input.load
  }
}

/** `200 runs: none failed`, or `200 runs: 3 failed (first: exit 1: …)`. */
export function failuresText(c: Crowd): string {
  return c.failed === 0
    ? `${c.runs} runs: none failed`
    : `${c.runs} runs: ${c.failed} failed (first: ${c.firstFailure ?? 'no reason kept'})`
}

/** The crowd's figure in the results table, with its failures when it had any. */
export function steadyRateText(c: Crowd): string {
  const rate = formatRate(c.steadyRate)
  return c.failed === 0 ? rate : `${rate} (${c.failed} of ${c.runs} runs failed)`
}

/** The crowd table of the report's details. */
export function crowdTable(crowds: readonly Crowd[]): string {
  return markdownTable(
    [
      'runs at once',
      'failed',
      'start-ups apart',
      'build',
      'spawn to trigger median / max',
      'requests',
      'req/s while all follow',
      'req/s over the span',
      'per run',
      'delay median / p95',
      'overhead median',
      'load average (1 min)'
    ],
    crowds.map(c => [
      `${c.runs}`,
      c.failed === 0 ? '0' : `${c.failed} (first: ${c.firstFailure ?? 'no reason kept'})`,
      `${c.spacingMs} ms`,
      S(c.buildMs),
      `${S(c.startupMedian)} / ${S(c.startupMax)}`,
      `${c.requests}`,
      formatRate(c.steadyRate),
      formatRate(c.overallRate),
      formatRate(c.perRunRate),
      `${S(c.delayMedian)} / ${S(c.delayP95)}`,
      S(c.overheadMedian),
      c.load.toFixed(2)
    ])
  )
}

/** The notes' sentence on failed runs: which crowds had some, and that their figures leave those runs out. */
export function failuresNote(crowds: readonly Crowd[]): string {
  const text = crowds.map(failuresText).join('; ')
  return crowds.some(c => c.failed > 0)
    ? `${text}. The rates, delays and overhead of a crowd are from its runs that succeeded (its steady window is theirs, its per-run rate divides by them); its request count is every request that reached Jenkins from it, failed runs' included.`
    : `${text}.`
}
