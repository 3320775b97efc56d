import * as core from '@actions/core'
import { resolveBranch } from './follow/branch.js'
import { buildJob } from './step/build-job.js'
import {
  leavingWorkRunning,
  runBounded,
  stopWork,
  type StepRun,
  type Stopped
} from './step/bounded-step.js'
import { withJobSuggestions } from './follow/build-parts.js'
import { Output, State } from './util/constants.js'
import { getSettings, type Settings } from './inputs/inputs.js'
import { Interrupted, JenkinsError } from './jenkins/transport/errors.js'
import { fullName } from './jenkins/model/job-path.js'
import type { JenkinsApi } from './jenkins/model/types.js'
import { runJobsStep } from './multi/step.js'
import { settleCommit } from './outcome/commit-gate.js'
import { run as runPost } from './post.js'
import { formatDuration } from './util/duration.js'
import { coreStepIO } from './step/step-io.js'
import type { StepIO } from './runner/io.js'
import { resolveUploads } from './inputs/upload-files.js'
import { shortName } from './util/names.js'
import { errorText } from './util/error-text.js'

/** The action's entry point: the main step, or the post step on the second run. */
export async function run(): Promise<void> {
  if (core.getState(State.IsPost) === 'true') {
    await runPost()
    return
  }
  coreStepIO.saveState(State.IsPost, 'true')
  try {
    const settings = getSettings()
    for (const warning of settings.inputWarnings) coreStepIO.logger.warning(warning)
    if (settings.jobs) await runJobsStep(settings, coreStepIO)
    else await runMain(settings, coreStepIO)
  } catch (error) {
    // Report every thrown value, not only Error instances.
    core.setFailed(errorText(error))
    // core.setFailed sets it too; @github/local-action's stand-in for it does
    // not, and `npm run local-action` must exit with the step's status.
    process.exitCode = 1
  }
}

/** One `job` (or the list of jobs, or disabling one), bounded by `timeout` and stopped by the runner's cancel signals (runBounded). */
async function runMain(settings: Settings, io: StepIO): Promise<void> {
  // The files are checked on disk before anything is sent to Jenkins.
  const uploads = await resolveUploads(settings.files, settings.workspace)
  await runBounded(settings, io, {
    jobs: [settings.job],
    waitingFor: `Jenkins ${settings.jobName}`,
    run: async ({ api, signal, work }) => {
      // A comment command is checked, and the commit settled, before anything goes to Jenkins.
      const settled = await settleCommit(settings, { logger: io.logger, signal })
      if (settled.listJobs) return listJobs(api, settled, io)
      // job-url is set once Jenkins has shown the job exists (build-job.ts, disableJob).
      if (settled.disable) return disableJob(api, settled, io)
      const branch = settled.branch
        ? await resolveBranch({
            api,
            settings: settled,
            out: io,
            signal,
            onScan: () => work.scans.push(fullName(settled.branch?.project ?? []))
          })
        : undefined
      await buildJob({ api, settings: settled, signal, work, io, branch, uploads })
    },
    stopped: abortMessage,
    failed: async (step, error) => {
      if (error instanceof JenkinsError && error.kind === 'not-found' && !step.work.anything) {
        return new Error(await withJobSuggestions(step.api, settings.job, error, io.logger))
      }
      return leavingWorkRunning(step, error, true)
    }
  })
}

async function listJobs(api: JenkinsApi, settings: Settings, io: StepIO): Promise<void> {
  const names = await api.listJobs(settings.job)
  io.setOutput(Output.Jobs, JSON.stringify(names))
  if (settings.job.length > 0) io.setOutput(Output.JobUrl, api.jobUrl(settings.job))
  const where = settings.jobName ? `folder ${settings.jobName}` : api.baseUrl
  io.logger.info(`${names.length} job(s) in ${where}:`)
  for (const name of names) io.logger.info(`  ${shortName(name)}`)
}

async function disableJob(api: JenkinsApi, settings: Settings, io: StepIO): Promise<void> {
  await api.disableJob(settings.job)
  io.setOutput(Output.JobUrl, api.jobUrl(settings.job))
  io.logger.info(`Disabled Jenkins job ${settings.jobName} (${api.jobUrl(settings.job)}).`)
}

/** Cancels or stops what the step started (unless told not to) and says how long it waited and what it did. */
async function abortMessage(
  step: StepRun,
  { error, reason, head, until }: Stopped
): Promise<string> {
  const { settings, work } = step
  const log = step.io.logger
  const item = work.item(0)
  const last = error instanceof Interrupted ? error.lastFailure?.replace(/\.$/, '') : undefined
  // What the step was waiting for when it was stopped (a hung request says how long it hung).
  if (error instanceof Interrupted && error.sent) log.info(`${error.message}.`)
  if (last && reason === 'cancelled') log.info(`Last error before the cancel: ${last}.`)
  const target = item.ref
    ? ` #${item.ref.number}`
    : item.queueId !== undefined
      ? ` (queue item ${item.queueId})`
      : ''
  const started = work.anything || item.ref !== undefined
  const { outcome } = await stopWork(step, { log, until, single: true })
  // A commit status update let go alongside the abort gets what is left of its budget.
  await work.settle(until)
  if (last && reason === 'timeout') {
    // Jenkins kept failing until the timeout: that failure is the news.
    return started
      ? `${head}${target} (last error: ${last})${outcome}`
      : `${last} (still failing at the step's timeout, ${formatDuration(settings.timeoutMs)})${outcome}`
  }
  return `${head}${target}${outcome}`
}
