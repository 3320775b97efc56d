import type { Logger } from '../util/logger.js'
import { isCount } from '../jenkins/model/counts.js'
import type { Build, BuildRef, JenkinsApi, JobPath } from '../jenkins/model/types.js'
import type { PollPolicy } from './poll-policy.js'
import { BuildsFollower, type ConsoleFollower, type FollowHooks } from './follow-builds.js'
import { ONE_BUILD_POLICY, type EndWatch, type StartSeen } from './schedule-policy.js'

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
export interface StartedBuild extends StartSeen {
  ref: BuildRef
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

/**
 * One job's build: its queue item to its build, then the build to its end,
 * with the step's own work between the two. The polling is the one engine's (follow-builds.ts
 * with schedule.ts), on ONE_BUILD_POLICY: no lists, the build's own reads.
 */
export class BuildFollower {
  constructor(private readonly options: FollowerOptions) {}

  /** Polls the queue item until it has an executable; logs `why` as it changes. */
  async waitForStart(queueId: number): Promise<StartedBuild> {
    let started: StartedBuild | undefined
    const follower = this.follower({
      waiting: (_, why) => this.options.logger.info(`Waiting in the Jenkins queue: ${why}`),
      started: (track, ref, start) => {
        started = { ref, ...start }
        follower.drop(track)
      }
    })
    follower.addQueued(this.options.job, queueId)
    await follower.run()
    return started as StartedBuild
  }

  /**
   * Follows a build to its end and returns its final JSON. With a console
   * follower, the console polls are the end signal (Jenkins closes the log
   * after `building` turns false), so no build JSON is read while the console
   * says the build goes on.
   */
  async waitForEnd(
    ref: BuildRef,
    { console, from = {} }: { console?: ConsoleFollower; from?: EndWatch } = {}
  ): Promise<Build> {
    let final: Build | undefined
    const follower = this.follower({ ended: (_, build) => void (final = build) })
    follower.addRunning(ref, { from, console })
    await follower.run()
    return final as Build
  }

  /** The build's JSON once it started (for the estimate and for `wait: started`). */
  async describe(ref: BuildRef): Promise<Build> {
    return this.options.api.getBuild(ref.job, ref.number)
  }

  /** One build's follower: what it cannot follow further ends its run() with the error. */
  private follower(hooks: FollowHooks): BuildsFollower {
    const { api, logger, signal, policy, leftWithoutBuildMs, now } = this.options
    return new BuildsFollower({
      api,
      logger,
      signal: signal ?? new AbortController().signal,
      policy: {
        ...ONE_BUILD_POLICY,
        poll: policy ?? ONE_BUILD_POLICY.poll,
        leftWithoutBuildMs: leftWithoutBuildMs ?? ONE_BUILD_POLICY.leftWithoutBuildMs
      },
      endWithRead: true,
      now,
      hooks
    })
  }
}
