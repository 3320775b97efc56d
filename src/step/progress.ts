import * as core from '@actions/core'
import type { RemoteTarget } from '../follow/cancel.js'
import { Output, State } from '../util/constants.js'
import type { BuildRef, JenkinsApi, JobPath } from '../jenkins/model/types.js'
import type { LostTrigger } from '../jenkins/transport/errors.js'
import { settleBy } from '../util/wait.js'

/**
 * What the step started in Jenkins, for cancel and timeout, and saved as
 * state for the post step (which runs in a new process, and is the only
 * safety net when the runner killed this one).
 */
export class Progress implements RemoteTarget {
  queueId?: number
  build?: BuildRef
  /** A trigger cut by the cancel, or whose answer was lost: it may have queued a build. */
  lostTrigger?: LostTrigger
  /** Whether this step started the build: a build it only reports is never stopped. */
  owned = false
  /** Jenkins merged the trigger into another request's item (303): cancel.ts leaves it alone. */
  shared = false
  /**
   * The multibranch project this step asked to scan, if it did. A scan is
   * never cancelled or stopped (cancel.ts scanLeft).
   */
  scan?: string
  private finished = false
  /** Work to let finish after the abort (a commit status), within its budget. */
  private readonly deferred: Array<Promise<unknown>> = []

  constructor(readonly job: JobPath) {}

  queued(queueId: number, shared = false): void {
    this.queueId = queueId
    this.owned = true
    this.shared = shared
    core.saveState(State.QueueId, String(queueId))
    if (shared) core.saveState(State.Shared, 'true')
    core.saveState(State.Done, 'false')
  }

  /** The build is known: its outputs are set now, so that a timeout or cancel after this still reports them. */
  started(build: BuildRef): void {
    this.build = build
    core.setOutput(Output.BuildNumber, String(build.number))
    core.setOutput(Output.BuildUrl, build.url)
    if (this.owned) core.saveState(State.BuildNumber, String(build.number))
  }

  /** A trigger may have queued a build whose queue item never came back. */
  maybeQueued(lost: LostTrigger): void {
    this.lostTrigger = lost
    this.owned = true
  }

  /** Whether anything was (or may have been) started in Jenkins. */
  get anything(): boolean {
    return this.queueId !== undefined || this.build !== undefined || this.lostTrigger !== undefined
  }

  /** Whether the main step dealt with the remote work (done() or leftRunning()). */
  get isDone(): boolean {
    return this.finished
  }

  /** The remote work needs nothing more from the post step. */
  done(): void {
    this.finished = true
    core.saveState(State.Done, 'true')
  }

  /** The step failed for another reason than cancel or timeout and leaves its work running: the post step must not stop it. */
  leftRunning(url: string): void {
    core.saveState(State.LeftRunning, url)
    this.done()
  }

  /** The queue item ended in Jenkins without a build (`shown` says how, with its link): nothing is left for the post step. */
  ended(shown: string): void {
    core.saveState(State.Ended, shown)
    this.done()
  }

  /** The step returns without waiting for the work (`wait: false` or `started`), as asked: `shown` says what runs on, with its link. */
  returned(shown: string): void {
    core.saveState(State.Returned, shown)
    this.done()
  }

  /** Lets `work` run alongside the abort; settle() waits for it. */
  defer(work: Promise<unknown>): void {
    this.deferred.push(work.catch(() => undefined))
  }

  /** Waits for deferred work, but not past `until` (epoch ms). */
  settle(until: number): Promise<void> {
    return settleBy(Promise.all(this.deferred), until)
  }
}

/** The remote work a killed main step left behind, from its saved state; undefined when there is none. */
export function savedTarget(job: JobPath, api: JenkinsApi): RemoteTarget | undefined {
  if (core.getState(State.Done) !== 'false') return undefined
  const queueId = Number(core.getState(State.QueueId)) || undefined
  const number = Number(core.getState(State.BuildNumber)) || undefined
  return {
    job,
    queueId,
    build: number === undefined ? undefined : { job, number, url: api.buildUrl(job, number) },
    shared: core.getState(State.Shared) === 'true'
  }
}
