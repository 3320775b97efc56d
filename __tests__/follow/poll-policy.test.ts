import { describe, expect, it } from 'vitest'
import type { BuildSummary } from '../../src/jenkins/model/types.js'
import {
  DEFAULT_POLL_POLICY as P,
  expectationFrom,
  expectationFromEstimate,
  nextPoll,
  nextQueueDelay,
  sawBuild,
  sawConsole,
  watch,
  type Expectation,
  type Watch
} from '../../src/follow/poll-policy.js'

/** A console poll that brought text, with the log open. */
const grew = { grew: true, moreData: true, finished: false }
const quiet = { grew: false, moreData: true, finished: false }

interface Timeline {
  /** When `building` turns false (ms after the start). */
  endAt: number
  /** When the console gets new text (ms after the start), besides Finished:. */
  writes?: number[]
  /** From building: false to `Finished:`, and from there to the log's completion. */
  gap?: { finished: number; closed: number }
  expect?: Expectation
  console?: boolean
  /** The build started this much before the follower's startedAt. */
  startedEarlyMs?: number
  startSlackMs?: number
}

/**
 * Follows a modelled build in virtual time, the way BuildFollower does, and
 * counts what the schedule asks for. The Jenkins side is the end of a build
 * as Jenkins runs it: building false, `Finished:` after gap.finished, the log
 * closed gap.closed later.
 */
function simulate(t: Timeline) {
  const gap = t.gap ?? { finished: 100, closed: 25 }
  const early = t.startedEarlyMs ?? 0
  const finishedAt = t.endAt + gap.finished
  const closedAt = finishedAt + gap.closed
  const writes = t.writes ?? []
  const console = t.console ?? true
  let w: Watch = watch({
    console,
    startedAt: early,
    startSlackMs: t.startSlackMs ?? 0,
    expect: t.expect
  })
  let now = early
  let next = nextPoll(w, now)
  next = { read: next.read, delayMs: 0 }
  let seen = -1
  const polls: Array<{ at: number; read: string }> = []
  for (let i = 0; i < 100_000; i++) {
    now += next.delayMs
    polls.push({ at: now, read: next.read })
    if (next.read === 'give-up') return { polls, doneAt: now, gaveUp: true }
    if (next.read === 'console') {
      if (now >= closedAt) return { polls, doneAt: now, gaveUp: false }
      const written = writes.filter(at => at <= now - early).length + (now >= finishedAt ? 1 : 0)
      w = sawConsole(w, now, {
        grew: written > seen,
        moreData: true,
        finished: now >= finishedAt
      })
      seen = written
    } else {
      const building = now < t.endAt + early
      if (!console && !building) return { polls, doneAt: now, gaveUp: false }
      w = sawBuild(w, now, { building })
    }
    next = nextPoll(w, now)
  }
  throw new Error('the schedule never ended')
}

const every = (ms: number, until: number): number[] =>
  Array.from({ length: Math.floor(until / ms) }, (_, i) => (i + 1) * ms)

describe('nextPoll while the build runs (log: true)', () => {
  it('polls a growing console at most liveMs apart, so the console never lags more', () => {
    const run = simulate({ endAt: 120_000, writes: every(700, 120_000) })
    const gaps = run.polls.slice(1).map((p, i) => p.at - (run.polls[i]?.at ?? 0))
    expect(Math.max(...gaps)).toBeLessThanOrEqual(P.liveMs)
    expect(run.polls.every(p => p.read === 'console')).toBe(true)
  })

  it('spaces the polls of a quiet console out, up to quietMaxMs', () => {
    let w = watch({ console: true, startedAt: 0, expect: { durationMs: 3_600_000, spreadMs: 0 } })
    w = sawConsole(w, 1000, grew)
    expect(nextPoll(w, 1000).delayMs).toBe(P.liveMs)
    w = sawConsole(w, 1000 + P.quietAfterMs + 4000, quiet)
    const later = nextPoll(w, 1000 + P.quietAfterMs + 4000).delayMs
    expect(later).toBeGreaterThan(P.liveMs)
    expect(nextPoll(w, 600_000).delayMs).toBe(P.quietMaxMs)
    // New text: live again.
    w = sawConsole(w, 600_000, grew)
    expect(nextPoll(w, 600_000).delayMs).toBe(P.liveMs)
  })

  it("without history polls a young build every youngMs, then at the console's pace: the stated cost", () => {
    const run = simulate({ endAt: 60_000, writes: every(1000, 60_000) })
    const young = run.polls.filter(p => p.at < P.youngForMs)
    expect(young.length).toBeLessThanOrEqual(P.youngForMs / P.youngMs + 1)
    // youngForMs/youngMs, then one per liveMs, then the end: 20 + 24 polls a minute.
    const bound = P.youngForMs / P.youngMs + (60_000 - P.youngForMs) / P.liveMs + 3
    expect(run.polls.length).toBeLessThanOrEqual(bound)
    // The end is noticed within one poll interval of the log closing.
    expect(run.doneAt - (60_000 + 125)).toBeLessThanOrEqual(P.liveMs)
  })

  it('notices the end of a short first build within youngMs of the log closing', () => {
    for (const endAt of [500, 3000, 7777, 9400]) {
      const run = simulate({ endAt })
      expect(run.doneAt - (endAt + 125)).toBeLessThanOrEqual(P.youngMs)
      expect(run.doneAt).toBeGreaterThanOrEqual(endAt + 125)
    }
  })

  /** The most polls the dense stretch around the expected end adds over a window of half-width h. */
  const densePolls = (h: number): number =>
    (2 / P.nearSlope) * Math.log(1 + (h * P.nearSlope) / P.nearMs) + 2

  it('with steady history, lands a poll just after the expected end for a few polls more', () => {
    const expect60 = { durationMs: 60_000, spreadMs: 0 }
    const run = simulate({ endAt: 60_000, writes: every(1000, 60_000), expect: expect60 })
    // Within two of the densest waits of the log closing.
    expect(run.doneAt - (60_000 + 125)).toBeLessThanOrEqual(2 * P.nearMs)
    const dense = run.polls.filter(p => p.at >= 60_000 + P.gapAimMs - P.spreadFloorMs)
    expect(dense.length).toBeLessThanOrEqual(densePolls(P.spreadFloorMs))
    // The rest is the console's own pace: one poll per liveMs.
    expect(run.polls.length).toBeLessThanOrEqual(
      60_000 / P.liveMs + densePolls(P.spreadFloorMs) + 1
    )
  })

  it('polls densest at the expected end and thinner away from it, within a window as wide as history spreads', () => {
    const half = 3000 + 100
    const center = 60_000 + P.gapAimMs - 100
    for (const endAt of [57_000, 58_500, 60_000, 61_500, 62_900]) {
      const run = simulate({
        endAt,
        writes: every(1000, endAt),
        expect: { durationMs: 60_000, spreadMs: 3000 },
        startSlackMs: 200
      })
      const visible = endAt + 125
      const spacing = P.nearMs + Math.abs(visible - center) * P.nearSlope
      expect(run.doneAt - visible).toBeLessThanOrEqual(spacing + P.nearMs)
      const inWindow = run.polls.filter(p => p.at >= center - half)
      expect(inWindow.length).toBeLessThanOrEqual(densePolls(half))
    }
  })

  it('aims no earlier than half the expected duration before the end, however much history varies', () => {
    const run = simulate({
      endAt: 8000,
      writes: every(500, 8000),
      expect: { durationMs: 8000, spreadMs: 20_000 }
    })
    const windowStart = 8000 + P.gapAimMs - 8000 * P.windowShareMax
    // Far from the window, the console's pace; nearer, waits shrink toward its start.
    const approach = (P.liveMs - P.nearMs) / P.approachSlope
    const far = run.polls.filter(p => p.at < windowStart - approach)
    const gaps = far.slice(1).map((p, i) => p.at - (far[i]?.at ?? 0))
    expect(gaps.every(g => g === P.liveMs)).toBe(true)
    expect(run.polls.some(p => p.at === windowStart)).toBe(true)
  })

  it('shrinks the waits toward the window, so a build that ends before it is not left for liveMs', () => {
    // History says 60 s within 150 ms; this build ends 1.5 s early.
    const run = simulate({
      endAt: 58_500,
      writes: every(1000, 58_500),
      expect: { durationMs: 60_000, spreadMs: 0 }
    })
    const visible = 58_500 + 125
    const lo = 60_000 + P.gapAimMs - P.spreadFloorMs
    expect(run.doneAt - visible).toBeLessThanOrEqual(P.nearMs + (lo - visible) * P.approachSlope)
    expect(run.doneAt - visible).toBeLessThan(P.liveMs / 2)
  })

  it('backs off once the build is overdue', () => {
    const w = watch({ console: true, startedAt: 0, expect: { durationMs: 10_000, spreadMs: 0 } })
    const justLate = nextPoll(sawConsole(w, 10_500, grew), 10_500).delayMs
    const veryLate = nextPoll(sawConsole(w, 30_000, grew), 30_000).delayMs
    expect(justLate).toBeLessThan(veryLate)
    expect(veryLate).toBe(P.liveMs)
  })

  it('reads no build JSON while the console says the build goes on', () => {
    const run = simulate({
      endAt: 30_000,
      writes: every(500, 30_000),
      expect: { durationMs: 29_000, spreadMs: 1000 }
    })
    expect(run.polls.filter(p => p.read === 'build')).toEqual([])
  })
})

describe('nextPoll once the end is seen', () => {
  it('follows a Finished: line up every followUpMs until the log closes', () => {
    // A long gap after Finished: (a Pipeline's clean-up): the poll at 5.25 s sees the line.
    const run = simulate({ endAt: 4600, gap: { finished: 50, closed: 700 } })
    const after = run.polls.filter(p => p.at >= 4650)
    const spacing = after.slice(1).map((p, i) => p.at - (after[i]?.at ?? 0))
    expect(after.length).toBeGreaterThanOrEqual(2)
    expect(Math.max(...spacing)).toBe(P.followUpMs)
    expect(run.doneAt - 5350).toBeLessThanOrEqual(P.followUpMs)
    expect(run.polls.filter(p => p.read === 'build')).toEqual([])
  })

  it('confirms the end with one build read when the log stays open, then backs off, then gives up', () => {
    let w = sawConsole(watch({ console: true, startedAt: 0 }), 5000, {
      grew: true,
      moreData: true,
      finished: true
    })
    expect(nextPoll(w, 5000)).toEqual({ read: 'console', delayMs: P.followUpMs })
    expect(nextPoll(w, 5000 + P.confirmAfterMs)).toEqual({ read: 'build', delayMs: 0 })
    w = sawBuild(w, 6000, { building: false })
    expect(w.endConfirmed).toBe(true)
    const later = nextPoll(w, 9000)
    expect(later.read).toBe('console')
    expect(later.delayMs).toBeGreaterThan(P.followUpMs)
    expect(later.delayMs).toBeLessThanOrEqual(P.liveMs)
    expect(nextPoll(w, 5001 + P.followUpForMs).read).toBe('give-up')
  })

  it('takes a refuted Finished: line (printed by the build) back, and ignores the next ones for a while', () => {
    let w = sawConsole(watch({ console: true, startedAt: 0 }), 20_000, {
      grew: true,
      moreData: true,
      finished: true
    })
    w = sawBuild(w, 21_000, { building: true })
    expect(w.endSeenAt).toBeUndefined()
    expect(nextPoll(w, 21_000).read).toBe('console')
    const again = sawConsole(w, 22_000, { grew: true, moreData: true, finished: true })
    expect(again.endSeenAt).toBeUndefined()
    const later = sawConsole(w, 21_000 + P.hintPauseMs, {
      grew: true,
      moreData: true,
      finished: true
    })
    expect(later.endSeenAt).toBe(21_000 + P.hintPauseMs)
  })

  it('keeps reading the build while a complete log has a build still marked building', () => {
    const w = { ...watch({ console: true, startedAt: 0 }), logComplete: true }
    expect(nextPoll(w, 1000)).toEqual({ read: 'build', delayMs: P.nearMs })
  })
})

describe('nextPoll with log: false', () => {
  it('reads the build JSON, backing off with age up to slowMs', () => {
    const w = watch({ console: false, startedAt: 0 })
    expect(nextPoll(w, 500)).toEqual({ read: 'build', delayMs: P.youngMs })
    expect(nextPoll(w, 600_000).delayMs).toBe(P.slowMs)
  })

  it('aims at the expected end itself: the build JSON shows it at once', () => {
    const run = simulate({
      endAt: 60_000,
      console: false,
      expect: { durationMs: 60_000, spreadMs: 0 }
    })
    expect(run.doneAt - 60_000).toBeLessThanOrEqual(P.nearMs)
    expect(run.polls.length).toBeLessThanOrEqual(30)
  })

  it('takes the start and the estimate from the build JSON', () => {
    let w = watch({ console: false, startedAt: 5000, startSlackMs: 400 })
    w = sawBuild(w, 6000, { building: true, timestamp: 4800, estimatedDuration: 20_000 })
    expect(w.startedAt).toBe(4800)
    expect(w.startSlackMs).toBe(0)
    expect(w.expect).toEqual({ durationMs: 20_000, spreadMs: 1000 })
  })
})

describe('expectationFrom (Job.getEstimatedDurationCandidates)', () => {
  const b = (
    number: number,
    result: BuildSummary['result'],
    duration: number,
    building = false
  ) => ({
    number,
    result,
    duration,
    building
  })

  it("is Jenkins' estimate with the candidates' spread", () => {
    const history = [
      b(9, null, 0, true),
      b(8, 'ABORTED', 1000),
      b(7, 'SUCCESS', 60_000),
      b(6, 'FAILURE', 5000),
      b(5, 'UNSTABLE', 62_000),
      b(4, 'SUCCESS', 58_000),
      b(3, 'SUCCESS', 10_000)
    ]
    // Candidates #7, #5, #4 (60, 62, 58 s): the mean, and twice their largest deviation.
    expect(expectationFrom(history)).toEqual({ durationMs: 60_000, spreadMs: 4000 })
  })

  it('fills in with failed builds, and assumes a spread for a single one', () => {
    expect(expectationFrom([b(2, 'FAILURE', 4000), b(1, 'FAILURE', 6000)])).toEqual({
      durationMs: 5000,
      spreadMs: 2000
    })
    expect(expectationFrom([b(1, 'SUCCESS', 30_000)])).toEqual({
      durationMs: 30_000,
      spreadMs: 1500
    })
  })

  it('is undefined for a job without a finished build', () => {
    expect(expectationFrom([])).toBeUndefined()
    expect(expectationFrom([b(1, null, 0, true), b(0, 'ABORTED', 100)])).toBeUndefined()
    expect(expectationFromEstimate(-1)).toBeUndefined()
  })
})

describe('nextQueueDelay', () => {
  it('grows from 100 ms to queueMaxMs', () => {
    expect(nextQueueDelay(0)).toBe(100)
    expect(nextQueueDelay(1)).toBe(150)
    expect(nextQueueDelay(50)).toBe(P.queueMaxMs)
  })
})
