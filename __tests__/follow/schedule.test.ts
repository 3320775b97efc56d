/**
 * The polling engine in virtual time (fixtures/virtual-time.ts): a modelled
 * Jenkins (queue, executors, builds that end the way Jenkins ends them)
 * answers every read at once, and the tests count what the follower asked
 * for and when it saw each end.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Build, BuildRef, JobPath, QueuedTask } from '../../src/jenkins/model/types.js'
import type { QueueItem } from '../../src/jenkins/reads/reads.js'
import type { PipelineRun } from '../../src/jenkins/reads/stages.js'
import type { RunningBuild } from '../../src/jenkins/reads/executors.js'
import type { BuildsFollower } from '../../src/follow/follow-builds.js'
import {
  DEFAULT_SCHEDULE_POLICY,
  ONE_BUILD_POLICY,
  type ConsoleFollower
} from '../../src/follow/schedule.js'
import type { ConsolePoll } from '../../src/follow/log-stream.js'
import type { Expectation } from '../../src/follow/poll-policy.js'
import { QueueItemEnded } from '../../src/follow/queue-ended.js'
import { JenkinsError } from '../../src/jenkins/transport/errors.js'
import { decodeBuild } from '../../src/jenkins/reads/decode.js'
import { StepAborted } from '../../src/util/wait.js'
import { FakeApi, networkError } from '../fixtures/fake-api.js'
import {
  advance,
  recordingFollower,
  T0,
  useVirtualTime,
  vnow,
  type Told
} from '../fixtures/virtual-time.js'

vi.mock('../../src/util/wait.js', async importOriginal => ({
  ...(await importOriginal<typeof import('../../src/util/wait.js')>()),
  sleep: (await import('../fixtures/virtual-sleep.js')).virtualSleep
}))

beforeEach(useVirtualTime)
afterEach(() => vi.useRealTimers())

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

type Request = 'queue' | 'computer' | 'queue-item' | 'build-poll' | 'build-full'

interface Log {
  /** Each request Jenkins received, when, and for which build (a build's own). */
  reads: Array<{ at: number; kind: Request; track?: number }>
  events: Array<{ at: number; event: Told }>
  /** Requests Jenkins received, by kind. */
  requests: Partial<Record<Request, number>>
}

const refused = (): JenkinsError => new JenkinsError('forbidden', 'Forbidden', 403)

/** The modelled Jenkins: every read answered at once, from the world at the virtual time. */
class WorldApi extends FakeApi {
  readonly log: Log = { reads: [], events: [], requests: {} }

  constructor(private readonly world: World) {
    super()
  }

  private note(kind: Request, build?: ModelBuild): void {
    const track = build && this.world.builds.indexOf(build)
    this.log.reads.push({ at: vnow(), kind, ...(build ? { track } : {}) })
    this.log.requests[kind] = (this.log.requests[kind] ?? 0) + 1
  }

  private byJob(job: JobPath): ModelBuild {
    const build = this.world.builds.find(b => b.job === job[0])
    if (!build) throw new Error(`no build of ${job.join('/')}`)
    return build
  }

  override async getQueue(): Promise<QueuedTask[]> {
    this.note('queue')
    if (this.world.refuseQueue) throw refused()
    return this.world.builds
      .filter(b => state(b, vnow()) === 'queued')
      .map(b => ({
        id: b.queueId,
        job: [b.job],
        causes: [],
        parameters: [],
        why: 'Waiting for next available executor'
      }))
  }

  override async runningBuilds(): Promise<RunningBuild[]> {
    this.note('computer')
    if (this.world.refuseRunning) throw refused()
    if (this.world.hideRunning) return []
    return this.world.builds
      .filter(b => ['building', 'ending'].includes(state(b, vnow())))
      .map(b => ({
        job: [b.job],
        number: b.number ?? 1,
        queueId: b.queueId,
        timestamp: T0 + b.startAt,
        estimatedDuration: -1
      }))
  }

  override async getQueueItem(queueId: number): Promise<QueueItem> {
    const b = this.world.builds.find(one => one.queueId === queueId)
    if (!b) throw new Error(`no queue item ${queueId}`)
    this.note('queue-item', b)
    const s = state(b, vnow())
    if (s === 'queued') {
      return {
        _class: 'hudson.model.Queue$BuildableItem',
        id: b.queueId,
        why: 'Waiting for next available executor'
      }
    }
    if (s === 'cancelled') {
      return {
        _class: 'hudson.model.Queue$LeftItem',
        id: b.queueId,
        cancelled: true,
        executable: null
      }
    }
    return {
      _class: 'hudson.model.Queue$LeftItem',
      id: b.queueId,
      cancelled: false,
      executable: { number: b.number ?? 1, url: '' }
    }
  }

  override async getBuild(
    job: JobPath,
    _which: number | 'lastBuild' | 'lastSuccessfulBuild',
    options?: { tree?: string }
  ): Promise<Build> {
    const b = this.byJob(job)
    this.note(options?.tree ? 'build-poll' : 'build-full', b)
    const s = state(b, vnow())
    return decodeBuild({
      number: b.number ?? 1,
      url: '',
      building: s === 'building',
      result: s === 'building' ? null : 'SUCCESS',
      duration: 0,
      estimatedDuration: -1,
      timestamp: T0 + b.startAt
    })
  }
}

function state(b: ModelBuild, t: number): 'cancelled' | 'queued' | 'building' | 'ending' | 'done' {
  if (b.cancelledAt !== undefined && b.cancelledAt <= t && t < b.startAt) return 'cancelled'
  if (t < b.startAt) return 'queued'
  if (t < b.endAt) return 'building'
  if (t < b.endAt + (b.gapMs ?? 125)) return 'ending'
  return 'done'
}

/** Follows the world's builds (the step's rounds: DEFAULT_SCHEDULE_POLICY) until none is followed, or `untilMs`. */
async function simulate(
  world: World,
  options: {
    expect?: Expectation
    untilMs?: number
    onEvent?: (e: Told, follower: BuildsFollower, at: number) => void
  } = {}
): Promise<Log> {
  const api = new WorldApi(world)
  const { log } = api
  const stop = new AbortController()
  const { follower, told } = recordingFollower(api, DEFAULT_SCHEDULE_POLICY, {
    signal: stop.signal,
    onTold: (event, f) => options.onEvent?.(event, f, vnow())
  })
  // The world's time runs out: the follower is stopped at the next read.
  const getQueue = api.getQueue.bind(api)
  api.getQueue = async () => {
    if (vnow() > (options.untilMs ?? 600_000)) stop.abort('timeout')
    return getQueue()
  }
  for (const b of world.builds) {
    b.number ??= 1
    follower.addQueued([b.job], b.queueId, { expect: options.expect })
  }
  await follower.run().catch((error: unknown) => {
    if (!(error instanceof StepAborted)) throw error
  })
  log.events = told.map(({ at, told: event }) => ({ at, event }))
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

describe('the shared schedule (jobs: rounds of the lists, one budget of polls)', () => {
  it('twenty 1-minute builds with history: rounds of one request each, every end seen within a second', async () => {
    const log = await simulate(
      { builds: twenty() },
      { expect: { durationMs: 60_000, spreadMs: 600 } }
    )
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

  it('never reads a build again once it ended', async () => {
    const builds = twenty().map((b, i) => ({ ...b, endAt: 5_000 + i * 2_000 }))
    const log = await simulate({ builds }, { expect: { durationMs: 10_000, spreadMs: 10_000 } })
    for (let i = 0; i < builds.length; i++) {
      const ended = endedAt(log, i) as number
      expect(ended).toBeDefined()
      const later = log.reads.filter(r => r.at > ended && r.track === i)
      expect(later).toEqual([])
    }
  })

  it('items waiting for executors: one queue read a round, no read per item, why said once each', async () => {
    // Two executors: the builds start two at a time, each running 3 s.
    const builds = Array.from({ length: 6 }, (_, i) => ({
      job: `q-${i}`,
      queueId: i + 1,
      startAt: Math.floor(i / 2) * 3_200 + 10,
      endAt: Math.floor(i / 2) * 3_200 + 3_010
    }))
    const log = await simulate({ builds })
    expect(log.requests['queue-item'] ?? 0).toBe(0)
    const waits = log.events.filter(e => e.event.kind === 'waiting')
    // Only the four that had to wait were ever seen waiting, once each.
    expect(waits.map(e => e.event.track).sort()).toEqual([2, 3, 4, 5])
    const starts = log.events.filter(e => e.event.kind === 'started')
    expect(starts).toHaveLength(6)
    for (let i = 0; i < 6; i++) expect(endedAt(log, i)).toBeDefined()
  })

  it('a short build that ended between two rounds: its queue item is read once, then its build', async () => {
    const log = await simulate({
      builds: [
        { job: 'short', queueId: 9, startAt: 20, endAt: 60, gapMs: 10 },
        { job: 'long', queueId: 10, startAt: 20, endAt: 20_000 }
      ]
    })
    expect(log.requests['queue-item']).toBe(1)
    expect(endedAt(log, 0)).toBeDefined()
    expect(log.events.find(e => e.event.kind === 'started' && e.event.track === 0)).toBeDefined()
  })

  it('a cancelled item ends its track: left without build, cancelled', async () => {
    const log = await simulate(
      {
        builds: [
          { job: 'never', queueId: 3, startAt: Infinity, endAt: Infinity, cancelledAt: 1000 },
          { job: 'other', queueId: 4, startAt: Infinity, endAt: Infinity }
        ]
      },
      { untilMs: 10_000 }
    )
    const left = log.events.filter(e => e.event.kind === 'failed')
    expect(left.map(e => e.event.track)).toEqual([0])
    const error = left[0]?.event.kind === 'failed' ? left[0].event.error : undefined
    expect(error).toBeInstanceOf(QueueItemEnded)
    expect(error).toMatchObject({ fate: 'cancelled', queueId: 3 })
    expect(error?.message).toBe(
      'The queue item 3 of never was cancelled in Jenkins before it started (by a user, or because the job was disabled).'
    )
  })

  it('computer/api/json refused: each build polled on its own, the polls spaced by the budget', async () => {
    const builds = twenty()
    const log = await simulate(
      { builds, refuseRunning: true },
      { expect: { durationMs: 60_000, spreadMs: 600 } }
    )
    expect(log.requests['computer']).toBe(1)
    expect(log.requests['build-poll']).toBeGreaterThan(20)
    for (let i = 0; i < builds.length; i++) expect(endedAt(log, i)).toBeDefined()
    // Polls: rounds (one or both lists, at one time) and a build's own polls
    // (a queue item a round did not show, and a build's final read, follow
    // from what was seen).
    const pollTimes = [
      ...new Set(
        log.reads
          .filter(r => r.kind === 'queue' || r.kind === 'computer' || r.kind === 'build-poll')
          .map(r => r.at)
      )
    ]
    for (let i = 1; i < pollTimes.length; i++) {
      expect((pollTimes[i] as number) - (pollTimes[i - 1] as number)).toBeGreaterThanOrEqual(
        DEFAULT_SCHEDULE_POLICY.pollGapMs
      )
    }
  })

  it('both lists refused: every queue item and build on its own, still within the budget', async () => {
    const builds = twenty().slice(0, 4)
    const log = await simulate({ builds, refuseRunning: true, refuseQueue: true })
    expect(log.requests['queue-item']).toBeGreaterThanOrEqual(4)
    for (let i = 0; i < builds.length; i++) expect(endedAt(log, i)).toBeDefined()
  })

  it('a list that hides our builds: a confirmation read finds them running, then they are polled on their own and the list is no longer read', async () => {
    const builds = twenty().slice(0, 3)
    const log = await simulate(
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

  it('expedite: a build told to stop is read at once, and again until it ended', async () => {
    // Far from its expected end (10 minutes): rounds would come only every 5 s.
    const builds: ModelBuild[] = [
      { job: 'a', queueId: 1, startAt: 10, endAt: 30_000 },
      { job: 'b', queueId: 2, startAt: 10, endAt: 600_000 }
    ]
    let stoppedAt: number | undefined
    const log = await simulate(
      { builds },
      {
        expect: { durationMs: 600_000, spreadMs: 1000 },
        onEvent: (e, follower, at) => {
          // When `a` fails, the step stops `b`: Jenkins ends it 700 ms later.
          if (e.kind === 'ended' && e.track === 0) {
            stoppedAt = at
            ;(builds[1] as ModelBuild).endAt = at + 700
            follower.expedite(1)
          }
        }
      }
    )
    expect(stoppedAt).toBeDefined()
    const ended = endedAt(log, 1) as number
    expect(ended - (stoppedAt as number)).toBeLessThanOrEqual(700 + 500)
    // Read on its own (full JSON), not taken for a build the list hides.
    const own = log.reads.filter(
      r => (r.kind === 'build-poll' || r.kind === 'build-full') && r.track === 1
    )
    expect(own.length).toBeGreaterThanOrEqual(2)
    expect(own.every(r => r.kind === 'build-full')).toBe(true)
  })
})

/** A console whose polls answer as scripted (the last repeats), each taking `ms` of virtual time; the times of its polls and its notices are noted. */
function timedConsole(answers: Array<{ ms: number; poll: ConsolePoll | Error }>) {
  const polls: number[] = []
  const notices: Array<{ at: number; message: string }> = []
  const console: ConsoleFollower = {
    poll: async () => {
      polls.push(vnow())
      const { ms, poll } = answers[Math.min(polls.length - 1, answers.length - 1)] ?? {
        ms: 0,
        poll: new Error('no answer')
      }
      advance(ms)
      if (poll instanceof Error) throw poll
      return poll
    },
    notice: message => void notices.push({ at: vnow(), message })
  }
  return { console, polls, notices }
}

/** A FakeApi that notes, in virtual ms, when each queue item, build and stages read came, and takes `answerMs` to answer each. */
class TimedApi extends FakeApi {
  readonly reads: string[] = []

  constructor(private readonly answerMs: number) {
    super()
  }

  override async getQueueItem(queueId: number): Promise<QueueItem> {
    this.reads.push(`queue-item at ${vnow()}`)
    const item = await super.getQueueItem(queueId)
    advance(this.answerMs)
    return item
  }

  override async getBuild(
    job: JobPath,
    which: number | 'lastBuild' | 'lastSuccessfulBuild',
    options?: { tree?: string }
  ): Promise<Build> {
    this.reads.push(`build${options?.tree ? '' : ' (full)'} at ${vnow()}`)
    const build = await super.getBuild(job, which, options)
    advance(this.answerMs)
    return build
  }

  override async describeRun(build: BuildRef): Promise<PipelineRun | undefined> {
    this.reads.push(`inputs at ${vnow()}`)
    const run = await super.describeRun(build)
    advance(this.answerMs)
    return run
  }
}

/** Lets the follower run (each of its waits moves the virtual clock on) until `done`. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 100_000 && !done(); i++) await new Promise(resolve => setImmediate(resolve))
  expect(done()).toBe(true)
}

describe('one build (ONE_BUILD_POLICY: one job)', () => {
  it('no lists: its queue item at once, then at the queue pace from its answer; the start as its read saw it', async () => {
    const api = new TimedApi(10)
    api.queueAnswers = [
      { id: 5, why: 'Waiting' },
      { id: 5, inQueueSince: 1, executable: { number: 3, url: '' } }
    ]
    const { follower, told } = recordingFollower(api, ONE_BUILD_POLICY, {
      onTold: (event, f) => {
        if (event.kind === 'started') f.drop(event.track)
      }
    })
    const id = follower.addQueued(['a'], 5)
    await follower.run()
    expect(api.reads).toEqual(['queue-item at 0', 'queue-item at 110'])
    expect(api.calls.filter(call => call !== 'getQueueItem 5')).toEqual([])
    expect(told).toEqual([
      { at: 10, told: { kind: 'waiting', track: id, why: 'Waiting' } },
      {
        at: 120,
        told: {
          kind: 'started',
          track: id,
          ref: { job: ['a'], number: 3, url: api.buildUrl(['a'], 3) },
          seenAt: 110,
          startSlackMs: 110,
          inQueueSince: 1
        }
      }
    ])
  })

  it('a console: read at once, paced from the start of each read, then one full read once it is complete', async () => {
    const api = new TimedApi(10)
    api.buildAnswers = [{ building: false, result: 'SUCCESS' }]
    const { console, polls } = timedConsole([
      { ms: 50, poll: { grew: true, moreData: true, finished: false } },
      { ms: 10, poll: { grew: false, moreData: false, finished: true } }
    ])
    const { follower, told } = recordingFollower(api, ONE_BUILD_POLICY)
    const ref = { job: ['a'], number: 3, url: 'u' }
    const id = follower.addRunning(ref, { console })
    await follower.run()
    // A young build without history: youngMs from the read's start, not its answer.
    expect(polls).toEqual([0, ONE_BUILD_POLICY.poll.youngMs])
    expect(api.reads).toEqual([`build (full) at ${ONE_BUILD_POLICY.poll.youngMs + 10}`])
    expect(told.map(t => t.told)).toEqual([
      { kind: 'ended', track: id, build: expect.objectContaining({ number: 3, building: false }) }
    ])
    expect(told[0]?.at).toBe(ONE_BUILD_POLICY.poll.youngMs + 20)
  })

  it('a console that fails before the end: one build read says the build is over, then the rest is given up after followUpForMs', async () => {
    const api = new TimedApi(10)
    api.buildAnswers = [{ building: false, result: 'SUCCESS' }]
    const { console, polls, notices } = timedConsole([
      { ms: 10, poll: networkError() },
      { ms: 0, poll: networkError() }
    ])
    const { follower, told } = recordingFollower(api, ONE_BUILD_POLICY)
    const ref = { job: ['a'], number: 3, url: 'https://ci/job/a/3/' }
    const id = follower.addRunning(ref, { console })
    await follower.run()
    // The console's first failure (at 10): one build read (not the full JSON) at once says it is
    // over; its answer (at 20) is the end seen. Then only the console, until followUpForMs after
    // that; then the final JSON.
    const { nearMs, liveMs, followUpForMs } = ONE_BUILD_POLICY.poll
    expect(api.reads).toEqual(['build at 10', 'build (full) at 30649'])
    // The failed console read again from each read's start: nearMs apart (a failed read's
    // floor) within confirmAfterMs of the end, then a quarter of the time since the end, at
    // most liveMs.
    expect(polls).toEqual([
      ...[0, 150, 300, 450, 600, 750, 900, 1050],
      ...[1308, 1630, 2033, 2536, 3165, 3951, 4934, 6163],
      ...Array.from({ length: 13 }, (_, i) => 7699 + i * liveMs)
    ])
    // The last (at 30499) came more than followUpForMs after the end: given up nearMs after it
    // (at 30649), then the final JSON, answered 10 ms later.
    expect((polls.at(-1) as number) - 20).toBeGreaterThan(followUpForMs)
    expect(notices).toEqual([
      {
        at: (polls.at(-1) as number) + nearMs,
        message:
          'Could not read the rest of the console of #3 30 s after the build finished (socket hang up); it is at https://ci/job/a/3/console'
      }
    ])
    expect(told).toEqual([
      {
        at: 30659,
        told: {
          kind: 'ended',
          track: id,
          build: expect.objectContaining({ number: 3, building: false })
        }
      }
    ])
  })
})

describe('the reads beside a build', () => {
  it("a running Pipeline's inputs: looked at 5 s after its start, then 10 s after each answer, one look at a time; none once Jenkins shows no stages", async () => {
    const api = new TimedApi(0)
    api.buildAnswers = [{ building: true }]
    // The build ends a minute in.
    const getBuild = api.getBuild.bind(api)
    api.getBuild = async (...args) => {
      if (vnow() >= 60_000) api.buildAnswers = [{ building: false, result: 'SUCCESS' }]
      return getBuild(...args)
    }
    // A pending input, then no stages (Jenkins has none to show).
    const run: PipelineRun = { status: 'PAUSED_PENDING_INPUT', stages: [] }
    api.runAnswers = [run, undefined]
    // Jenkins holds the first look's answer back while the build's own polls go on.
    api.holdRuns = true
    const { follower, told } = recordingFollower(api, ONE_BUILD_POLICY)
    const ref = { job: ['p'], number: 3, url: 'u' }
    const id = follower.addRunning(ref, { inputs: true })
    const following = follower.run()
    const looks = (): string[] => api.reads.filter(read => read.startsWith('inputs'))
    await until(() => vnow() >= 35_000)
    // 30 s (three looks' pace) with the first look out: no second one, and the build still polled.
    expect(looks()).toEqual(['inputs at 5000'])
    expect(api.inFlight.get('describeRun p#3')).toBe(1)
    const polledMeanwhile = api.reads.filter(
      read => read.startsWith('build at') && Number(read.slice('build at '.length)) > 5000
    )
    expect(polledMeanwhile.length).toBeGreaterThan(3)
    const answeredAt = vnow()
    api.holdRuns = false
    api.releaseRuns()
    await following
    // The second look 10 s after the first answer; then none, to the build's end a minute in.
    expect(looks()).toEqual(['inputs at 5000', `inputs at ${answeredAt + 10_000}`])
    expect(api.mostInFlight.get('describeRun p#3')).toBe(1)
    expect(api.mostInFlight.get('getBuild p#3')).toBe(1)
    expect(told.at(-1)?.told.kind).toBe('ended')
    expect(told.filter(t => t.told.kind === 'inputs').map(t => t.told)).toEqual([
      { kind: 'inputs', track: id, run }
    ])
  })

  it('a drain: the console of a build that ended, at once and at the follow-up pace until Jenkins closes it; no build read', async () => {
    const api = new TimedApi(0)
    const { console, polls } = timedConsole([
      { ms: 10, poll: { moreData: true, grew: true, finished: true } },
      { ms: 10, poll: { moreData: false, grew: false, finished: true } }
    ])
    const { follower, told } = recordingFollower(api, DEFAULT_SCHEDULE_POLICY)
    const drained = follower.drain({ job: ['d'], number: 3, url: 'u' }, console)
    await follower.run()
    await drained
    // The follow-up pace from the read's start, not the shared budget's 400 ms.
    expect(polls).toEqual([0, DEFAULT_SCHEDULE_POLICY.poll.followUpMs])
    expect(api.calls).toEqual([])
    expect(told).toEqual([])
  })
})
