/**
 * Queue reasons in the log: told when their words change, a countdown at
 * most once a minute. In virtual time (fixtures/virtual-time.ts), through the
 * one engine that follows one `job` (ONE_BUILD_POLICY: its own queue item)
 * and the builds of `jobs` (rounds of the queue list), with the reasons
 * Jenkins writes (hudson.Util.getTimeSpanString, as the test server writes them).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { QueuedTask } from '../../src/jenkins/model/types.js'
import type { QueueItem } from '../../src/jenkins/reads/reads.js'
import type { RunningBuild } from '../../src/jenkins/reads/executors.js'
import {
  DEFAULT_SCHEDULE_POLICY,
  newsOfReason,
  ONE_BUILD_POLICY,
  reasonWords,
  SAME_REASON_EVERY_MS,
  type SchedulePolicy
} from '../../src/follow/schedule.js'
import { timeSpan } from '../../test-server/model/time-span.js'
import { FakeApi } from '../fixtures/fake-api.js'
import { recordingFollower, T0, useVirtualTime, vnow } from '../fixtures/virtual-time.js'

vi.mock('../../src/util/wait.js', async importOriginal => ({
  ...(await importOriginal<typeof import('../../src/util/wait.js')>()),
  sleep: (await import('../fixtures/virtual-sleep.js')).virtualSleep
}))

beforeEach(useVirtualTime)
afterEach(() => vi.useRealTimers())

const MINUTE = 60_000

describe('reasonWords', () => {
  it('leaves out numbers and time units, however many', () => {
    const at = (ms: number) => `Build #2 is already in progress (ETA: ${timeSpan(ms)})`
    expect(reasonWords(at(38_000))).toBe(reasonWords(at(65_000)))
    expect(at(65_000)).toBe('Build #2 is already in progress (ETA: 1 min 5 sec)')
    expect(reasonWords(at(65_000))).toBe(reasonWords(at(4_300)))
    expect(reasonWords(at(65_000))).toBe(reasonWords(at(3 * 3_600_000 + 60_000)))
    expect(reasonWords(at(65_000))).toBe(reasonWords(at(250)))
    expect(reasonWords(at(1000))).toBe(reasonWords('Build #2 is already in progress (ETA: N/A)'))
    expect(reasonWords('In the quiet period. Expires in 4.3 sec')).toBe(
      reasonWords('In the quiet period. Expires in 1 min 2 sec')
    )
  })

  it('keeps the words: another reason is another', () => {
    expect(reasonWords('In the quiet period. Expires in 4.3 sec')).not.toBe(
      reasonWords('Build #2 is already in progress (ETA: 4.3 sec)')
    )
    expect(reasonWords('Waiting for next available executor on ‘linux’')).not.toBe(
      reasonWords('Waiting for next available executor on ‘windows’')
    )
  })
})

describe('newsOfReason', () => {
  it('the same text never again; the same words with other numbers once a minute; other words at once', () => {
    const first = newsOfReason(undefined, 'Expires in 9 sec', 0)
    expect(first).toEqual({
      words: reasonWords('Expires in 9 sec'),
      text: 'Expires in 9 sec',
      at: 0
    })
    expect(newsOfReason(first, 'Expires in 9 sec', 10 * MINUTE)).toBeUndefined()
    expect(newsOfReason(first, 'Expires in 8 sec', SAME_REASON_EVERY_MS - 1)).toBeUndefined()
    expect(newsOfReason(first, 'Expires in 8 sec', SAME_REASON_EVERY_MS)?.text).toBe(
      'Expires in 8 sec'
    )
    expect(newsOfReason(first, 'Finished waiting', 1)?.text).toBe('Finished waiting')
  })
})

/** Queue item 7 of `deploy`: it says `why(t)` while it waits, until `startAt`, when it starts build #3. */
class QueueApi extends FakeApi {
  /** Each reason a read showed, in order. */
  readonly reasons: string[] = []

  constructor(
    private readonly why: (t: number) => string,
    private readonly startAt: number
  ) {
    super()
  }

  override async getQueue(): Promise<QueuedTask[]> {
    const t = vnow()
    return t < this.startAt
      ? [{ id: 7, job: ['deploy'], causes: [], parameters: [], why: this.reason(t) }]
      : []
  }

  override async runningBuilds(): Promise<RunningBuild[]> {
    const started = { job: ['deploy'], number: 3, queueId: 7, timestamp: T0 + this.startAt }
    return vnow() < this.startAt ? [] : [started]
  }

  override async getQueueItem(): Promise<QueueItem> {
    const t = vnow()
    return t < this.startAt
      ? { id: 7, why: this.reason(t) }
      : { id: 7, executable: { number: 3, url: '' } }
  }

  private reason(t: number): string {
    const why = this.why(t)
    this.reasons.push(why)
    return why
  }
}

/** `policy` reading the queue every 50 ms (its own item, or rounds of the list). */
function every50ms(policy: SchedulePolicy): SchedulePolicy {
  return {
    ...policy,
    pollGapMs: Math.min(policy.pollGapMs, 50),
    poll: { ...policy.poll, queueMaxMs: 50 }
  }
}

/** Follows the queue item until it starts (then drops it, as `wait: started` does); the reasons told, and when. */
async function told(
  policy: SchedulePolicy,
  api: QueueApi
): Promise<Array<{ at: number; why: string }>> {
  const { follower, told: all } = recordingFollower(api, policy, {
    onTold: (event, f) => {
      if (event.kind === 'started') f.drop(event.track)
    }
  })
  follower.addQueued(['deploy'], 7)
  await follower.run()
  return all.flatMap(({ at, told: event }) =>
    event.kind === 'waiting' ? [{ at, why: event.why }] : []
  )
}

/**
 * A build blocked behind another for `blockedMs`, whose ETA counts down
 * (and runs over, as estimates do: N/A), then waiting for an executor, then
 * started. Follows it until it starts; returns the reasons it told and when.
 */
function blocked(
  policy: SchedulePolicy,
  blockedMs: number
): Promise<Array<{ at: number; why: string }>> {
  const why = (now: number): string => {
    if (now >= blockedMs) return 'Waiting for next available executor'
    // Jenkins estimated half the real time: the ETA reaches N/A half-way.
    const left = blockedMs / 2 - now
    return `Build #2 is already in progress (ETA: ${left > 0 ? timeSpan(left) : 'N/A'})`
  }
  return told(policy, new QueueApi(why, blockedMs + 20_000))
}

describe('the queue reasons the schedule tells', () => {
  for (const [who, policy] of [
    ['one job (its own queue item)', ONE_BUILD_POLICY],
    ['jobs (rounds of the queue list)', DEFAULT_SCHEDULE_POLICY]
  ] as const) {
    it(`${who}: 40 minutes behind another build is about one line a minute while the ETA counts, and each new reason at once`, async () => {
      const reasons = await blocked(policy, 40 * MINUTE)
      const progress = reasons.filter(t => t.why.startsWith('Build #2'))
      // One line a minute while the ETA counts down for 20 minutes (before: a
      // line at every poll, about 300), then the unchanging N/A once.
      const counting = progress.filter(t => !t.why.includes('N/A'))
      expect(counting.length).toBeGreaterThanOrEqual(20)
      expect(counting.length).toBeLessThanOrEqual(21)
      expect(progress.filter(t => t.why.includes('N/A'))).toHaveLength(1)
      for (let i = 1; i < progress.length; i++) {
        expect((progress[i]?.at ?? 0) - (progress[i - 1]?.at ?? 0)).toBeGreaterThanOrEqual(
          SAME_REASON_EVERY_MS
        )
      }
      expect(progress[0]).toEqual({
        at: expect.any(Number) as number,
        why: `Build #2 is already in progress (ETA: ${timeSpan(20 * MINUTE - (progress[0]?.at ?? 0))})`
      })
      // The new reason, as soon as a read showed it; it never changes after, so once.
      const executor = reasons.filter(t => t.why === 'Waiting for next available executor')
      expect(executor).toHaveLength(1)
      expect(executor[0]?.at).toBeGreaterThanOrEqual(40 * MINUTE)
      expect(executor[0]?.at).toBeLessThan(40 * MINUTE + 15_000)
    })

    it(`${who}: a quiet period of 5 s that counts down is one line`, async () => {
      // At the step's pace (seven to nine reads in 5 s), and at a read every 50 ms: 99 or 100
      // reads, every countdown text Jenkins shows (more than 50, to "50 ms").
      for (const [pace, reads, countdowns] of [
        [policy, 7, 5],
        [every50ms(policy), 99, 50]
      ] as const) {
        // From T0 again.
        useVirtualTime()
        const api = new QueueApi(t => `In the quiet period. Expires in ${timeSpan(5000 - t)}`, 5000)
        // The first reason read (at once, or at the first round), and no other.
        expect((await told(pace, api)).map(t => t.why)).toEqual([api.reasons[0]])
        expect(api.reasons[0]).toMatch(/^In the quiet period\. Expires in (5|4\.9) sec$/)
        expect(api.reasons.length).toBeGreaterThanOrEqual(reads)
        expect(new Set(api.reasons).size).toBeGreaterThan(countdowns)
      }
    })
  }
})
