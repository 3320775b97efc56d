import { describe, expect, it } from 'vitest'
import { DEFAULT_POLL_POLICY, nextPollDelay, nextQueueDelay } from '../src/poll-policy.js'

const { fastMs, slowMs, unknownMs } = DEFAULT_POLL_POLICY

describe('nextPollDelay', () => {
  it('polls slowly while the expected end is far', () => {
    expect(nextPollDelay(0, 60_000, 10_000)).toBe(slowMs)
  })

  it('polls fast around the expected end', () => {
    expect(nextPollDelay(0, 60_000, 59_500)).toBe(fastMs)
    expect(nextPollDelay(0, 60_000, 60_500)).toBe(fastMs)
  })

  it('backs off when the build is long overdue', () => {
    expect(nextPollDelay(0, 60_000, 120_000)).toBe(unknownMs)
  })

  it('starts fast without an estimate, then slows down', () => {
    expect(nextPollDelay(0, -1, 500)).toBe(fastMs)
    expect(nextPollDelay(0, -1, 5000)).toBeGreaterThan(fastMs)
    expect(nextPollDelay(0, -1, 10_000)).toBe(unknownMs)
    expect(nextPollDelay(0, -1, 60_000)).toBe(slowMs)
  })

  it('stays under one request per second over a one-minute build without an estimate', () => {
    let now = 0
    let polls = 0
    while (now < 60_000) {
      now += nextPollDelay(0, -1, now)
      polls++
    }
    // Plus the fixed requests of a run (crumb, job, trigger, queue, build twice).
    expect((polls + 6) / 60).toBeLessThanOrEqual(1)
  })

  it('averages well under one request per second over a one-minute build with an estimate', () => {
    let now = 0
    let polls = 0
    while (now < 60_000) {
      now += nextPollDelay(0, 60_000, now)
      polls++
    }
    expect(polls / 60).toBeLessThan(1)
    // ...and the last poll lands shortly after the end.
    expect(now - 60_000).toBeLessThanOrEqual(fastMs)
  })
})

describe('nextQueueDelay', () => {
  it('grows from 100 ms to the slow bound', () => {
    expect(nextQueueDelay(0)).toBe(100)
    expect(nextQueueDelay(1)).toBe(150)
    expect(nextQueueDelay(50)).toBe(slowMs)
  })
})
