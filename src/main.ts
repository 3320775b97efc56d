import * as core from '@actions/core'
import { resolveBranch, type ScanOutput } from './follow/branch.js'
import { buildJob } from './step/build-job.js'
import { CANCEL_BUDGET_MS, TIMEOUT_BUDGET_MS } from './step/budgets.js'
import { withJobSuggestions } from './follow/build-parts.js'
import { abortRemote, onCancelSignals, scanLeft } from './follow/cancel.js'
import { Output, State } from './util/constants.js'
import { coreLogger } from './step/core-logger.js'
import { budgetClient, createClient } from './step/create-client.js'
import { getSettings, type Settings } from './inputs/inputs.js'
import { Interrupted, JenkinsError } from './jenkins/transport/errors.js'
import { fullName, queueItemUrl } from './jenkins/model/job-path.js'
import type { JenkinsApi } from './jenkins/model/types.js'
import { runJobsStep } from './multi/step.js'
import { run as runPost } from './post.js'
import { Progress } from './step/progress.js'
import { QueueItemEnded } from './follow/queue-ended.js'
import { formatDuration } from './util/duration.js'
import { coreStepIO } from './step/step-io.js'
import { resolveUploads } from './inputs/upload-files.js'
import { abortReason, StepAborted, type AbortReason } from './util/wait.js'
import { shortName } from './util/names.js'
import { errorText } from './util/error-text.js'

/** The step log, for the scan of a multibranch project. */
const scanOutput: ScanOutput = {
  ...coreLogger,
  startGroup: title => core.startGroup(title),
  endGroup: () => core.endGroup()
}

/** The action's entry point: the main step, or the post step on the second run. */
export async function run(): Promise<void> {
  if (core.getState(State.IsPost) === 'true') {
    await runPost()
    return
  }
  core.saveState(State.IsPost, 'true')
  try {
    const settings = getSettings()
    for (const warning of settings.inputWarnings) core.warning(warning)
    if (settings.jobs) await runJobsStep(settings, coreStepIO)
    else await runMain(settings)
  } catch (error) {
    // Report every thrown value, not only Error instances.
    core.setFailed(errorText(error))
    // core.setFailed sets it too; @github/local-action's stand-in for it does
    // not, and `npm run local-action` must exit with the step's status.
    process.exitCode = 1
  }
}

/**
 * One mode of the action, bounded by `timeout` and stopped by the runner's
 * cancel signals. Both fire one signal: the client's requests in flight end
 * at once and none start after it, and the abort (stop or cancel what was
 * started) runs with its own client and budget.
 */
async function runMain(settings: Settings): Promise<void> {
  // The files are checked on disk before anything is sent to Jenkins.
  const uploads = await resolveUploads(settings.files, settings.workspace)
  const started = Date.now()
  const controller = new AbortController()
  let abortedAt: number | undefined
  controller.signal.addEventListener('abort', () => (abortedAt = Date.now()), { once: true })
  const timer = setTimeout(() => controller.abort('timeout'), settings.timeoutMs)
  const removeSignalHandlers = onCancelSignals(controller, coreLogger)
  const api = createClient(
    settings,
    { deadline: started + settings.timeoutMs, signal: controller.signal },
    'quick'
  )
  const progress = new Progress(settings.job)
  try {
    if (settings.listJobs) return await listJobs(api, settings)
    // job-url is set once Jenkins has shown the job exists (build-job.ts, disableJob).
    if (settings.disable) return await disableJob(api, settings)
    const branch = settings.branch
      ? await resolveBranch({
          api,
          settings,
          out: scanOutput,
          signal: controller.signal,
          onScan: () => (progress.scan = fullName(settings.branch?.project ?? []))
        })
      : undefined
    await buildJob(api, settings, controller.signal, progress, branch, uploads)
  } catch (error) {
    // Whatever failed once the signal fired failed because of it.
    if (controller.signal.aborted || error instanceof StepAborted) {
      const reason = abortReason(controller.signal)
      const at = abortedAt ?? Date.now()
      const until = at + (reason === 'timeout' ? TIMEOUT_BUDGET_MS : CANCEL_BUDGET_MS)
      throw new Error(await abortMessage(settings, progress, error, reason, at - started, until))
    }
    if (error instanceof JenkinsError && error.kind === 'not-found' && !progress.queueId) {
      throw new Error(await withJobSuggestions(api, settings.job, error, coreLogger))
    }
    throw leavingWorkRunning(api, progress, error)
  } finally {
    clearTimeout(timer)
    removeSignalHandlers()
  }
}

/**
 * A failure that is not a cancel or timeout leaves the build running, as
 * `abort-on-cancel` promises, and says so with its link; the post step is
 * told not to stop it. A queue item that Jenkins cancelled or forgot left
 * nothing running, and that is what is said and saved.
 */
function leavingWorkRunning(api: JenkinsApi, progress: Progress, error: unknown): unknown {
  if (!progress.owned || progress.isDone) return error
  const message = errorText(error)
  if (error instanceof QueueItemEnded && !progress.build) {
    // Jenkins shows the item cancelled or gone: nothing of it runs.
    const url = queueItemUrl(api.baseUrl, error.queueId)
    progress.ended(`${error.shown}, ${url}`)
    return new Error(
      `${message.replace(/\.?$/, '.')} Nothing this step started is running in Jenkins (queue item ${error.queueId}: ${url}).`
    )
  }
  const [work, url] = progress.build
    ? [`Jenkins build #${progress.build.number} is still running`, progress.build.url]
    : [`Jenkins queue item ${progress.queueId}`, queueItemUrl(api.baseUrl, progress.queueId)]
  progress.leftRunning(url)
  return new Error(
    `${message.replace(/\.?$/, '.')} ${work}: ${url} (this step stops Jenkins work only when it is cancelled or times out).`
  )
}

async function listJobs(api: JenkinsApi, settings: Settings): Promise<void> {
  const names = await api.listJobs(settings.job)
  core.setOutput(Output.Jobs, JSON.stringify(names))
  if (settings.job.length > 0) core.setOutput(Output.JobUrl, api.jobUrl(settings.job))
  const where = settings.jobName ? `folder ${settings.jobName}` : api.baseUrl
  coreLogger.info(`${names.length} job(s) in ${where}:`)
  for (const name of names) coreLogger.info(`  ${shortName(name)}`)
}

async function disableJob(api: JenkinsApi, settings: Settings): Promise<void> {
  await api.disableJob(settings.job)
  core.setOutput(Output.JobUrl, api.jobUrl(settings.job))
  coreLogger.info(`Disabled Jenkins job ${settings.jobName} (${api.jobUrl(settings.job)}).`)
}

/** Cancels or stops what the step started (unless told not to) and says how long it waited and what it did. */
async function abortMessage(
  settings: Settings,
  progress: Progress,
  error: unknown,
  reason: AbortReason,
  waitedMs: number,
  until: number
): Promise<string> {
  const limit = formatDuration(settings.timeoutMs)
  const head =
    reason === 'timeout'
      ? `Timed out after ${formatDuration(waitedMs)} (timeout: ${limit}) waiting for Jenkins ${settings.jobName}`
      : `The workflow was cancelled while waiting for Jenkins ${settings.jobName}`
  const last = error instanceof Interrupted ? error.lastFailure?.replace(/\.$/, '') : undefined
  if (error instanceof Interrupted) {
    // What the step was waiting for when it was stopped (a hung request says how long it hung).
    if (error.sent) coreLogger.info(`${error.message}.`)
    if (error.lostTrigger && !progress.queueId) progress.maybeQueued(error.lostTrigger)
  }
  if (last && reason === 'cancelled') coreLogger.info(`Last error before the cancel: ${last}.`)
  const target = progress.build
    ? ` #${progress.build.number}`
    : progress.queueId !== undefined
      ? ` (queue item ${progress.queueId})`
      : ''
  const started = progress.anything
  const outcome = await abortOrLeave(settings, progress, until)
  // A commit status update let go alongside the abort gets what is left of its budget.
  await progress.settle(until)
  if (last && reason === 'timeout') {
    // Jenkins kept failing until the timeout: that failure is the news.
    return started
      ? `${head}${target} (last error: ${last})${outcome}`
      : `${last} (still failing at the step's timeout, ${limit})${outcome}`
  }
  return `${head}${target}${outcome}`
}

/** Stops or cancels what the step started, or says why not; the text that ends the abort message. */
async function abortOrLeave(
  settings: Settings,
  progress: Progress,
  until: number
): Promise<string> {
  if (!progress.anything) {
    progress.done()
    if (progress.scan === undefined) return '; nothing was started in Jenkins.'
    const left = scanLeft(progress.scan)
    coreLogger.info(`Jenkins: ${left}.`)
    return `; ${left}.`
  }
  if (!progress.owned || !settings.abortOnCancel) progress.done()
  if (!progress.owned) return '; left it running (this step did not start it).'
  if (!settings.abortOnCancel) return '; left the Jenkins work running (abort-on-cancel: false).'
  // The step's own client was stopped with it: the abort gets its own, bounded by its budget.
  const done = await abortRemote(
    budgetClient(settings, until),
    progress,
    coreLogger,
    undefined,
    until
  )
  // Only now: if the runner kills us before this, the post step stops the build.
  progress.done()
  coreLogger.info(`Jenkins: ${done}.`)
  return `; ${done}.`
}
