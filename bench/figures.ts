/** Figures derived from one run's record; NaN where the run lacks what a figure needs. */
import type { RunRecord } from './runners/runs.js'
import { countBy } from './stats.js'

/** Spawn to the first request the server logged for the run. */
export const firstRequestMs = (r: RunRecord): number =>
  r.requests.length ? Math.min(...r.requests.map(q => q.time)) - r.spawnAt : NaN
/** Spawn to the start of the run's own build. */
export const timeToStartMs = (r: RunRecord): number =>
  r.build ? r.build.startedAt - r.spawnAt : NaN
/** The build marked finished to the run's exit. */
export const detectionMs = (r: RunRecord): number =>
  r.build?.finishedAt != null ? r.exitAt - r.build.finishedAt : NaN
export const buildMs = (r: RunRecord): number =>
  r.build?.finishedAt != null ? r.build.finishedAt - r.build.startedAt : NaN
/** What the run cost beyond the build itself. */
export const overheadMs = (r: RunRecord): number => r.exitAt - r.spawnAt - buildMs(r)
export const wallMs = (r: RunRecord): number => r.exitAt - r.spawnAt
export const requestRate = (r: RunRecord): number => r.requests.length / (wallMs(r) / 1000)
export const kinds = (r: RunRecord): Record<string, number> => countBy(r.requests, q => q.kind)
