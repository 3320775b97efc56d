/** Figures derived from one run's record; NaN where the run lacks what a figure needs. */
import { stripNotes } from '../test-server/index.js'
import type { RunRecord } from './runners/runs.js'
import { countBy, formatRate, formatSeconds, markdownTable, median, percentile } from './stats.js'

/** Spawn to the first request the server logged for the run. */
export const firstRequestMs = (r: RunRecord): number =>
  r.requests.length ? Math.min(...r.requests.map(q => q.time)) - r.spawnAt : NaN
/** Spawn to the trigger request (the POST that queues the build). */
export const triggerMs = (r: RunRecord): number => {
  const trigger = r.requests.find(q => q.kind === 'trigger')
  return trigger ? trigger.time - r.spawnAt : NaN
}
/** Spawn to the start of the run's own build. */
export const timeToStartMs = (r: RunRecord): number =>
  r.build ? r.build.startedAt - r.spawnAt : NaN
/** The build marked finished to the run's exit. */
export const detectionMs = (r: RunRecord): number =>
  r.build?.finishedAt != null ? r.exitAt - r.build.finishedAt : NaN
const buildMs = (r: RunRecord): number =>
  r.build?.finishedAt != null ? r.build.finishedAt - r.build.startedAt : NaN
/** What the run cost beyond the build itself. */
export const overheadMs = (r: RunRecord): number => r.exitAt - r.spawnAt - buildMs(r)
export const wallMs = (r: RunRecord): number => r.exitAt - r.spawnAt
export const requestRate = (r: RunRecord): number => r.requests.length / (wallMs(r) / 1000)
export const kinds = (r: RunRecord): Record<string, number> => countBy(r.requests, q => q.kind)
/** Requests per second of the build's own duration (the measure), over several runs. */
const requestsPerBuildSecond = (runs: readonly RunRecord[]): number =>
  runs.reduce((n, r) => n + r.requests.length, 0) /
  (runs.reduce((ms, r) => ms + buildMs(r), 0) / 1000)

/**
 * How late each line the build wrote while running reached the step log: the
 * arrival of the stdout chunk that carried it minus when Jenkins stored it
 * (ms). Lines after the end are the detection delay's business, not lag.
 */
function consoleLags(r: RunRecord): number[] {
  const build = r.build
  const times = r.stdoutTimes
  if (!build || !times || build.finishedAt === null) return []
  const lags: number[] = []
  let from = 0
  for (const write of build.writes) {
    if (write.at >= build.finishedAt) break
    for (const line of stripNotes(write.text)
      .split('\n')
      .filter(l => l !== '')) {
      const at = r.stdout.indexOf(`${line}\n`, from)
      if (at < 0) continue
      from = at + line.length
      const chunk = times.find(t => t.end > at)
      if (chunk) lags.push(chunk.at - write.at)
    }
  }
  return lags
}

/** What following builds cost and bought, over several runs of one side. */
export interface FollowFigures {
  runs: number
  /** Build end (`building: false`) to step exit, ms. */
  delayMedian: number
  delayP95: number
  requestsMedian: number
  /** Requests per second of build time, over all runs. */
  rate: number
  /** Median delay (s) × rate (/s): what periodic polling cannot bring below 0.5 without a prediction. */
  product: number
  /** Console lag over every line of every run, ms (NaN for the baseline, which shows no console). */
  lagMax: number
  lagP95: number
  /** Requests by kind, per run on average. */
  kinds: Record<string, number>
}

export function followFigures(runs: readonly RunRecord[]): FollowFigures {
  const delays = runs.map(detectionMs)
  const lags = runs.flatMap(consoleLags)
  const rate = requestsPerBuildSecond(runs)
  const delayMedian = median(delays)
  const total = countBy(
    runs.flatMap(r => r.requests),
    q => q.kind
  )
  return {
    runs: runs.length,
    delayMedian,
    delayP95: percentile(delays, 95),
    requestsMedian: median(runs.map(r => r.requests.length)),
    rate,
    product: (delayMedian / 1000) * rate,
    lagMax: lags.length ? Math.max(...lags) : NaN,
    lagP95: lags.length ? percentile(lags, 95) : NaN,
    kinds: Object.fromEntries(
      Object.entries(total).map(([kind, n]) => [kind, Math.round((n / runs.length) * 10) / 10])
    )
  }
}

/** A details table of FollowFigures, one row per side. */
export function followTable(sides: ReadonlyArray<[string, FollowFigures]>): string {
  return markdownTable(
    [
      'side',
      'runs',
      'delay median',
      'delay p95',
      'requests per run (median)',
      'by kind (mean per run)',
      'req/s of build time',
      'delay × rate',
      'console lag p95 / max'
    ],
    sides.map(([label, f]) => [
      label,
      `${f.runs}`,
      formatSeconds(f.delayMedian),
      formatSeconds(f.delayP95),
      `${f.requestsMedian}`,
      Object.entries(f.kinds)
        .map(([k, n]) => `${k} ${n}`)
        .join(', '),
      formatRate(f.rate),
      Number.isFinite(f.product) ? f.product.toFixed(2) : 'n/a',
      Number.isFinite(f.lagMax)
        ? `${formatSeconds(f.lagP95)} / ${formatSeconds(f.lagMax)}`
        : '— (no console)'
    ])
  )
}
