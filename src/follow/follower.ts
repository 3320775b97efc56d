import type { Logger } from '../util/logger.js'
import { isBuildNumber, isCount, shownValue } from '../jenkins/model/counts.js'
import { JenkinsError } from '../jenkins/transport/errors.js'
import { fullName } from '../jenkins/model/job-path.js'
import type { Build, BuildRef, JenkinsApi, JobPath, QueueItem } from '../jenkins/model/types.js'
import type { ConsolePoll } from './log-stream.js'
import {
  DEFAULT_POLL_POLICY,
  nextPoll,
  nextQueueDelay,
  sawBuild,
  sawConsole,
  watch,
  type Expectation,
  type NextPoll,
  type PollPolicy,
  type Watch
} from './poll-policy.js'
import { QueueItemEnded } from './queue-ended.js'
import { formatDuration } from '../util/duration.js'
import { sleep, throwIfAborted } from '../util/wait.js'
import { errorText } from '../util/error-text.js'

/** Fields polled while a build runs: enough to know whether it is over and when to look again. */
export const POLL_TREE = 'number,url,building,result,duration,estimatedDuration,timestamp,queueId'

/** Something that can stream the console; ConsoleStreamer in src/follow/log-stream.ts. */
export interface ConsoleFollower {
  /** Fetches and shows what is new. */
  poll(): Promise<ConsolePoll>
  /** Shows a line of ours among the console's. */
  notice(message: string): void
}

/** What is known of a build's start when following it to its end. */
export interface EndWatch {
  /** Epoch ms it started, as best known (default: now). */
  startedAt?: number
  /** How much earlier it may have started (ms). */
  startSlackMs?: number
  /** What the job's history says about its length. */
  expect?: Expectation
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

/** The build a queue item turned into, and when the item was queued. */
export interface StartedBuild {
  ref: BuildRef
  /** The item's `inQueueSince`: epoch ms on Jenkins' clock, to subtract from the build's `timestamp` only (queueWaitMs). */
  inQueueSince?: number
  /** When the queue first showed the build (epoch ms): it started at most startSlackMs before. */
  seenAt: number
  startSlackMs: number
}

/**
 * How long the build waited in the queue: its `timestamp` (when its run was
 * created) minus its queue item's `inQueueSince`, both read from Jenkins and
 * both on Jenkins' clock (jenkins-api.md 4, 5.2). The runner's clock is not
 * used: a Jenkins clock behind or ahead of it would inflate the wait or make
 * it 0.
 */
export function queueWaitMs(inQueueSince: number | undefined, build: Build): number | undefined {
  if (inQueueSince === undefined || !isCount(build.timestamp)) return undefined
  return Math.max(0, build.timestamp - inQueueSince)
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
    let previousAt = this.now()
    for (let attempt = 0; ; attempt++) {
      throwIfAborted(signal)
      let item: QueueItem
      const askedAt = this.now()
      try {
        item = await api.getQueueItem(queueId)
      } catch (error) {
        if (error instanceof JenkinsError && error.kind === 'not-found') {
          // A left item is kept for 5 minutes, and none survive a restart
          // (jenkins-api.md 4): find the build by its queue id instead.
          const found = await this.findByQueueId(queueId)
          if (found) return { ref: found, seenAt: askedAt, startSlackMs: askedAt - previousAt }
          throw new QueueItemEnded(
            `Queue item ${queueId} of ${name} is gone from Jenkins (it expires 5 minutes after leaving the queue, and on restart) and no recent build of ${name} has that queue id.`,
            'gone',
            queueId
          )
        }
        if (!isTransient(error)) throw error
        logger.debug(`Queue poll failed, trying again: ${errorText(error)}`)
        await sleep(nextQueueDelay(attempt, this.policy), signal)
        continue
      }
      if (item.cancelled) {
        throw new QueueItemEnded(
          `The queue item ${queueId} of ${name} was cancelled in Jenkins before it started (by a user, or because the job was disabled).`,
          'cancelled',
          queueId
        )
      }
      const executable = item.executable
      if (executable && typeof executable.number === 'number') {
        if (!isBuildNumber(executable.number)) {
          throw new JenkinsError(
            'protocol',
            `Queue item ${queueId} of ${name} started a build whose number is ${shownValue(executable.number)}: expected a whole number from 1 to ${Number.MAX_SAFE_INTEGER}.`
          )
        }
        return {
          ref: this.ref(executable.number),
          inQueueSince: isCount(item.inQueueSince) ? item.inQueueSince : undefined,
          seenAt: askedAt,
          startSlackMs: askedAt - previousAt
        }
      }
      previousAt = askedAt
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
   * Follows a build to its end and returns its final JSON. With a console
   * follower, the console polls are the end signal (Jenkins closes the log
   * after `building` turns false), so no build JSON is read while the console
   * says the build goes on; when is decided by src/follow/poll-policy.ts.
   */
  async waitForEnd(
    ref: BuildRef,
    { console, from = {} }: { console?: ConsoleFollower; from?: EndWatch } = {}
  ): Promise<Build> {
    const { api, logger, signal } = this.options
    let w: Watch = watch({
      console: console !== undefined,
      startedAt: from.startedAt ?? this.now(),
      startSlackMs: from.startSlackMs ?? 0,
      expect: from.expect
    })
    let next: NextPoll = { read: console ? 'console' : 'build', delayMs: 0 }
    // Delays run from the start of the previous poll, so that a slow answer
    // does not stretch the spacing the console's lag depends on.
    let polledAt = this.now()
    /** Why the last console read failed, while the following ones fail too. */
    let consoleError: string | undefined
    for (;;) {
      const wait = polledAt + next.delayMs - this.now()
      if (wait > 0) await sleep(wait, signal)
      throwIfAborted(signal)
      polledAt = this.now()
      try {
        if (next.read === 'give-up' && console) {
          const after = `${formatDuration(this.policy.followUpForMs)} after the build finished`
          console.notice(
            consoleError === undefined
              ? `Jenkins has not closed the console of #${ref.number} ${after}; the rest is at ${ref.url}console`
              : `Could not read the rest of the console of #${ref.number} ${after} (${consoleError}); it is at ${ref.url}console`
          )
          return await api.getBuild(ref.job, ref.number)
        }
        if (next.read === 'console' && console) {
          const poll = await console.poll()
          consoleError = undefined
          if (poll.moreData) {
            w = sawConsole(w, this.now(), poll, this.policy)
          } else {
            // The log is complete: the build is over (never stop on
            // `result` alone, a Pipeline sets it while still running).
            const build = await api.getBuild(ref.job, ref.number)
            if (!build.building) return build
            w = { ...sawBuild(w, this.now(), build), logComplete: true }
          }
        } else {
          const build = await api.getBuild(
            ref.job,
            ref.number,
            w.logComplete ? {} : { tree: POLL_TREE }
          )
          if (!build.building && (!console || w.logComplete)) {
            return console ? build : await api.getBuild(ref.job, ref.number)
          }
          w = sawBuild(w, this.now(), build)
        }
      } catch (error) {
        if (!isTransient(error)) throw error
        logger.debug(`Build poll failed, trying again: ${errorText(error)}`)
        if (console && next.read === 'console') consoleError = errorText(error)
        if (console && next.read === 'console' && w.endSeenAt === undefined) {
          // A console that keeps failing (a proxy that stalls it) would
          // otherwise hide the end until the timeout: the build JSON says
          // whether the build is over, and then the end's follow-up applies
          // (the rest of the console read promptly, given up after a bound).
          w = await this.endFromBuild(ref, w)
        }
        next = nextPoll(w, polledAt, this.policy)
        next = { ...next, delayMs: Math.max(next.delayMs, this.policy.nearMs) }
        continue
      }
      next = nextPoll(w, polledAt, this.policy)
    }
  }

  /** After a failed console read: the build read's news, and the end as seen if it is over. */
  private async endFromBuild(ref: BuildRef, w: Watch): Promise<Watch> {
    try {
      const build = await this.options.api.getBuild(ref.job, ref.number, { tree: POLL_TREE })
      const seen = sawBuild(w, this.now(), build)
      return build.building ? seen : { ...seen, endSeenAt: this.now(), endConfirmed: true }
    } catch (error) {
      if (!isTransient(error)) throw error
      return w
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
