/**
 * Queue reasons in the log: told when their words change, a countdown at
 * most once a minute. In virtual time, through the one schedule that follows
 * one `job` (ONE_BUILD_POLICY: its own queue item) and the builds of `jobs`
 * (rounds of the queue list), with the reasons Jenkins writes
 * (hudson.Util.getTimeSpanString, as the test server writes them).
 */
import { describe, expect, it } from 'vitest'
import type { BuildRef, JobPath, QueuedTask } from '../../src/jenkins/model/types.js'
import {
  DEFAULT_SCHEDULE_POLICY,
  SharedSchedule,
  ONE_BUILD_POLICY,
  type SchedulePolicy,
  type TrackEvent
} from '../../src/follow/schedule.js'
import { newsOfReason, reasonWords, SAME_REASON_EVERY_MS } from '../../src/follow/queue-reason.js'
import { timeSpan } from '../../test-server/model/time-span.js'

const refOf = (job: JobPath, number: number): BuildRef => ({
  job,
  number,
  url: `https://ci/job/${job.join('/job/')}/${number}/`
})

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

/**
 * A build blocked behind another for `blockedMs`, whose ETA counts down
 * (and runs over, as estimates do: N/A), then waiting for an executor, then
 * started. Runs the schedule until it starts; returns the reasons it told
 * and when.
 */
function blocked(policy: SchedulePolicy, blockedMs: number): Array<{ at: number; why: string }> {
  const schedule = new SharedSchedule(refOf, policy)
  const queueId = 7
  const id = schedule.addQueued(['deploy'], queueId, 0)
  const startAt = blockedMs + 20_000
  const why = (now: number): string => {
    if (now >= blockedMs) return 'Waiting for next available executor'
    // Jenkins estimated half the real time: the ETA reaches N/A half-way.
    const left = blockedMs / 2 - now
    return `Build #2 is already in progress (ETA: ${left > 0 ? timeSpan(left) : 'N/A'})`
  }
  const told: Array<{ at: number; why: string }> = []
  let now = 0
  for (let i = 0; i < 1_000_000 && schedule.active; i++) {
    const { reads, nextAt } = schedule.due(now)
    for (const read of reads) {
      let events: TrackEvent[]
      if (read.kind === 'round') {
        const queue: QueuedTask[] =
          now < startAt
            ? [{ id: queueId, job: ['deploy'], causes: [], parameters: [], why: why(now) }]
            : []
        const running =
          now < startAt ? [] : [{ job: ['deploy'], number: 3, queueId, timestamp: startAt }]
        events = schedule.sawRound(now, now, {
          ...(read.queue ? { queue } : {}),
          ...(read.running ? { running } : {})
        })
      } else if (read.kind === 'queue-item') {
        events = schedule.sawQueueItem(
          id,
          now,
          now,
          now < startAt
            ? { id: queueId, why: why(now) }
            : { id: queueId, executable: { number: 3, url: '' } }
        )
      } else {
        // Started: the queue is done with.
        schedule.drop(id)
        events = []
      }
      for (const event of events) {
        if (event.kind === 'waiting') told.push({ at: now, why: event.why })
      }
    }
    if (reads.length === 0) now = Math.max(now + 1, nextAt ?? now + 1)
  }
  return told
}

describe('the queue reasons the schedule tells', () => {
  for (const [who, policy] of [
    ['one job (its own queue item)', ONE_BUILD_POLICY],
    ['jobs (rounds of the queue list)', DEFAULT_SCHEDULE_POLICY]
  ] as const) {
    it(`${who}: 40 minutes behind another build is about one line a minute while the ETA counts, and each new reason at once`, () => {
      const told = blocked(policy, 40 * MINUTE)
      const progress = told.filter(t => t.why.startsWith('Build #2'))
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
      const executor = told.filter(t => t.why === 'Waiting for next available executor')
      expect(executor).toHaveLength(1)
      expect(executor[0]?.at).toBeGreaterThanOrEqual(40 * MINUTE)
      expect(executor[0]?.at).toBeLessThan(40 * MINUTE + 15_000)
    })

    it(`${who}: a quiet period of 5 s that counts down is one line`, () => {
      const schedule = new SharedSchedule(refOf, policy)
      const id = schedule.addQueued(['hello'], 1, 0)
      const told: string[] = []
      for (let now = 0; now < 5000; now += 100) {
        const why = `In the quiet period. Expires in ${timeSpan(5000 - now)}`
        const events = policy.rounds
          ? schedule.sawRound(now, now, {
              queue: [{ id: 1, job: ['hello'], causes: [], parameters: [], why }],
              running: []
            })
          : schedule.sawQueueItem(id, now, now, { id: 1, why })
        for (const e of events) if (e.kind === 'waiting') told.push(e.why)
      }
      expect(told).toEqual(['In the quiet period. Expires in 5 sec'])
    })
  }
})
