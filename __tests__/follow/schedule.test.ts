/**
 * The shared schedule in virtual time: a modelled Jenkins (queue, executors,
 * builds that end the way Jenkins ends them) answers every read at once, and
 * the tests count what the schedule asked for and when it saw each end.
 */
import { describe, expect, it } from 'vitest'
import type {
  Build,
  BuildRef,
  JobPath,
  QueuedTask,
  QueueItem,
  RunningBuild
} from '../../src/jenkins/model/types.js'
import {
  DEFAULT_SCHEDULE_POLICY,
  SharedSchedule,
  ONE_BUILD_POLICY,
  type ConsoleFollower,
  type ScheduledRead,
  type TrackEvent
} from '../../src/follow/schedule.js'
import type { Expectation } from '../../src/follow/poll-policy.js'
import { decodeBuild } from '../../src/jenkins/reads/decode.js'

/** A console for the schedule to hold: it never reads one (the follower does). */
const held: ConsoleFollower = {
  poll: () => Promise.reject(new Error('the schedule reads nothing')),
  notice: () => undefined
}

const refOf = (job: JobPath, number: number): BuildRef => ({
  job,
  number,
  url: `https://ci/job/${job.join('/job/')}/${number}/`
})

interface ModelBuild {
  job: string
  queueId: number
  /** When it leaves the queue (ms); Infinity: never. */
  startAt: number
  /** When `building` turns false. */
  endAt: number
  /** building false → executor freed (Finished:, log closed). */
  gapMs?: number
  number?: number
  cancelledAt?: number
}

interface World {
  builds: ModelBuild[]
  /** computer/api/json refused (403). */
  refuseRunning?: boolean
  refuseQueue?: boolean
  /** computer/api/json shows no build (a filtering plugin). */
  hideRunning?: boolean
}

interface Log {
  reads: Array<{ at: number; read: ScheduledRead }>
  events: Array<{ at: number; event: TrackEvent }>
  /** Requests Jenkins received, by kind. */
  requests: Record<string, number>
}

/** Runs the schedule against the world until nothing is followed (or `untilMs`). */
function simulate(
  world: World,
  options: {
    expect?: Expectation
    untilMs?: number
    onEvent?: (e: TrackEvent, s: SharedSchedule, at: number) => void
  } = {}
): Log {
  const schedule = new SharedSchedule(refOf)
  const log: Log = { reads: [], events: [], requests: {} }
  const count = (kind: string): void => void (log.requests[kind] = (log.requests[kind] ?? 0) + 1)
  const tracks = new Map<number, ModelBuild>()
  for (const b of world.builds) {
    b.number ??= 1
    tracks.set(schedule.addQueued([b.job], b.queueId, 0, { expect: options.expect }), b)
  }
  let now = 0
  const state = (b: ModelBuild, t: number) => {
    if (b.cancelledAt !== undefined && b.cancelledAt <= t && t < b.startAt) return 'cancelled'
    if (t < b.startAt) return 'queued'
    if (t < b.endAt) return 'building'
    if (t < b.endAt + (b.gapMs ?? 125)) return 'ending'
    return 'done'
  }
  const emit = (events: TrackEvent[]): void => {
    for (const event of events) {
      log.events.push({ at: now, event })
      options.onEvent?.(event, schedule, now)
    }
  }
  const buildJson = (b: ModelBuild): Build => {
    const s = state(b, now)
    return decodeBuild({
      number: b.number as number,
      url: '',
      building: s === 'building',
      result: s === 'building' ? null : 'SUCCESS',
      duration: 0,
      estimatedDuration: -1,
      timestamp: b.startAt
    })
  }
  for (let i = 0; i < 100_000 && schedule.active && now <= (options.untilMs ?? 600_000); i++) {
    const { reads, nextAt } = schedule.due(now)
    for (const read of reads) {
      log.reads.push({ at: now, read })
      if (read.kind === 'round') {
        const seen: { queue?: QueuedTask[] | 'refused'; running?: RunningBuild[] | 'refused' } = {}
        if (read.queue) {
          count('queue')
          if (world.refuseQueue) seen.queue = 'refused'
          else
            seen.queue = world.builds
              .filter(b => state(b, now) === 'queued')
              .map(b => ({
                id: b.queueId,
                job: [b.job],
                causes: [],
                parameters: [],
                why: 'Waiting for next available executor'
              }))
        }
        if (read.running) {
          count('computer')
          if (world.refuseRunning) seen.running = 'refused'
          else
            seen.running = world.hideRunning
              ? []
              : world.builds
                  .filter(b => ['building', 'ending'].includes(state(b, now)))
                  .map(b => ({
                    job: [b.job],
                    number: b.number as number,
                    queueId: b.queueId,
                    timestamp: b.startAt,
                    estimatedDuration: -1
                  }))
        }
        emit(schedule.sawRound(now, now, seen))
      } else if (read.kind === 'queue-item') {
        count('queue-item')
        const b = tracks.get(read.track) as ModelBuild
        const s = state(b, now)
        const item: QueueItem =
          s === 'queued'
            ? {
                _class: 'hudson.model.Queue$BuildableItem',
                id: b.queueId,
                why: 'Waiting for next available executor'
              }
            : s === 'cancelled'
              ? {
                  _class: 'hudson.model.Queue$LeftItem',
                  id: b.queueId,
                  cancelled: true,
                  executable: null
                }
              : {
                  _class: 'hudson.model.Queue$LeftItem',
                  id: b.queueId,
                  cancelled: false,
                  executable: { number: b.number as number, url: '' }
                }
        emit(schedule.sawQueueItem(read.track, now, now, item))
      } else if (read.kind === 'build') {
        count(read.full ? 'build-full' : 'build-poll')
        const b = tracks.get(read.track) as ModelBuild
        emit(schedule.sawBuild(read.track, now, { build: buildJson(b), full: read.full }))
      }
    }
    if (reads.length > 0) continue
    if (nextAt === undefined) break
    now = Math.max(now + 1, nextAt)
  }
  return log
}

const endedAt = (log: Log, track: number): number | undefined =>
  log.events.find(e => e.event.kind === 'ended' && e.event.track === track)?.at

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] as number
}

/** Twenty builds of a minute that start at once (enough executors), each its own job. */
function twenty(extra: Partial<ModelBuild> = {}): ModelBuild[] {
  return Array.from({ length: 20 }, (_, i) => ({
    job: `job-${i}`,
    queueId: 100 + i,
    startAt: 50 + i * 10,
    endAt: 60_000 + 50 + i * 10,
    ...extra
  }))
}

describe('SharedSchedule', () => {
  it('twenty 1-minute builds with history: rounds of one request each, every end seen within a second', () => {
    const log = simulate({ builds: twenty() }, { expect: { durationMs: 60_000, spreadMs: 600 } })
    const delays = twenty().map((b, i) => (endedAt(log, i) as number) - b.endAt)
    expect(delays.every(d => d >= 125)).toBe(true)
    expect(median(delays)).toBeLessThan(1000)
    // One round serves all twenty: the queue list only while items wait.
    const polls = (log.requests['computer'] ?? 0) + (log.requests['queue'] ?? 0)
    expect(log.requests['queue']).toBeLessThanOrEqual(2)
    expect(log.requests['queue-item'] ?? 0).toBe(0)
    expect(log.requests['build-poll'] ?? 0).toBe(0)
    // One full read per build, its report.
    expect(log.requests['build-full']).toBe(20)
    // Far fewer polls than twenty single runs (each ~26 a minute): under one a second.
    expect(polls / 60).toBeLessThan(1)
  })

  it('never reads a build again once it ended', () => {
    const builds = twenty().map((b, i) => ({ ...b, endAt: 5_000 + i * 2_000 }))
    const log = simulate({ builds }, { expect: { durationMs: 10_000, spreadMs: 10_000 } })
    for (let i = 0; i < builds.length; i++) {
      const ended = endedAt(log, i) as number
      expect(ended).toBeDefined()
      const later = log.reads.filter(
        r => r.at > ended && r.read.kind !== 'round' && 'track' in r.read && r.read.track === i
      )
      expect(later).toEqual([])
    }
  })

  it('items waiting for executors: one queue read a round, no read per item, why said once each', () => {
    // Two executors: the builds start two at a time, each running 3 s.
    const builds = Array.from({ length: 6 }, (_, i) => ({
      job: `q-${i}`,
      queueId: i + 1,
      startAt: Math.floor(i / 2) * 3_200 + 10,
      endAt: Math.floor(i / 2) * 3_200 + 3_010
    }))
    const log = simulate({ builds })
    expect(log.requests['queue-item'] ?? 0).toBe(0)
    const waits = log.events.filter(e => e.event.kind === 'waiting')
    // Only the four that had to wait were ever seen waiting, once each.
    expect(waits.map(e => e.event.track).sort()).toEqual([2, 3, 4, 5])
    const starts = log.events.filter(e => e.event.kind === 'started')
    expect(starts).toHaveLength(6)
    for (let i = 0; i < 6; i++) expect(endedAt(log, i)).toBeDefined()
  })

  it('a short build that ended between two rounds: its queue item is read once, then its build', () => {
    const log = simulate({
      builds: [
        { job: 'short', queueId: 9, startAt: 20, endAt: 60, gapMs: 10 },
        { job: 'long', queueId: 10, startAt: 20, endAt: 20_000 }
      ]
    })
    expect(log.requests['queue-item']).toBe(1)
    expect(endedAt(log, 0)).toBeDefined()
    expect(log.events.find(e => e.event.kind === 'started' && e.event.track === 0)).toBeDefined()
  })

  it('a cancelled item ends its track: left without build, cancelled', () => {
    const log = simulate(
      {
        builds: [
          { job: 'never', queueId: 3, startAt: Infinity, endAt: Infinity, cancelledAt: 1000 },
          { job: 'other', queueId: 4, startAt: Infinity, endAt: Infinity }
        ]
      },
      { untilMs: 10_000 }
    )
    const left = log.events.find(e => e.event.kind === 'left-without-build')
    expect(left?.event).toEqual({
      kind: 'left-without-build',
      track: 0,
      queueId: 3,
      cancelled: true
    })
  })

  it('computer/api/json refused: each build polled on its own, the polls spaced by the budget', () => {
    const builds = twenty()
    const log = simulate(
      { builds, refuseRunning: true },
      { expect: { durationMs: 60_000, spreadMs: 600 } }
    )
    expect(log.requests['computer']).toBe(1)
    expect(log.requests['build-poll']).toBeGreaterThan(20)
    for (let i = 0; i < builds.length; i++) expect(endedAt(log, i)).toBeDefined()
    // Polls: rounds and a build's own polls (a queue item a round did not
    // show, and a build's final read, follow from what was seen).
    const pollTimes = log.reads
      .filter(r => r.read.kind === 'round' || (r.read.kind === 'build' && !r.read.full))
      .map(r => r.at)
    for (let i = 1; i < pollTimes.length; i++) {
      expect((pollTimes[i] as number) - (pollTimes[i - 1] as number)).toBeGreaterThanOrEqual(
        DEFAULT_SCHEDULE_POLICY.pollGapMs
      )
    }
  })

  it('both lists refused: every queue item and build on its own, still within the budget', () => {
    const builds = twenty().slice(0, 4)
    const log = simulate({ builds, refuseRunning: true, refuseQueue: true })
    expect(log.requests['queue-item']).toBeGreaterThanOrEqual(4)
    for (let i = 0; i < builds.length; i++) expect(endedAt(log, i)).toBeDefined()
  })

  it('a list that hides our builds: a confirmation read finds them running, then they are polled on their own and the list is no longer read', () => {
    const builds = twenty().slice(0, 3)
    const log = simulate(
      { builds, hideRunning: true },
      { expect: { durationMs: 60_000, spreadMs: 600 } }
    )
    for (let i = 0; i < builds.length; i++) {
      const ended = endedAt(log, i) as number
      expect(ended - (builds[i] as ModelBuild).endAt).toBeLessThan(3000)
    }
    // Read twice: the round that found the builds started, the one that missed them.
    expect(log.requests['computer']).toBe(2)
  })

  it('expedite: a build told to stop is read at once, and again until it ended', () => {
    // Far from its expected end (10 minutes): rounds would come only every 5 s.
    const builds: ModelBuild[] = [
      { job: 'a', queueId: 1, startAt: 10, endAt: 30_000 },
      { job: 'b', queueId: 2, startAt: 10, endAt: 600_000 }
    ]
    let stoppedAt: number | undefined
    const log = simulate(
      { builds },
      {
        expect: { durationMs: 600_000, spreadMs: 1000 },
        onEvent: (e, s, at) => {
          // When `a` fails, the step stops `b`: Jenkins ends it 700 ms later.
          if (e.kind === 'ended' && e.track === 0) {
            stoppedAt = at
            ;(builds[1] as ModelBuild).endAt = at + 700
            s.expedite(1, at)
          }
        }
      }
    )
    expect(stoppedAt).toBeDefined()
    const ended = endedAt(log, 1) as number
    expect(ended - (stoppedAt as number)).toBeLessThanOrEqual(700 + 500)
    // Read on its own (full JSON), not taken for a build the list hides.
    const own = log.reads.filter(r => r.read.kind === 'build' && r.read.track === 1)
    expect(own.length).toBeGreaterThanOrEqual(2)
    expect(own.every(r => r.read.kind === 'build' && r.read.full)).toBe(true)
  })
})

describe('SharedSchedule with ONE_BUILD_POLICY (one job)', () => {
  const build = (fields: { building: boolean }): Build =>
    decodeBuild({
      number: 3,
      url: '',
      result: null,
      duration: 0,
      estimatedDuration: -1,
      timestamp: 0,
      ...fields
    })

  it('no lists: its queue item at once, then at the queue pace; the start as its read saw it', () => {
    const schedule = new SharedSchedule(refOf, ONE_BUILD_POLICY)
    const id = schedule.addQueued(['a'], 5, 0)
    expect(schedule.due(0).reads).toEqual([{ kind: 'queue-item', track: id, queueId: 5 }])
    expect(schedule.sawQueueItem(id, 0, 10, { id: 5, why: 'Waiting' })).toEqual([
      { kind: 'waiting', track: id, why: 'Waiting' }
    ])
    expect(schedule.due(10)).toEqual({ reads: [], nextAt: 110 })
    expect(schedule.due(110).reads).toEqual([{ kind: 'queue-item', track: id, queueId: 5 }])
    const item = { id: 5, inQueueSince: 1, executable: { number: 3, url: '' } }
    expect(schedule.sawQueueItem(id, 110, 120, item)).toEqual([
      {
        kind: 'started',
        track: id,
        ref: refOf(['a'], 3),
        seenAt: 110,
        startSlackMs: 110,
        inQueueSince: 1
      }
    ])
  })

  it('a console: read at once, paced from the start of each read, then one full read once it is complete', () => {
    const schedule = new SharedSchedule(refOf, ONE_BUILD_POLICY)
    const ref = refOf(['a'], 3)
    const id = schedule.addRunning(ref, 0, { console: held })
    expect(schedule.due(0).reads).toEqual([{ kind: 'console', track: id, ref }])
    schedule.sawConsole(id, 50, { grew: true, moreData: true, finished: false })
    // A young build without history: youngMs from the read's start, not its answer.
    expect(schedule.due(50)).toEqual({ reads: [], nextAt: ONE_BUILD_POLICY.poll.youngMs })
    expect(schedule.due(750).reads).toEqual([{ kind: 'console', track: id, ref }])
    schedule.sawConsole(id, 760, { grew: false, moreData: false, finished: true })
    expect(schedule.due(760).reads).toEqual([{ kind: 'build', track: id, ref, full: true }])
    expect(schedule.sawBuild(id, 770, { build: build({ building: false }), full: true })).toEqual([
      { kind: 'ended', track: id, build: build({ building: false }) }
    ])
    expect(schedule.active).toBe(false)
  })

  it('a console that fails before the end: one build read says the build is over, then the rest is given up after followUpForMs', () => {
    const schedule = new SharedSchedule(refOf, ONE_BUILD_POLICY)
    const ref = refOf(['a'], 3)
    const id = schedule.addRunning(ref, 0, { console: held })
    schedule.due(0)
    schedule.readFailed(id, 10)
    expect(schedule.due(10).reads).toEqual([{ kind: 'build', track: id, ref, full: false }])
    schedule.sawBuild(id, 20, { build: build({ building: false }), full: false })
    let now = 20
    const reads: ScheduledRead[] = []
    while (schedule.active && now < 60_000) {
      const { reads: due, nextAt } = schedule.due(now)
      for (const read of due) {
        reads.push(read)
        if (read.kind === 'console') schedule.readFailed(id, now)
        else schedule.sawBuild(id, now, { build: build({ building: false }), full: true })
      }
      if (due.length === 0) now = nextAt as number
    }
    expect(reads.at(-1)).toEqual({ kind: 'give-up', track: id, ref })
    expect(reads.filter(r => r.kind === 'build')).toEqual([])
    expect(now).toBeGreaterThan(20 + ONE_BUILD_POLICY.poll.followUpForMs)
  })
})

describe('SharedSchedule: the reads beside a build', () => {
  it("a running Pipeline's inputs: looked at 5 s after its start, then every 10 s; none once Jenkins shows no stages", () => {
    const schedule = new SharedSchedule(refOf, ONE_BUILD_POLICY)
    const ref = refOf(['p'], 3)
    const id = schedule.addRunning(ref, 0, { inputs: true })
    const looks = (now: number): ScheduledRead[] =>
      schedule.due(now).reads.filter(read => read.kind === 'inputs')
    expect(looks(0)).toEqual([])
    expect(looks(5000)).toEqual([{ kind: 'inputs', track: id, ref }])
    // One look at a time, beside the build's own reads.
    expect(looks(5100)).toEqual([])
    schedule.sawInputs(id, 5200, { more: true })
    expect(looks(15_100)).toEqual([])
    expect(looks(15_200)).toEqual([{ kind: 'inputs', track: id, ref }])
    schedule.sawInputs(id, 15_300, { more: false })
    expect(looks(60_000)).toEqual([])
  })

  it('a drain: the console of a build that ended, at once and at the follow-up pace until Jenkins closes it; no build read', () => {
    const schedule = new SharedSchedule(refOf, DEFAULT_SCHEDULE_POLICY)
    const ref = refOf(['d'], 3)
    const id = schedule.addDrain(ref, 0, held)
    expect(schedule.due(0).reads).toEqual([{ kind: 'console', track: id, ref }])
    expect(schedule.sawConsole(id, 10, { moreData: true, grew: true, finished: true })).toEqual([])
    const { reads, nextAt } = schedule.due(10)
    expect(reads).toEqual([])
    // The follow-up pace, not the shared budget's 400 ms.
    expect(nextAt).toBe(DEFAULT_SCHEDULE_POLICY.poll.followUpMs)
    expect(schedule.due(100).reads).toEqual([{ kind: 'console', track: id, ref }])
    expect(schedule.sawConsole(id, 110, { moreData: false, grew: false, finished: true })).toEqual([
      { kind: 'drained', track: id }
    ])
    expect(schedule.active).toBe(false)
  })
})
