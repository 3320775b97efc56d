import { POLL_TREE } from './follower.js'
import { Interrupted, JenkinsError } from '../jenkins/transport/errors.js'
import { fullName } from '../jenkins/model/job-path.js'
import type {
  Build,
  BuildRef,
  JenkinsApi,
  JobPath,
  QueuedTask,
  QueueItem,
  RunningBuild
} from '../jenkins/model/types.js'
import type { Logger } from '../util/logger.js'
import type { Expectation } from './poll-policy.js'
import { throwIfAborted } from '../util/wait.js'
import { SharedSchedule } from './schedule.js'
import {
  DEFAULT_SCHEDULE_POLICY,
  type SchedulePolicy,
  type ScheduledRead,
  type TrackEvent
} from './schedule-policy.js'
import { errorText } from '../util/error-text.js'

/** What the follower tells about each build, by the id `add…` returned. Called in order, never concurrently. */
interface FollowHooks {
  /** The item waits in the queue, for this (Jenkins' text, untrusted). */
  waiting(track: number, why: string): void
  started(track: number, ref: BuildRef): void
  /** The build ended: its full, final JSON. */
  ended(track: number, build: Build): void
  /** It cannot be followed further (cancelled in the queue, gone, refused). */
  failed(track: number, error: Error): void
}

export interface BuildsFollowerOptions {
  api: JenkinsApi
  hooks: FollowHooks
  logger: Logger
  /** Fires on cancel or timeout: run() ends with StepAborted. */
  signal: AbortSignal
  policy?: SchedulePolicy
  now?: () => number
}

/** How long a list read may retry before the round gives up on it (ms): the next round is better. */
const LIST_READ_MS = 10_000

/**
 * Follows several builds at once with one client: carries out the reads the
 * shared schedule (schedule.ts) asks for, those of one moment concurrently,
 * and tells the hooks what they showed. A list Jenkins refuses is dropped
 * (said in the debug log); a read that failed on the way is tried again.
 */
export class BuildsFollower {
  private readonly schedule: SharedSchedule
  private readonly now: () => number
  private readonly jobs = new Map<number, JobPath>()
  private readonly queueIds = new Map<number, number>()
  private readonly inFlight = new Set<Promise<void>>()
  private wakeUp: (() => void) | undefined
  private failure: unknown

  constructor(private readonly options: BuildsFollowerOptions) {
    this.now = options.now ?? Date.now
    this.schedule = new SharedSchedule(
      (job, number) => ({ job, number, url: options.api.buildUrl(job, number) }),
      options.policy ?? DEFAULT_SCHEDULE_POLICY
    )
  }

  /** Follows a queue item to its build and the build to its end; returns its id for the hooks. */
  addQueued(job: JobPath, queueId: number, expect?: Expectation): number {
    const id = this.schedule.addQueued(job, queueId, this.now(), expect)
    this.jobs.set(id, job)
    this.queueIds.set(id, queueId)
    this.poke()
    return id
  }

  /** Follows a build known to run (build: last) to its end. */
  addRunning(ref: BuildRef, build: Pick<Build, 'timestamp' | 'estimatedDuration'>): number {
    const id = this.schedule.addRunning(ref, build, this.now())
    this.jobs.set(id, ref.job)
    this.poke()
    return id
  }

  /** Stops following one build. */
  drop(id: number): void {
    this.schedule.drop(id)
    this.poke()
  }

  /** Looks at a build the step just told to stop, and keeps looking until it ended. */
  expedite(id: number): void {
    this.schedule.expedite(id, this.now())
    this.poke()
  }

  /** Whether the running list still serves (false: every build is polled on its own). */
  get batched(): boolean {
    return this.schedule.usesRunningList
  }

  /** Runs until no build is followed; throws StepAborted on cancel or timeout. */
  async run(): Promise<void> {
    const { signal } = this.options
    for (;;) {
      throwIfAborted(signal)
      if (this.failure !== undefined) throw this.failure
      const { reads, nextAt } = this.schedule.due(this.now())
      for (const read of reads) this.launch(read)
      if (!this.schedule.active && this.inFlight.size === 0) return
      if (reads.length > 0) continue
      await this.wait(nextAt === undefined ? undefined : nextAt - this.now())
    }
  }

  // ---------------------------------------------------------------------------

  private poke(): void {
    this.wakeUp?.()
  }

  /** Until `ms` passed, a read ended, something was added, or the signal fired. */
  private wait(ms: number | undefined): Promise<void> {
    const { signal } = this.options
    return new Promise(resolve => {
      let timer: NodeJS.Timeout | undefined
      const done = (): void => {
        clearTimeout(timer)
        signal.removeEventListener('abort', done)
        this.wakeUp = undefined
        resolve()
      }
      this.wakeUp = done
      signal.addEventListener('abort', done, { once: true })
      if (ms !== undefined) timer = setTimeout(done, Math.max(0, ms))
    })
  }

  private launch(read: ScheduledRead): void {
    const work = this.perform(read)
      .catch(error => {
        // A read cut by the cancel is the cancel's business (run() throws it).
        if (this.options.signal.aborted) return
        this.failure ??= error
      })
      .finally(() => {
        this.inFlight.delete(work)
        this.poke()
      })
    this.inFlight.add(work)
  }

  private async perform(read: ScheduledRead): Promise<void> {
    switch (read.kind) {
      case 'round':
        return this.round(read.queue, read.running)
      case 'queue-item':
        return this.queueItem(read.track, read.queueId)
      case 'build':
        return this.build(read.track, read.ref, read.full)
    }
  }

  private async round(queue: boolean, running: boolean): Promise<void> {
    const { api, logger } = this.options
    const sentAt = this.now()
    const seen: { queue?: QueuedTask[]; running?: RunningBuild[] } = {}
    const refused: { queue?: boolean; running?: boolean } = {}
    try {
      // The queue first: an item that leaves it meanwhile is on its executor by the second read.
      if (queue) {
        const answer = await this.list('the queue (queue/api/json)', () => api.getQueue())
        if (answer === 'refused') refused.queue = true
        else seen.queue = answer
      }
      if (running) {
        const answer = await this.list('the running builds (computer/api/json)', () =>
          api.runningBuilds({ deadline: this.now() + LIST_READ_MS })
        )
        if (answer === 'refused') refused.running = true
        else seen.running = answer
      }
    } catch (error) {
      if (!isTransient(error)) throw error
      logger.debug(`A look at the builds failed, trying again: ${errorText(error)}`)
      this.schedule.roundFailed(this.now())
      return
    }
    this.tell(this.schedule.sawRound(sentAt, this.now(), seen, refused))
  }

  /** A list, or 'refused' when Jenkins will not give it (the builds are then read one by one). */
  private async list<T>(what: string, read: () => Promise<T>): Promise<T | 'refused'> {
    try {
      return await read()
    } catch (error) {
      if (error instanceof Interrupted || isTransient(error)) throw error
      this.options.logger.debug(
        `Jenkins refused ${what}: reading each build on its own instead (${errorText(error)})`
      )
      return 'refused'
    }
  }

  private async queueItem(track: number, queueId: number): Promise<void> {
    const { api, logger } = this.options
    const askedAt = this.now()
    let item: QueueItem
    try {
      item = await api.getQueueItem(queueId)
    } catch (error) {
      if (error instanceof JenkinsError && error.kind === 'not-found') {
        return this.lostQueueItem(track, queueId, askedAt)
      }
      if (!isTransient(error)) return this.fail(track, error)
      logger.debug(`Queue poll failed, trying again: ${errorText(error)}`)
      this.schedule.readFailed(track, this.now())
      return
    }
    this.tell(this.schedule.sawQueueItem(track, askedAt, this.now(), item))
  }

  /**
   * A left item is kept for 5 minutes, and none survive a restart
   * (jenkins-api.md 4): the build is found by its queue id instead.
   */
  private async lostQueueItem(track: number, queueId: number, askedAt: number): Promise<void> {
    const job = this.jobs.get(track) as JobPath
    const name = fullName(job)
    let match: { number: number } | undefined
    try {
      match = (await this.options.api.recentBuilds(job, 100)).find(b => b.queueId === queueId)
    } catch (error) {
      if (!isTransient(error)) return this.fail(track, error)
      this.schedule.readFailed(track, this.now())
      return
    }
    if (!match) {
      return this.fail(
        track,
        new JenkinsError(
          'not-found',
          `Queue item ${queueId} of ${name} is gone from Jenkins (it expires 5 minutes after leaving the queue, and on restart) and no recent build of ${name} has that queue id.`
        )
      )
    }
    const item: QueueItem = {
      id: queueId,
      executable: { number: match.number, url: this.options.api.buildUrl(job, match.number) }
    }
    this.tell(this.schedule.sawQueueItem(track, askedAt, this.now(), item))
  }

  private async build(track: number, ref: BuildRef, full: boolean): Promise<void> {
    const { api, logger } = this.options
    let build: Build
    try {
      build = await api.getBuild(ref.job, ref.number, full ? {} : { tree: POLL_TREE })
    } catch (error) {
      if (!isTransient(error)) return this.fail(track, error)
      logger.debug(`Build poll failed, trying again: ${errorText(error)}`)
      this.schedule.readFailed(track, this.now())
      return
    }
    this.tell(this.schedule.sawBuild(track, this.now(), build, full))
  }

  private fail(track: number, error: unknown): void {
    if (error instanceof Interrupted) throw error
    this.schedule.fail(track)
    this.options.hooks.failed(track, error instanceof Error ? error : new Error(String(error)))
  }

  private tell(events: TrackEvent[]): void {
    const { hooks, api } = this.options
    for (const event of events) {
      const job = this.jobs.get(event.track) as JobPath
      switch (event.kind) {
        case 'waiting':
          hooks.waiting(event.track, event.why)
          break
        case 'started':
          hooks.started(event.track, {
            job,
            number: event.number,
            url: api.buildUrl(job, event.number)
          })
          break
        case 'ended':
          hooks.ended(event.track, event.build)
          break
        case 'left-without-build': {
          const queueId = this.queueIds.get(event.track)
          hooks.failed(
            event.track,
            new JenkinsError(
              'conflict',
              event.cancelled
                ? `The queue item ${queueId} of ${fullName(job)} was cancelled in Jenkins before it started (by a user, or because the job was disabled).`
                : `Queue item ${queueId} of ${fullName(job)} left the queue without starting a build.`
            )
          )
          break
        }
      }
    }
  }
}

/** Failures worth riding out (the client already retried them). */
function isTransient(error: unknown): boolean {
  return (
    error instanceof JenkinsError &&
    !(error instanceof Interrupted) &&
    (error.kind === 'network' || error.kind === 'server' || error.kind === 'timeout')
  )
}
