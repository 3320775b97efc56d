import { once } from 'node:events'
import { Interrupted, JenkinsError, unlessNotFound } from '../jenkins/transport/errors.js'
import { fullName } from '../jenkins/model/job-path.js'
import type { Build, BuildRef, JobPath, PipelineRun } from '../jenkins/model/types.js'
import type { BuildOutputsApi, JenkinsApi } from '../jenkins/client.js'
import type { Logger } from '../util/logger.js'
import { abortReason, sleep, StepAborted } from '../util/wait.js'
import {
  DEFAULT_SCHEDULE_POLICY,
  SharedSchedule,
  type ConsoleFollower,
  type FollowedParts,
  type SchedulePolicy,
  type ScheduledRead,
  type StartSeen,
  type TrackEvent
} from './schedule.js'
import { buildNumberByQueueId, QueueItemEnded } from './queue-ended.js'
import { buildRef } from './build-parts.js'
import { formatDuration } from '../util/duration.js'
import { errorText } from '../util/error-text.js'

/** Fields polled while a build runs: enough to know whether it is over and when to look again. */
const POLL_TREE = 'number,url,building,result,duration,estimatedDuration,timestamp,queueId'

/** What the follower tells about each build, by the id `add…` returned. Called in order, never concurrently. */
interface FollowHooks {
  /** The item waits in the queue, for this (Jenkins' text, untrusted). */
  waiting(track: number, why: string): void
  started(track: number, ref: BuildRef, start: StartSeen): void
  /** The build ended: its full, final JSON. */
  ended(track: number, build: Build): void
  /** It cannot be followed further (cancelled in the queue, gone, refused). */
  failed(track: number, error: Error): void
  /** A running Pipeline's stages, looked at for a pending `input` (added with `inputs`). */
  inputs(track: number, run: PipelineRun): void
}

export interface BuildsFollowerOptions {
  api: JenkinsApi & Pick<BuildOutputsApi, 'describeRun'>
  hooks: FollowHooks
  logger: Logger
  /** Fires on cancel or timeout: run() ends with StepAborted. */
  signal: AbortSignal
  policy?: SchedulePolicy
}

/** How long a list read may retry before the round gives up on it (ms): the next round is better. */
const LIST_READ_MS = 10_000

/**
 * Follows builds, one or several at once, with one client: carries out the
 * reads the schedule (schedule.ts) asks for, those of one moment
 * concurrently, and tells the hooks what they showed. A list Jenkins
 * refuses is dropped (said in the debug log); a read that failed on the way
 * is tried again.
 *
 * It never guesses a build from `lastBuild` when a queue item is known:
 * with concurrent triggers that is how other actions end up reporting
 * someone else's build.
 */
export class BuildsFollower {
  private readonly schedule: SharedSchedule
  private readonly policy: SchedulePolicy
  private readonly inFlight = new Set<Promise<void>>()
  private wakeUp: (() => void) | undefined
  /** Work of the step's that may add reads (a console to drain): run() waits for it. */
  private readonly holds = new Set<Promise<void>>()
  private failure: unknown
  /** What a read in flight threw once the step was stopped. */
  private cut: unknown

  constructor(private readonly options: BuildsFollowerOptions) {
    this.policy = options.policy ?? DEFAULT_SCHEDULE_POLICY
    this.schedule = new SharedSchedule(
      (job, number) => buildRef(options.api, job, number),
      this.policy
    )
  }

  /** Follows a queue item to its build and the build to its end; returns its id for the hooks. */
  addQueued(job: JobPath, queueId: number, parts: Omit<FollowedParts, 'console'> = {}): number {
    const id = this.schedule.addQueued(job, queueId, Date.now(), parts)
    this.wakeUp?.()
    return id
  }

  /**
   * Follows a build known to run to its end: as read (`build`), or as known
   * of its start (`from`); with a `console`, its console polls are the end
   * signal (Jenkins closes the log after `building` turns false), so no
   * build JSON is read while the console says the build goes on.
   */
  addRunning(ref: BuildRef, parts: Omit<FollowedParts, 'consoleOf'>): number {
    const id = this.schedule.addRunning(ref, Date.now(), parts)
    this.wakeUp?.()
    return id
  }

  /**
   * Reads the console of a build that ended to its end (until Jenkins
   * closes it, or followUpForMs, said in it); rejects with what kept it
   * from being read. Needs run() to be running (hold() the work that calls it).
   */
  drain(ref: BuildRef, console: ConsoleFollower): Promise<void> {
    return new Promise((resolve, reject) => {
      const track = this.schedule.track(this.schedule.addDrain(ref, Date.now(), console))
      track.drained = { resolve, reject }
      this.wakeUp?.()
    })
  }

  /** run() does not end before `work` settled (it may drain a console). */
  hold(work: Promise<unknown>): void {
    const held: Promise<void> = work
      .catch(() => undefined)
      .then(() => {
        this.holds.delete(held)
        this.wakeUp?.()
      })
    this.holds.add(held)
  }

  /** Stops following one build. */
  drop(id: number): void {
    this.schedule.drop(id)
    this.wakeUp?.()
  }

  /** Looks at a build the step just told to stop, and keeps looking until it ended. */
  expedite(id: number): void {
    this.schedule.expedite(id, Date.now())
    this.wakeUp?.()
  }

  /** Runs until no build is followed; on cancel or timeout throws what the read in flight threw, or StepAborted. */
  async run(): Promise<void> {
    const { signal } = this.options
    for (;;) {
      if (signal.aborted) {
        // It ends with what the reads in flight threw (the client's Interrupted:
        // what the step was waiting for, and the failure it was waiting out), else StepAborted.
        await Promise.allSettled([...this.inFlight])
        throw this.cut ?? new StepAborted(abortReason(signal))
      }
      if (this.failure !== undefined) throw this.failure
      const { reads, nextAt } = this.schedule.due(Date.now())
      for (const read of reads) this.launch(read)
      if (!this.schedule.active && this.inFlight.size === 0 && this.holds.size === 0) break
      if (reads.length > 0) continue
      await this.wait(nextAt === undefined ? undefined : nextAt - Date.now())
    }
    if (this.policy.rounds && !this.schedule.usesRunningList) {
      const why = 'Jenkins did not show them in computer/api/json'
      this.options.logger.debug(`Followed the builds one by one: ${why}.`)
    }
  }

  // ---------------------------------------------------------------------------

  /** Until `ms` passed, a read ended, something was added, or the signal fired. */
  private async wait(ms: number | undefined): Promise<void> {
    const woken = new AbortController()
    this.wakeUp = () => woken.abort()
    const signal = AbortSignal.any([this.options.signal, woken.signal])
    const until = ms === undefined ? once(signal, 'abort') : sleep(Math.max(0, ms), signal)
    await until.catch(() => undefined)
    this.wakeUp = undefined
  }

  private launch(read: ScheduledRead): void {
    const work = this.perform(read)
      .catch(error => {
        // A read cut by the cancel is the cancel's business (run() throws it).
        if (this.options.signal.aborted) {
          if (!isTransient(error)) this.cut ??= error
          return
        }
        this.failure ??= error
      })
      .finally(() => {
        this.inFlight.delete(work)
        this.wakeUp?.()
      })
    this.inFlight.add(work)
  }

  private async perform(read: ScheduledRead): Promise<void> {
    switch (read.kind) {
      case 'round':
        return this.round(read)
      case 'queue-item':
        return this.queueItem(read.track, read.queueId)
      case 'build':
        return this.build(read.track, read.ref, read)
      case 'console':
        return this.console(read.track)
      case 'give-up':
        return this.giveUp(read.track, read.ref)
      case 'inputs':
        return this.inputs(read.track, read.ref)
    }
  }

  /** A look at a running Pipeline's stages for a pending input; one that fails is tried at the next look. */
  private async inputs(track: number, ref: BuildRef): Promise<void> {
    const { api, logger, hooks } = this.options
    const run = await api.describeRun(ref).catch((error: unknown) => {
      if (error instanceof Interrupted) throw error
      logger.debug(`Could not look for a pending input: ${errorText(error)}`)
      return 'failed' as const
    })
    this.schedule.sawInputs(track, Date.now(), { more: run !== undefined })
    if (run && run !== 'failed') hooks.inputs(track, run)
  }

  private async round({ queue, running }: { queue: boolean; running: boolean }): Promise<void> {
    const { api, logger } = this.options
    const sentAt = Date.now()
    const seen: Parameters<SharedSchedule['sawRound']>[2] = {}
    try {
      // The queue first: an item that leaves it meanwhile is on its executor by the second read.
      if (queue) seen.queue = await this.list('the queue (queue/api/json)', api.getQueue())
      if (running) {
        const read = api.runningBuilds({ deadline: Date.now() + LIST_READ_MS })
        seen.running = await this.list('the running builds (computer/api/json)', read)
      }
    } catch (error) {
      if (!isTransient(error)) throw error
      logger.debug(`A look at the builds failed, trying again: ${errorText(error)}`)
      this.schedule.roundFailed(Date.now())
      return
    }
    this.tell(this.schedule.sawRound(sentAt, Date.now(), seen))
  }

  /** A list, or 'refused' when Jenkins will not give it (the builds are then read one by one). */
  private list<T>(what: string, read: Promise<T>): Promise<T | 'refused'> {
    return read.catch((error: unknown) => {
      if (error instanceof Interrupted || isTransient(error)) throw error
      this.options.logger.debug(
        `Jenkins refused ${what}: reading each build on its own instead (${errorText(error)})`
      )
      return 'refused' as const
    })
  }

  /**
   * What a track's own read gives; undefined when it failed: on the way
   * (`said` in the debug log, then tried again: schedule.ts readFailed), or
   * for good (the track fails).
   */
  private attempt<T>(track: number, read: Promise<T>, said?: string): Promise<T | undefined> {
    return read.catch((error: unknown) => {
      if (!isTransient(error)) return this.fail(track, error)
      if (said) this.options.logger.debug(`${said}, trying again: ${errorText(error)}`)
      this.schedule.readFailed(track, Date.now())
      return undefined
    })
  }

  private async queueItem(track: number, queueId: number): Promise<void> {
    const askedAt = Date.now()
    const { api } = this.options
    const item = await this.attempt(
      track,
      unlessNotFound(api.getQueueItem(queueId), null),
      'Queue poll failed'
    )
    if (item !== null) {
      if (item) this.tell(this.schedule.sawQueueItem(track, askedAt, Date.now(), item))
      return
    }
    // A left item is kept for 5 minutes, and none survive a restart
    // (jenkins-api.md 4): the build is found by its queue id instead.
    const { job } = this.schedule.track(track)
    const byQueueId = buildNumberByQueueId(api, job, queueId).then(found => found ?? null)
    const number = await this.attempt(track, byQueueId)
    if (number === undefined) return
    if (number === null) {
      const name = fullName(job)
      return this.fail(
        track,
        new QueueItemEnded(
          `Queue item ${queueId} of ${name} is gone from Jenkins (it expires 5 minutes after leaving the queue, and on restart) and no recent build of ${name} has that queue id.`,
          'gone',
          queueId
        )
      )
    }
    const found = { id: queueId, executable: { number } }
    this.tell(this.schedule.sawQueueItem(track, askedAt, Date.now(), found))
  }

  private async build(track: number, ref: BuildRef, { full }: { full: boolean }): Promise<void> {
    const { api } = this.options
    const read = api.getBuild(ref.job, ref.number, full ? {} : { tree: POLL_TREE })
    const build = await this.attempt(track, read, 'Build poll failed')
    if (build) this.tell(this.schedule.sawBuild(track, Date.now(), { build, full }))
  }

  private async console(track: number): Promise<void> {
    const followed = this.schedule.track(track)
    // A console read is scheduled only for a build followed with its console.
    const { console } = followed
    if (!console) return
    const read = console.poll().catch((error: unknown) => {
      followed.consoleError = errorText(error)
      throw error
    })
    const poll = await this.attempt(track, read, 'Build poll failed')
    if (!poll) return
    followed.consoleError = undefined
    this.tell(this.schedule.sawConsole(track, Date.now(), poll))
  }

  /** Jenkins has not closed the console of the finished build in time: said in it, then the build's final JSON (a drain: nothing more). */
  private async giveUp(track: number, ref: BuildRef): Promise<void> {
    const { console, consoleError, drained } = this.schedule.track(track)
    console?.notice(consoleLeftOpen(ref, this.policy.poll.followUpForMs, consoleError))
    if (!drained) return this.build(track, ref, { full: true })
    this.schedule.drop(track)
    drained.resolve()
  }

  /** The track cannot be followed further: told to the drain or the hook. */
  private fail(track: number, error: unknown): undefined {
    if (error instanceof Interrupted) throw error
    this.schedule.drop(track)
    const lost = error instanceof Error ? error : new Error(String(error))
    const { drained } = this.schedule.track(track)
    if (drained) drained.reject(lost)
    else this.options.hooks.failed(track, lost)
  }

  private tell(events: TrackEvent[]): void {
    const { hooks } = this.options
    for (const event of events) {
      const followed = this.schedule.track(event.track)
      const { job } = followed
      switch (event.kind) {
        case 'waiting':
          hooks.waiting(event.track, event.why)
          break
        case 'started': {
          const { ref, seenAt, startSlackMs, inQueueSince } = event
          hooks.started(event.track, ref, { seenAt, startSlackMs, inQueueSince })
          // After the hook, which says the start before the console opens; before the first read.
          if (this.schedule.active) followed.console ??= followed.parts.consoleOf?.(ref)
          break
        }
        case 'drained':
          followed.drained?.resolve()
          break
        case 'ended':
          hooks.ended(event.track, event.build)
          break
        case 'left-without-build': {
          const name = fullName(job)
          this.fail(
            event.track,
            event.cancelled
              ? new QueueItemEnded(
                  `The queue item ${event.queueId} of ${name} was cancelled in Jenkins before it started (by a user, or because the job was disabled).`,
                  'cancelled',
                  event.queueId
                )
              : new JenkinsError(
                  'protocol',
                  `Queue item ${event.queueId} of ${name} left the queue without starting a build.`
                )
          )
          break
        }
      }
    }
  }
}

/** Said in a finished build's console that Jenkins kept open past followUpForMs (`error`: why its last reads failed). */
function consoleLeftOpen(ref: BuildRef, followUpForMs: number, error?: string): string {
  const after = `${formatDuration(followUpForMs)} after the build finished`
  return error === undefined
    ? `Jenkins has not closed the console of #${ref.number} ${after}; the rest is at ${ref.url}console`
    : `Could not read the rest of the console of #${ref.number} ${after} (${error}); it is at ${ref.url}console`
}

/** Failures worth riding out (the client already retried them). */
function isTransient(error: unknown): boolean {
  return error instanceof JenkinsError && ['network', 'server', 'timeout'].includes(error.kind)
}
