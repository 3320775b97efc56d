/**
 * A build begins: the one path from a job read to a queued build, and from
 * a queue item to a started build, for every item of the step (run-builds.ts).
 * Each records what it learnt in the step's record of remote work (the post
 * step's safety net) and in the build's outcome, and says it in the log. Its
 * twin for the end is build-ended.ts.
 */
import type { BranchJob } from '../follow/branch.js'
import { historyOf } from '../outcome/history.js'
import type { CommitStatusReporter } from '../outcome/commit-status.js'
import type { BuildReport } from '../outcome/report.js'
import { queueItemUrl } from '../jenkins/model/job-path.js'
import type { BuildMode } from '../inputs/input-values.js'
import type { JobEntry } from '../inputs/jobs-input.js'
import { isCount } from '../jenkins/model/counts.js'
import type { Build, BuildRef, JobInfo, TriggerResult } from '../jenkins/model/types.js'
import { Interrupted } from '../jenkins/transport/errors.js'
import type { UploadFile } from '../jenkins/transport/multipart.js'
import { unknownParameters } from '../jenkins/trigger/trigger.js'
import type { Logger } from '../util/logger.js'
import { closestNames } from '../util/suggest.js'
import type { StepRun } from './bounded-step.js'

/** One item of the step (the `job`, or one of `jobs`): its item of the record of remote work, its job, its report, its commit status. */
export interface StepItem {
  index: number
  entry: JobEntry
  /** What is learnt goes in its outcome. */
  report: BuildReport
  status?: CommitStatusReporter
  /** What it failed with before a result, as thrown. */
  failure?: unknown
}

/**
 * Triggers the build (or takes the one the scan that created the branch job
 * queued) and records its queue item. A trigger whose answer the cancel
 * cut is recorded as one that may have queued a build, for the abort to
 * find.
 */
export async function queueBuild(
  { api, work }: StepRun,
  log: Logger,
  { index, entry: { job, parameters }, report: { outcome } }: StepItem,
  { info, branch, uploads }: { info: JobInfo; branch?: BranchJob; uploads: readonly UploadFile[] }
): Promise<TriggerResult> {
  const name = outcome.jobName
  const indexing = branch?.indexingBuild
  // The scan's build has no files: with files, this step triggers its own.
  if (indexing && uploads.length > 0) {
    log.warning(
      `The scan that created ${name} also queued a build of it without the files (queue item ${indexing.queueId}); this step triggers its own with them and leaves that one alone.`
    )
  }
  if (info.history) outcome.history = historyOf(info.history, n => api.buildUrl(job, n))
  // The queue item of the build branch indexing started counts as merged
  // (shared): every run that scanned for the branch follows this one build,
  // and Jenkins cannot say which do (the build carries one
  // BranchIndexingCause whoever asked for the scan: branch-api's
  // MultiBranchProject.scheduleBuild), so no run stops it.
  const queued: TriggerResult =
    indexing && uploads.length === 0
      ? {
          queueId: indexing.queueId,
          queueUrl: queueItemUrl(api.baseUrl, indexing.queueId),
          merged: true,
          unknownParameters: unknownParameters(info, parameters)
        }
      : await api.trigger(info, job, parameters, uploads).catch((error: unknown) => {
          if (error instanceof Interrupted && error.lostTrigger) {
            work.maybeQueued(index, error.lostTrigger)
          }
          throw error
        })
  work.queued(index, queued.queueId, queued.merged)
  // Each parameter the job does not define (Jenkins drops it silently), with the closest name it has.
  const defined = info.parameterDefinitions.map(p => p.name)
  for (const unknown of queued.unknownParameters) {
    const close = closestNames(unknown, defined, 1)[0]
    const hint = close
      ? ` Did you mean '${close}'?`
      : defined.length
        ? ` It defines: ${defined.join(', ')}.`
        : ' It takes no parameters.'
    log.warning(
      `Jenkins job ${name} does not define parameter '${unknown}'; Jenkins ignores it.${hint}`
    )
  }
  outcome.queueUrl = queued.queueUrl
  outcome.parameters = parameters
  if (uploads.length > 0) outcome.uploads = uploads
  if (!indexing) {
    log.info(
      queued.merged
        ? `Jenkins merged this request into an identical queued build of ${name}: ${queued.queueUrl}`
        : `Queued ${name} in Jenkins: ${queued.queueUrl}`
    )
  }
  return queued
}

/**
 * The item's build is known: the one it queued has started (`mode`
 * undefined), or one it follows but did not start (`build: last`, a number
 * or URL, or the build a given queue item became): recorded (the latter
 * never as the step's to stop: it queued nothing) and said. Its pending
 * status, unless the step does not wait for its end (then its hand-off is
 * the one pending status: returned).
 */
export function buildKnown(
  { work, settings }: StepRun,
  log: Logger,
  { index, report: { outcome }, status }: StepItem,
  ref: BuildRef,
  mode?: Exclude<BuildMode, 'new'>
): Promise<void> | undefined {
  work.started(index, ref)
  outcome.buildUrl = ref.url
  const name = outcome.jobName
  if (mode === undefined) {
    // A build a branch scan started may already be among the job's builds.
    outcome.history &&= outcome.history.filter(h => h.number < ref.number)
    log.info(`Jenkins build ${name} #${ref.number} started: ${ref.url}`)
  } else {
    log.info(
      mode === 'given'
        ? `Following build #${ref.number} of ${name}: ${ref.url}`
        : `${mode === 'last' ? 'Last' : 'Last successful'} build of ${name}: #${ref.number} ${ref.url}`
    )
  }
  if (settings.wait !== 'finish') return undefined
  return status?.pending(`Jenkins build #${ref.number} running`, ref.url)
}

/**
 * How long the build waited in the queue: its `timestamp` (when its run was
 * created) minus its queue item's `inQueueSince`, both on Jenkins' clock
 * (jenkins-api.md 4, 5.2): a Jenkins clock behind or ahead of the runner's
 * would inflate the wait or make it 0.
 */
export function queueWaitMs(inQueueSince: number | undefined, build: Build): number | undefined {
  if (inQueueSince === undefined || !isCount(build.timestamp)) return undefined
  return Math.max(0, build.timestamp - inQueueSince)
}
