import type { BuildSummary } from '../jenkins/model/types.js'
import type { ConsolePoll } from './log-stream.js'

/**
 * When to look at a running build again, and what to read: a pure function of
 * what the follower has observed (no I/O, no clock of its own), so that one
 * policy can follow one build or, under a shared budget, many.
 *
 * What each request buys, and how its values were chosen: docs/performance.md,
 * "One build: when the follower looks again".
 */

export const DEFAULT_POLL_POLICY = {
  /** Longest time from one console poll's start to the next while the console grows: what the console shown lags, but for the request (ms). */
  // Start to start, leaving 100 ms of the 2 s lag target for the request.
  liveMs: 1900,
  /** Silence after which console polls space out past liveMs (ms). */
  quietAfterMs: 10_000,
  /** Longest wait between console polls of a quiet console (ms). */
  quietMaxMs: 5000,
  /** Wait between polls of a young build that has no history (ms). */
  youngMs: 750,
  /** How long a build without history counts as young (ms). */
  youngForMs: 15_000,
  /** Longest wait between build polls with `log: false`, far from the expected end (ms). */
  slowMs: 5000,
  /** Shortest wait, at the expected end (ms). */
  nearMs: 150,
  /** How fast waits grow with the distance from the expected end (ms per ms). */
  nearSlope: 1 / 6,
  /** How fast waits shrink toward the window's start (ms per ms). */
  approachSlope: 1 / 2,
  /** Narrowest half-width of that window (ms). */
  spreadFloorMs: 150,
  /** The widest window, as a share of the expected duration: a job whose builds vary more cannot be aimed at. */
  windowShareMax: 0.5,
  /** How long after `building: false` the console is expected to show the end (ms). */
  gapAimMs: 100,
  /** Wait between follow-up polls once the end is seen (ms). */
  followUpMs: 100,
  /** Follow-ups after which one build read confirms the end (ms). */
  confirmAfterMs: 1000,
  /** How long to wait for Jenkins to close the log of a finished build (ms). */
  followUpForMs: 30_000,
  /** How long a refuted `Finished:` line keeps later ones from counting (ms). */
  hintPauseMs: 10_000,
  /** Longest wait between queue polls (ms). */
  queueMaxMs: 2000
}

/** The watches' schedule: DEFAULT_POLL_POLICY's fields (tests and the rounds vary them). */
export type PollPolicy = typeof DEFAULT_POLL_POLICY

/** What history says about this build's length. */
export interface Expectation {
  /** Expected duration (ms), as Jenkins' estimatedDuration. */
  durationMs: number
  /** How far the duration may plausibly be from it (ms): the half-width of the window polls aim at. */
  spreadMs: number
}

/** What the follower has observed of one build. Build it with `watch`, update it with `sawConsole` and `sawBuild`. */
export interface Watch {
  /** Epoch ms the build started, as best known. */
  startedAt: number
  /** How much earlier the build may have started (ms): the queue is polled, not watched. */
  startSlackMs: number
  expect?: Expectation
  /** `log: true`: the polls read the console. */
  console: boolean
  /** When a console poll last returned new text. */
  grewAt?: number
  /** When the end was first seen with the log still open (a `Finished:` line). */
  endSeenAt?: number
  /** A build read said `building: false` after that. */
  endConfirmed: boolean
  /** When a build read refuted a `Finished:` line (the build printed it): later ones wait hintPauseMs. */
  hintRefutedAt?: number
  /** The console is complete but the build still said `building` (never on Jenkins; handled anyway). */
  logComplete: boolean
}

/** What to read next: the console, the build JSON, or nothing more (the log stayed open too long). */
export interface NextPoll {
  read: 'console' | 'build' | 'give-up'
  delayMs: number
}

/** Relative spread assumed when history gives only a duration (one build, or Jenkins' estimate). */
const ASSUMED_SPREAD = 0.05
/** Three recent builds understate how far the next one may fall from their mean. */
const MEASURED_SPREAD_FACTOR = 2

export function watch(init: Pick<Watch, 'startedAt' | 'console'> & Partial<Watch>): Watch {
  return { startSlackMs: 0, endConfirmed: false, logComplete: false, ...init }
}

/** The next poll of a build, from what was observed up to `now`. */
export function nextPoll(w: Watch, now: number, p: PollPolicy = DEFAULT_POLL_POLICY): NextPoll {
  if (w.logComplete) return { read: 'build', delayMs: p.nearMs }
  if (w.console && w.endSeenAt !== undefined) {
    const since = now - w.endSeenAt
    if (since > p.followUpForMs) return { read: 'give-up', delayMs: 0 }
    if (!w.endConfirmed && since >= p.confirmAfterMs) return { read: 'build', delayMs: 0 }
    const delayMs =
      since < p.confirmAfterMs ? p.followUpMs : clamp(since / 4, p.followUpMs, p.liveMs)
    return { read: 'console', delayMs }
  }
  return { read: w.console ? 'console' : 'build', delayMs: runningDelay(w, now, p) }
}

function runningDelay(w: Watch, now: number, p: PollPolicy): number {
  const age = Math.max(0, now - w.startedAt)
  let spacing: number
  if (w.console) {
    const quietFor = now - Math.max(w.grewAt ?? w.startedAt, w.startedAt)
    spacing = quietFor > p.quietAfterMs ? clamp(quietFor / 4, p.liveMs, p.quietMaxMs) : p.liveMs
  } else {
    // Nothing is shown: the only value of a poll is noticing the end, so
    // with history the polls wait for the window, without it they back off
    // with the build's age.
    spacing = w.expect ? p.slowMs : clamp(age / 4, p.youngMs, p.slowMs)
  }
  if (!w.expect) return age < p.youngForMs ? Math.min(spacing, p.youngMs) : spacing
  // The console shows the end a little after `building` turns false; the
  // build JSON shows it at once.
  const spread = Math.min(w.expect.spreadMs, w.expect.durationMs * p.windowShareMax)
  const half = Math.max(p.spreadFloorMs, spread) + w.startSlackMs / 2
  const center =
    w.startedAt - w.startSlackMs / 2 + w.expect.durationMs + (w.console ? p.gapAimMs : 0)
  const lo = center - half
  // Before the window, waits shrink toward its start (a build may end
  // earlier than its history says) and one lands on it.
  if (now < lo) {
    return Math.min(
      spacing,
      Math.ceil(lo - now),
      Math.round(p.nearMs + (lo - now) * p.approachSlope)
    )
  }
  // From there polls are densest at the expected end and thin out with the
  // distance from it, on both sides: most ends fall near it, and an overdue
  // build backs off the same way.
  return Math.min(spacing, Math.round(p.nearMs + Math.abs(now - center) * p.nearSlope))
}

/** A console poll's news: text arrived, the log is (not) complete, the last line is `Finished:`. */
export function sawConsole(
  w: Watch,
  now: number,
  poll: ConsolePoll,
  p: PollPolicy = DEFAULT_POLL_POLICY
): Watch {
  const next = { ...w }
  if (poll.grew) next.grewAt = now
  const paused = w.hintRefutedAt !== undefined && now - w.hintRefutedAt < p.hintPauseMs
  if (poll.moreData && poll.finished && w.endSeenAt === undefined && !paused) next.endSeenAt = now
  return next
}

/** A build read's news: its start and Jenkins' estimate, and whether it is still building. */
export function sawBuild(
  w: Watch,
  now: number,
  build: { building: boolean; timestamp?: number; estimatedDuration?: number }
): Watch {
  const next = { ...w }
  if (typeof build.timestamp === 'number' && build.timestamp > 0) {
    next.startedAt = build.timestamp
    next.startSlackMs = 0
  }
  next.expect ??= expectationFromEstimate(build.estimatedDuration)
  if (w.endSeenAt !== undefined && !w.endConfirmed) {
    if (build.building) {
      // The `Finished:` line was the build's own output.
      next.endSeenAt = undefined
      next.hintRefutedAt = now
    } else next.endConfirmed = true
  }
  return next
}

/** Jenkins' estimatedDuration (-1: none) as an Expectation; the spread is unknown, so assumed. */
export function expectationFromEstimate(estimatedMs: number | undefined): Expectation | undefined {
  if (estimatedMs === undefined || !(estimatedMs > 0)) return undefined
  return { durationMs: estimatedMs, spreadMs: Math.round(estimatedMs * ASSUMED_SPREAD) }
}

/**
 * What the job's recent builds (newest first) say about the next one. The
 * duration is Jenkins' own estimate (Job.getEstimatedDuration: the mean of the
 * last successful build and up to two more successful or unstable ones among
 * the six newest, failed ones filling in); the spread is twice as far as
 * those candidates are from their mean, or 5 % of it for a single one.
 * undefined without any candidate.
 */
export function expectationFrom(history: readonly BuildSummary[]): Expectation | undefined {
  const ok = (b: BuildSummary): boolean => b.result === 'SUCCESS' || b.result === 'UNSTABLE'
  const lastSuccessful = history.find(b => !b.building && b.duration > 0 && ok(b))
  const candidates: BuildSummary[] = lastSuccessful ? [lastSuccessful] : []
  const fallback: BuildSummary[] = []
  for (const b of history.slice(0, 6)) {
    if (candidates.length >= 3) break
    if (b.building || b.result === null || b === lastSuccessful || !(b.duration > 0)) continue
    if (ok(b)) candidates.push(b)
    else if (b.result === 'FAILURE') fallback.push(b)
  }
  candidates.push(...fallback.slice(0, Math.max(0, 3 - candidates.length)))
  if (candidates.length === 0) return undefined
  const mean = candidates.reduce((sum, b) => sum + b.duration, 0) / candidates.length
  const spread =
    candidates.length === 1
      ? mean * ASSUMED_SPREAD
      : MEASURED_SPREAD_FACTOR * Math.max(...candidates.map(b => Math.abs(b.duration - mean)))
  return { durationMs: Math.round(mean), spreadMs: Math.round(spread) }
}

/** Delay between queue polls: fast at first (the build usually starts at once), then slower. */
export function nextQueueDelay(attempt: number, policy: PollPolicy = DEFAULT_POLL_POLICY): number {
  return clamp(100 * 1.5 ** attempt, 100, policy.queueMaxMs)
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Math.round(value)))
}
