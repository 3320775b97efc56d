import { describe, expect, it } from 'vitest'
import type { BuildSummary } from '../../src/jenkins/model/types.js'
import {
  expectationFrom,
  expectationFromEstimate,
  nextPoll,
  nextQueueDelay,
  sawBuild,
  sawConsole,
  watch,
  type Watch
} from '../../src/follow/poll-policy.js'

/**
 * The policy's exact answers at its boundaries, with the defaults
 * (liveMs 1900, youngMs 750 for 15 s, slowMs 5000, nearMs 150, nearSlope 1/6,
 * approachSlope 1/2, followUpMs 100, confirmAfterMs 1000, followUpForMs 30 s),
 * and the history rules where candidates compete. poll-policy.test.ts
 * checks the schedule's shape by simulation; these pin each rule, values
 * worked out by hand.
 */

const b = (result: BuildSummary['result'], duration: number, building = false): BuildSummary => ({
  number: 0,
  result,
  duration,
  building
})

describe('expectationFrom: which recent builds count', () => {
  it('takes at most three candidates, however many successful builds there are', () => {
    // #1, #2, #3: mean 20 s, farthest 10 s from it.
    expect(
      expectationFrom([
        b('SUCCESS', 10_000),
        b('SUCCESS', 20_000),
        b('SUCCESS', 30_000),
        b('SUCCESS', 40_000),
        b('UNSTABLE', 50_000)
      ])
    ).toEqual({ durationMs: 20_000, spreadMs: 20_000 })
  })

  it('looks for more candidates among the six newest builds only', () => {
    // The seventh is successful but out of reach: two failures fill in.
    expect(
      expectationFrom([
        b('SUCCESS', 10_000),
        b('FAILURE', 22_000),
        b('ABORTED', 1000),
        b('FAILURE', 25_000),
        b('NOT_BUILT', 1000),
        b('ABORTED', 1000),
        b('SUCCESS', 100_000)
      ])
    ).toEqual({ durationMs: 19_000, spreadMs: 18_000 })
  })

  it('finds the last successful build beyond the six newest', () => {
    // #7 is the last success; #1 and #2 fill in as failures: (20 + 20 + 50) / 3.
    expect(
      expectationFrom([
        b('FAILURE', 20_000),
        b('FAILURE', 20_000),
        b('FAILURE', 20_000),
        b('FAILURE', 20_000),
        b('FAILURE', 20_000),
        b('FAILURE', 20_000),
        b('SUCCESS', 50_000)
      ])
    ).toEqual({ durationMs: 30_000, spreadMs: 40_000 })
  })

  it('fills in with the newest failures first, and only up to three candidates', () => {
    // #1 and the two newest failures: (10 + 20 + 42) / 3 = 24 s.
    expect(
      expectationFrom([
        b('SUCCESS', 10_000),
        b('FAILURE', 20_000),
        b('FAILURE', 42_000),
        b('FAILURE', 60_000)
      ])
    ).toEqual({ durationMs: 24_000, spreadMs: 36_000 })
  })

  it('never counts the last successful build twice', () => {
    expect(expectationFrom([b('SUCCESS', 10_000), b('SUCCESS', 16_000)])).toEqual({
      durationMs: 13_000,
      spreadMs: 6000
    })
  })

  it('skips builds without a usable duration or still building, whatever their result says', () => {
    expect(
      expectationFrom([
        b('SUCCESS', 5000, true),
        b('SUCCESS', 0),
        b('SUCCESS', -1),
        b('SUCCESS', 30_000),
        b('FAILURE', 0),
        b(null, 9000)
      ])
    ).toEqual({ durationMs: 30_000, spreadMs: 1500 })
  })

  it('is undefined when only aborted or not-built builds ended', () => {
    expect(expectationFrom([b('ABORTED', 1000), b('NOT_BUILT', 2000)])).toBeUndefined()
  })
})

describe("expectationFromEstimate: Jenkins' estimatedDuration", () => {
  it.each<[number | undefined, { durationMs: number; spreadMs: number } | undefined]>([
    [20_000, { durationMs: 20_000, spreadMs: 1000 }],
    [30, { durationMs: 30, spreadMs: 2 }],
    [1, { durationMs: 1, spreadMs: 0 }],
    [0, undefined],
    [-1, undefined],
    [Number.NaN, undefined],
    [undefined, undefined]
  ])('%s ms gives %o', (estimate, expected) => {
    expect(expectationFromEstimate(estimate)).toEqual(expected)
  })
})

describe('watch', () => {
  it('starts with no slack, nothing seen, nothing confirmed', () => {
    expect(watch({ startedAt: 7, console: true })).toEqual({
      startedAt: 7,
      console: true,
      startSlackMs: 0,
      endConfirmed: false,
      logComplete: false
    })
    expect(watch({ startedAt: 7, console: false, startSlackMs: 300 }).startSlackMs).toBe(300)
  })
})

describe('sawBuild', () => {
  const fromHistory = { durationMs: 60_000, spreadMs: 3000 }

  it("keeps an expectation taken from history over Jenkins' estimate", () => {
    const w = watch({ startedAt: 0, console: false, expect: fromHistory })
    const next = sawBuild(w, 1000, { building: true, estimatedDuration: 20_000 })
    expect(next.expect).toEqual(fromHistory)
  })

  it("takes Jenkins' estimate when history gave none, and ignores one of -1", () => {
    const w = watch({ startedAt: 0, console: false })
    expect(sawBuild(w, 1000, { building: true, estimatedDuration: -1 }).expect).toBeUndefined()
    expect(sawBuild(w, 1000, { building: true, estimatedDuration: 40_000 }).expect).toEqual({
      durationMs: 40_000,
      spreadMs: 2000
    })
  })

  it('takes the start from a positive timestamp only', () => {
    const w = watch({ startedAt: 5000, console: false, startSlackMs: 400 })
    expect(sawBuild(w, 6000, { building: true, timestamp: 0 })).toMatchObject({
      startedAt: 5000,
      startSlackMs: 400
    })
    expect(sawBuild(w, 6000, { building: true })).toMatchObject({
      startedAt: 5000,
      startSlackMs: 400
    })
    expect(sawBuild(w, 6000, { building: true, timestamp: 4800 })).toMatchObject({
      startedAt: 4800,
      startSlackMs: 0
    })
  })

  it('a routine build read, building or not, neither confirms nor refutes an end no console showed', () => {
    for (const console of [true, false]) {
      const w = watch({ startedAt: 0, console })
      for (const building of [true, false]) {
        const next = sawBuild(w, 2000, { building })
        expect(next.endConfirmed).toBe(false)
        expect(next.endSeenAt).toBeUndefined()
        expect(next.hintRefutedAt).toBeUndefined()
      }
    }
    // So a `Finished:` line right after such a read still counts.
    const read = sawBuild(watch({ startedAt: 0, console: true }), 2000, { building: true })
    const seen = sawConsole(read, 2500, { grew: true, moreData: true, finished: true })
    expect(seen.endSeenAt).toBe(2500)
  })

  it('a read after the end was confirmed changes nothing of it', () => {
    let w = sawConsole(watch({ startedAt: 0, console: true }), 5000, {
      grew: true,
      moreData: true,
      finished: true
    })
    w = sawBuild(w, 6000, { building: false })
    const again = sawBuild(w, 7000, { building: true })
    expect(again.endSeenAt).toBe(5000)
    expect(again.endConfirmed).toBe(true)
    expect(again.hintRefutedAt).toBeUndefined()
  })
})

describe('sawConsole', () => {
  const finished = { grew: true, moreData: true, finished: true }

  it('takes a Finished: line as the end only while the log is open, and keeps the first', () => {
    const w = watch({ startedAt: 0, console: true })
    expect(
      sawConsole(w, 3000, { grew: true, moreData: false, finished: true }).endSeenAt
    ).toBeUndefined()
    const first = sawConsole(w, 3000, finished)
    expect(first.endSeenAt).toBe(3000)
    expect(sawConsole(first, 4000, finished).endSeenAt).toBe(3000)
  })

  it('notes new text only when there is some', () => {
    const w = watch({ startedAt: 0, console: true })
    expect(sawConsole(w, 3000, { grew: false, moreData: true, finished: false }).grewAt).toBe(
      undefined
    )
    expect(sawConsole(w, 3000, { grew: true, moreData: true, finished: false }).grewAt).toBe(3000)
  })

  it('ignores Finished: lines for hintPauseMs after one was refuted, and no longer', () => {
    let w = sawConsole(watch({ startedAt: 0, console: true }), 20_000, finished)
    w = sawBuild(w, 21_000, { building: true })
    expect(w.hintRefutedAt).toBe(21_000)
    expect(sawConsole(w, 30_999, finished).endSeenAt).toBeUndefined()
    expect(sawConsole(w, 31_000, finished).endSeenAt).toBe(31_000)
  })
})

/** A console watch with new text at `now`, so only the console's pace and history count. */
function live(w: Watch, now: number): Watch {
  return sawConsole(w, now, { grew: true, moreData: true, finished: false })
}

describe('nextPoll: the exact waits', () => {
  it('log: false with history: approach, window, overdue', () => {
    const w = watch({
      startedAt: 0,
      console: false,
      expect: { durationMs: 60_000, spreadMs: 3000 }
    })
    // Window from 57 s; centre at 60 s.
    const at = (now: number) => nextPoll(w, now)
    expect(at(50_000)).toEqual({ read: 'build', delayMs: 3650 })
    expect(at(56_000).delayMs).toBe(650)
    expect(at(56_800).delayMs).toBe(200)
    expect(at(57_000).delayMs).toBe(650)
    expect(at(59_400).delayMs).toBe(250)
    expect(at(60_000).delayMs).toBe(150)
    expect(at(61_200).delayMs).toBe(350)
    expect(at(90_000).delayMs).toBe(5000)
    expect(at(20_000).delayMs).toBe(5000)
    // Early on, slowMs: no console pace applies without a console.
    expect(at(5000).delayMs).toBe(5000)
  })

  it('log: true with history and a start known within 400 ms', () => {
    const w = watch({
      startedAt: 0,
      console: true,
      startSlackMs: 400,
      expect: { durationMs: 60_000, spreadMs: 3000 }
    })
    // Centre 60 s - 200 ms + gapAimMs = 59.9 s; half-width 3.2 s; window from 56.7 s.
    const at = (now: number) => nextPoll(live(w, now), now)
    expect(at(50_000)).toEqual({ read: 'console', delayMs: 1900 })
    expect(at(55_000).delayMs).toBe(1000)
    expect(at(56_600).delayMs).toBe(100)
    expect(at(56_700).delayMs).toBe(683)
    expect(at(59_900).delayMs).toBe(150)
    expect(at(62_000).delayMs).toBe(500)
  })

  it('a window at most half the expected duration wide, at least spreadFloorMs', () => {
    const wide = watch({
      startedAt: 0,
      console: false,
      expect: { durationMs: 8000, spreadMs: 20_000 }
    })
    expect(nextPoll(wide, 3000).delayMs).toBe(650)
    expect(nextPoll(wide, 4000).delayMs).toBe(817)
    const narrow = watch({
      startedAt: 0,
      console: false,
      expect: { durationMs: 60_000, spreadMs: 0 }
    })
    expect(nextPoll(narrow, 59_000).delayMs).toBe(575)
    expect(nextPoll(narrow, 59_850).delayMs).toBe(175)
  })

  it('log: true without history: young, then the console pace, then quiet', () => {
    const w = watch({ startedAt: 0, console: true })
    expect(nextPoll(live(w, 5000), 5000)).toEqual({ read: 'console', delayMs: 750 })
    expect(nextPoll(live(w, 16_000), 16_000).delayMs).toBe(1900)
    const grewAt20 = live(w, 20_000)
    expect(nextPoll(grewAt20, 30_000).delayMs).toBe(1900)
    expect(nextPoll(grewAt20, 30_001).delayMs).toBe(2500)
    expect(nextPoll(grewAt20, 32_000).delayMs).toBe(3000)
    expect(nextPoll(grewAt20, 60_000).delayMs).toBe(5000)
    // Quiet since the start when nothing ever came.
    expect(nextPoll(w, 16_000).delayMs).toBe(4000)
  })

  it('counts quiet from the start when the console last grew before a later-known start', () => {
    const w = live(watch({ startedAt: 0, console: true }), 1000)
    const started = sawBuild(w, 30_000, { building: true, timestamp: 30_000 })
    expect(nextPoll(started, 46_000).delayMs).toBe(4000)
  })

  it('log: false without history: youngMs for 15 s, then a quarter of the age up to slowMs', () => {
    const w = watch({ startedAt: 0, console: false })
    expect(nextPoll(w, 14_999)).toEqual({ read: 'build', delayMs: 750 })
    expect(nextPoll(w, 15_000).delayMs).toBe(3750)
    expect(nextPoll(w, 16_000).delayMs).toBe(4000)
    expect(nextPoll(w, 600_000).delayMs).toBe(5000)
    // The age counts from the start, wherever the clock stands.
    const late = watch({ startedAt: 100_000, console: false })
    expect(nextPoll(late, 116_000).delayMs).toBe(4000)
    // A start Jenkins dates after our clock: a young build.
    expect(nextPoll(watch({ startedAt: 5000, console: false }), 0).delayMs).toBe(750)
  })

  it('once the end is seen: follow-ups, one confirming read, then back-off and give-up', () => {
    const seen = sawConsole(watch({ startedAt: 0, console: true }), 5000, {
      grew: true,
      moreData: true,
      finished: true
    })
    expect(nextPoll(seen, 5999)).toEqual({ read: 'console', delayMs: 100 })
    expect(nextPoll(seen, 6000)).toEqual({ read: 'build', delayMs: 0 })
    const confirmed = sawBuild(seen, 6000, { building: false })
    expect(nextPoll(confirmed, 6000)).toEqual({ read: 'console', delayMs: 250 })
    expect(nextPoll(confirmed, 8000).delayMs).toBe(750)
    expect(nextPoll(confirmed, 20_000).delayMs).toBe(1900)
    expect(nextPoll(confirmed, 35_000)).toEqual({ read: 'console', delayMs: 1900 })
    expect(nextPoll(confirmed, 35_001)).toEqual({ read: 'give-up', delayMs: 0 })
    // Confirmed early (a routine read right after the line): still the short follow-ups.
    const early = sawBuild(seen, 5500, { building: false })
    expect(nextPoll(early, 5500)).toEqual({ read: 'console', delayMs: 100 })
  })

  it('an end seen on a watch without console is not followed up: it is read from the build', () => {
    const w: Watch = { ...watch({ startedAt: 0, console: false }), endSeenAt: 1000 }
    expect(nextPoll(w, 60_000)).toEqual({ read: 'build', delayMs: 5000 })
  })
})

describe('nextQueueDelay', () => {
  it.each([
    [0, 100],
    [2, 225],
    [5, 759],
    [7, 1709],
    [8, 2000]
  ])('attempt %i waits %i ms', (attempt, ms) => {
    expect(nextQueueDelay(attempt)).toBe(ms)
  })
})
