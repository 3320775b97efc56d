import * as core from '@actions/core'
import type { RemoteTarget } from './cancel.js'
import { State } from './constants.js'
import type { BuildRef, JenkinsApi, JobPath } from './jenkins/types.js'

/**
 * What the step started in Jenkins, for cancel and timeout, and saved as
 * state for the post step (which runs in a new process, and is the only
 * safety net when the runner killed this one).
 */
export class Progress implements RemoteTarget {
  queueId?: number
  build?: BuildRef
  /** Whether this step started the build: a build it only reports is never stopped. */
  owned = false
  /** Jenkins merged the trigger into another request's item (303): cancel.ts leaves it alone. */
  shared = false

  constructor(readonly job: JobPath) {}

  queued(queueId: number, shared = false): void {
    this.queueId = queueId
    this.owned = true
    this.shared = shared
    core.saveState(State.QueueId, String(queueId))
    if (shared) core.saveState(State.Shared, 'true')
    core.saveState(State.Done, 'false')
  }

  started(build: BuildRef): void {
    this.build = build
    if (this.owned) core.saveState(State.BuildNumber, String(build.number))
  }

  /** The remote work needs nothing more from the post step. */
  done(): void {
    core.saveState(State.Done, 'true')
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
