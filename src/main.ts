import * as core from '@actions/core'
import { buildJob } from './build-job.js'
import { abortRemote, onCancelSignals } from './cancel.js'
import { Output, State } from './constants.js'
import { coreLogger } from './core-logger.js'
import { createClient } from './create-client.js'
import { getSettings, type Settings } from './inputs.js'
import { JenkinsError } from './jenkins/errors.js'
import type { JenkinsApi } from './jenkins/types.js'
import { runPost } from './post.js'
import { Progress } from './progress.js'
import { formatDuration } from './report.js'
import { closestNames } from './suggest.js'
import { StepAborted } from './wait.js'

/** The action's entry point: the main step, or the post step on the second run. */
export async function run(): Promise<void> {
  if (core.getState(State.IsPost) === 'true') {
    await runPost()
    return
  }
  core.saveState(State.IsPost, 'true')
  try {
    await runMain(getSettings())
  } catch (error) {
    // Report every thrown value, not only Error instances.
    core.setFailed(error instanceof Error ? error.message : String(error))
  }
}

/** One mode of the action, bounded by `timeout` and stopped by the runner's cancel signals. */
async function runMain(settings: Settings): Promise<void> {
  const started = Date.now()
  const api = createClient(settings, started + settings.timeoutMs)
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort('timeout'), settings.timeoutMs)
  const removeSignalHandlers = onCancelSignals(controller, coreLogger)
  const progress = new Progress(settings.job)
  try {
    if (settings.listJobs) return await listJobs(api, settings)
    core.setOutput(Output.JobUrl, api.jobUrl(settings.job))
    if (settings.disable) return await disableJob(api, settings)
    await buildJob(api, settings, controller.signal, progress)
  } catch (error) {
    if (error instanceof StepAborted) {
      throw new Error(await abortMessage(settings, progress, error, Date.now() - started))
    }
    if (error instanceof JenkinsError && error.kind === 'not-found' && !progress.queueId) {
      throw new Error(await withSuggestions(api, settings, error))
    }
    throw error
  } finally {
    clearTimeout(timer)
    removeSignalHandlers()
  }
}

async function listJobs(api: JenkinsApi, settings: Settings): Promise<void> {
  const names = await api.listJobs(settings.job)
  core.setOutput(Output.Jobs, JSON.stringify(names))
  if (settings.job.length > 0) core.setOutput(Output.JobUrl, api.jobUrl(settings.job))
  const where = settings.jobName ? `folder ${settings.jobName}` : api.baseUrl
  coreLogger.info(`${names.length} job(s) in ${where}:`)
  for (const name of names) coreLogger.info(`  ${name}`)
}

async function disableJob(api: JenkinsApi, settings: Settings): Promise<void> {
  await api.disableJob(settings.job)
  coreLogger.info(`Disabled Jenkins job ${settings.jobName} (${api.jobUrl(settings.job)}).`)
}

/** A 404 on the job, with the closest job names Jenkins has. */
async function withSuggestions(
  api: JenkinsApi,
  settings: Settings,
  error: JenkinsError
): Promise<string> {
  if (settings.job.length === 0) return error.message
  try {
    const close = closestNames(settings.jobName, await api.listJobs([]))
    if (close.length)
      return `${error.message.replace(/\.?$/, '.')} Did you mean: ${close.join(', ')}?`
  } catch (listError) {
    coreLogger.debug(`Could not list jobs for suggestions: ${(listError as Error).message}`)
  }
  return error.message
}

/** Cancels or stops what the step started (unless told not to) and says how long it waited and what it did. */
async function abortMessage(
  settings: Settings,
  progress: Progress,
  aborted: StepAborted,
  waitedMs: number
): Promise<string> {
  const what =
    aborted.reason === 'timeout'
      ? `Timed out after ${formatDuration(waitedMs)} (timeout: ${formatDuration(settings.timeoutMs)}) waiting for Jenkins ${settings.jobName}`
      : `The workflow was cancelled while waiting for Jenkins ${settings.jobName}`
  const target = progress.build
    ? ` #${progress.build.number}`
    : progress.queueId !== undefined
      ? ` (queue item ${progress.queueId})`
      : ''
  if (!progress.owned || !settings.abortOnCancel) progress.done()
  if (!progress.owned) {
    return `${what}${target}; left it running (this step did not start it).`
  }
  if (!settings.abortOnCancel) {
    return `${what}${target}; left the Jenkins work running (abort-on-cancel: false).`
  }
  // The step's own deadline has passed: abort with a fresh budget.
  const done = await abortRemote(createClient(settings), progress, coreLogger)
  // Only now: if the runner kills us before this, the post step stops the build.
  progress.done()
  coreLogger.info(`Jenkins: ${done}.`)
  return `${what}${target}; ${done}.`
}
