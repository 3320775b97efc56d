import type { Logger } from './logger.js'
import { JenkinsError } from './jenkins/errors.js'
import { fullName } from './jenkins/job-path.js'
import type { Build, BuildRef, JenkinsApi, JobPath, QueueItem } from './jenkins/types.js'
import {
  DEFAULT_POLL_POLICY,
  nextPollDelay,
  nextQueueDelay,
  type PollPolicy
} from './poll-policy.js'
import { sleep, throwIfAborted } from './wait.js'

/** Fields polled while a build runs: enough to know whether it is over and when to look again. */
export const POLL_TREE = 'number,url,building,result,duration,estimatedDuration,timestamp,queueId'

/** Something that can stream the console; ConsoleStreamer in src/log-stream.ts. */
export interface ConsoleFollower {
  /** Fetches what is new; false once the console is complete. */
  poll(): Promise<boolean>
}

export interface FollowerOptions {
  api: JenkinsApi
  job: JobPath
  logger: Logger
  /** Fires on cancel or timeout; waits end with StepAborted. */
  signal?: AbortSignal
  policy?: PollPolicy
  /** How long a queue item may stay "left" without a build before we give up (ms). */
  leftWithoutBuildMs?: number
  now?: () => number
}

/** The build a queue item turned into, and how long it waited. */
export interface StartedBuild {
  ref: BuildRef
  queueWaitMs?: number
}

/** Transient failures worth riding out while following (the client already retried them). */
function isTransient(error: unknown): boolean {
  return (
    error instanceof JenkinsError &&
    (error.kind === 'network' || error.kind === 'server' || error.kind === 'timeout')
  )
}

/**
 * Follows one queue item to its build, and one build to its end.
 *
 * It never guesses the build from `lastBuild` when a queue item is known:
 * with concurrent triggers that is how other actions end up reporting
 * someone else's build.
 */
export class BuildFollower {
  private readonly policy: PollPolicy
  private readonly now: () => number

  constructor(private readonly options: FollowerOptions) {
    this.policy = options.policy ?? DEFAULT_POLL_POLICY
    this.now = options.now ?? Date.now
  }

  /** Polls the queue item until it has an executable; logs `why` as it changes. */
  async waitForStart(queueId: number): Promise<StartedBuild> {
    const { api, job, logger, signal } = this.options
    const name = fullName(job)
    let lastWhy: string | undefined
    let leftAt: number | undefined
    for (let attempt = 0; ; attempt++) {
      throwIfAborted(signal)
      let item: QueueItem
      try {
        item = await api.getQueueItem(queueId)
      } catch (error) {
        if (error instanceof JenkinsError && error.kind === 'not-found') {
          // A left item is kept for 5 minutes, and none survive a restart
          // (jenkins-api.md 4): find the build by its queue id instead.
          const found = await this.findByQueueId(queueId)
          if (found) return { ref: found }
          throw new JenkinsError(
            'not-found',
            `Queue item ${queueId} of ${name} is gone from Jenkins (it expires 5 minutes after leaving the queue, and on restart) and no recent build of ${name} has that queue id.`
          )
        }
        if (!isTransient(error)) throw error
        logger.debug(`Queue poll failed, trying again: ${(error as Error).message}`)
        await sleep(nextQueueDelay(attempt, this.policy), signal)
        continue
      }
      if (item.cancelled) {
        throw new JenkinsError(
          'conflict',
          `The queue item ${queueId} of ${name} was cancelled in Jenkins before it started (by a user, or because the job was disabled).`
        )
      }
      const executable = item.executable
      if (executable && typeof executable.number === 'number') {
        const queueWaitMs =
          typeof item.inQueueSince === 'number'
            ? Math.max(0, this.now() - item.inQueueSince)
            : undefined
        return { ref: this.ref(executable.number), queueWaitMs }
      }
      if (item.why && item.why !== lastWhy) {
        logger.info(`Waiting in the Jenkins queue: ${item.why}`)
        lastWhy = item.why
      }
      if (item._class?.endsWith('$LeftItem') || (item.why == null && item.executable === null)) {
        // The run is being created (briefly), or was never created (e.g. the
        // job was disabled after queuing): give it a bounded while.
        leftAt ??= this.now()
        if (this.now() - leftAt > (this.options.leftWithoutBuildMs ?? 60_000)) {
          throw new JenkinsError(
            'protocol',
            `Queue item ${queueId} of ${name} left the queue without starting a build.`
          )
        }
      }
      await sleep(nextQueueDelay(attempt, this.policy), signal)
    }
  }

  /**
   * Polls until `building` is false and returns the final build JSON. With a
   * console follower, the console requests double as the end signal (a
   * complete log means the build is ending), so nothing else is polled
   * while it runs.
   */
  async waitForEnd(ref: BuildRef, console?: ConsoleFollower, first?: Build): Promise<Build> {
    const { api, logger, signal } = this.options
    let startedAt = first?.timestamp ?? this.now()
    let estimated = first?.estimatedDuration ?? -1
    let logComplete = console === undefined
    for (;;) {
      throwIfAborted(signal)
      try {
        if (!logComplete && console) {
          logComplete = !(await console.poll())
          if (!logComplete) {
            await sleep(nextPollDelay(startedAt, estimated, this.now(), this.policy), signal)
            continue
          }
        }
        // Never stop on `result` alone: a Pipeline sets it while still
        // running (jenkins-api.md 5.2). Only `building: false` is the end.
        const build = await api.getBuild(
          ref.job,
          ref.number,
          logComplete && console ? {} : { tree: POLL_TREE }
        )
        if (!build.building) {
          return console ? build : await api.getBuild(ref.job, ref.number)
        }
        startedAt = build.timestamp || startedAt
        estimated = build.estimatedDuration ?? estimated
      } catch (error) {
        if (!isTransient(error)) throw error
        logger.debug(`Build poll failed, trying again: ${(error as Error).message}`)
      }
      // After the log completed the build is finishing: poll fast.
      const delay =
        logComplete && console
          ? this.policy.fastMs
          : nextPollDelay(startedAt, estimated, this.now(), this.policy)
      await sleep(delay, signal)
    }
  }

  /** The build's JSON once it started (for the estimate and for `wait: started`). */
  async describe(ref: BuildRef): Promise<Build> {
    return this.options.api.getBuild(ref.job, ref.number)
  }

  private ref(number: number): BuildRef {
    const { api, job } = this.options
    return { job, number, url: api.buildUrl(job, number) }
  }

  private async findByQueueId(queueId: number): Promise<BuildRef | undefined> {
    const builds = await this.options.api.recentBuilds(this.options.job, 100)
    const match = builds.find(b => b.queueId === queueId)
    return match ? this.ref(match.number) : undefined
  }
}
