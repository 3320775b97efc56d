import * as core from '@actions/core'
import { abortRemote, onCancelSignals, type RemoteTarget } from './cancel.js'
import { CommitStatusReporter } from './commit-status.js'
import { Output, State } from './constants.js'
import { BuildFollower } from './follower.js'
import { getSettings, type Settings } from './inputs.js'
import { JenkinsClient } from './jenkins/client.js'
import { JenkinsError } from './jenkins/errors.js'
import type { Build, BuildRef, JenkinsApi } from './jenkins/types.js'
import { ConsoleStreamer, withCommandsStopped } from './log-stream.js'
import type { Logger } from './logger.js'
import {
  failureMessage,
  formatDuration,
  setBuildOutputs,
  testCounts,
  writeSummary,
  type BuildOutcome
} from './report.js'
import { closestNames } from './suggest.js'
import { StepAborted, throwIfAborted } from './wait.js'

/** The action's entry point: the main step, or the post step on the second run. */
export async function run(): Promise<void> {
  if (core.getState(State.IsPost) === 'true') {
    await post()
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

const logger: Logger = {
  debug: message => core.debug(message),
  info: message => core.info(message),
  warning: message => core.warning(message)
}

function createClient(settings: Settings, deadline?: number): JenkinsClient {
  return new JenkinsClient({
    url: settings.url,
    user: settings.user,
    token: settings.token,
    logger,
    deadline
  })
}

/** What the step started in Jenkins, kept for cancel, timeout and the post step. */
class Progress implements RemoteTarget {
  queueId?: number
  build?: BuildRef
  /** Whether this step started the build: a build it only reports is never stopped. */
  owned = false
  constructor(readonly job: Settings['job']) {}

  queued(queueId: number): void {
    this.queueId = queueId
    this.owned = true
    core.saveState(State.QueueId, String(queueId))
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

async function runMain(settings: Settings): Promise<void> {
  const started = Date.now()
  const api = createClient(settings, started + settings.timeoutMs)
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort('timeout'), settings.timeoutMs)
  const removeSignalHandlers = onCancelSignals(controller, logger)
  const progress = new Progress(settings.job)
  try {
    if (settings.listJobs) return await listJobs(api, settings)
    core.setOutput(Output.JobUrl, api.jobUrl(settings.job))
    if (settings.disable) return await disableJob(api, settings)
    await buildJob(api, settings, controller.signal, progress)
  } catch (error) {
    if (error instanceof StepAborted) {
      throw new Error(await abortMessage(api, settings, progress, error, Date.now() - started))
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
  core.info(`${names.length} job(s) in ${where}:`)
  for (const name of names) core.info(`  ${name}`)
}

async function disableJob(api: JenkinsApi, settings: Settings): Promise<void> {
  await api.disableJob(settings.job)
  core.info(`Disabled Jenkins job ${settings.jobName} (${api.jobUrl(settings.job)}).`)
}

async function buildJob(
  api: JenkinsApi,
  settings: Settings,
  signal: AbortSignal,
  progress: Progress
): Promise<void> {
  const name = settings.jobName
  const follower = new BuildFollower({ api, job: settings.job, logger, signal })
  const status = settings.commitStatus
    ? new CommitStatusReporter({
        token: settings.githubToken,
        context: settings.statusContext,
        logger
      })
    : undefined
  const outcome: BuildOutcome = { jobName: name, jobUrl: api.jobUrl(settings.job) }

  let first: Build
  if (settings.build === 'new') {
    const info = await api.getJob(settings.job)
    if (info.isFolder) {
      throw new Error(
        `Jenkins item ${name} is a folder, not a job: name a job inside it (list them with list-jobs: true).`
      )
    }
    // A cancel that arrived while reading the job must not still trigger.
    throwIfAborted(signal)
    const queued = await api.trigger(info, settings.job, settings.parameters)
    progress.queued(queued.queueId)
    warnUnknownParameters(
      queued.unknownParameters,
      info.parameterDefinitions.map(p => p.name),
      name
    )
    outcome.queueUrl = queued.queueUrl
    outcome.parameters = settings.parameters
    core.setOutput(Output.QueueUrl, queued.queueUrl)
    core.info(
      queued.merged
        ? `Jenkins merged this request into an identical queued build of ${name}: ${queued.queueUrl}`
        : `Queued ${name} in Jenkins: ${queued.queueUrl}`
    )
    if (settings.wait === 'queued') {
      await status?.pending(`Queued in Jenkins`, queued.queueUrl)
      outcome.note = 'Did not wait for the build to start (wait: false).'
      return finish(outcome, true, settings)
    }
    const start = await follower.waitForStart(queued.queueId)
    progress.started(start.ref)
    outcome.queueWaitMs = start.queueWaitMs
    outcome.buildUrl = start.ref.url
    core.info(`Jenkins build ${name} #${start.ref.number} started: ${start.ref.url}`)
    first = await follower.describe(start.ref)
  } else {
    first = await lastBuild(api, settings)
    progress.started({
      job: settings.job,
      number: first.number,
      url: api.buildUrl(settings.job, first.number)
    })
    outcome.buildUrl = progress.build?.url
    core.info(
      `${settings.build === 'last' ? 'Last' : 'Last successful'} build of ${name}: #${first.number} ${outcome.buildUrl}`
    )
  }
  const ref = progress.build as BuildRef
  outcome.build = first
  await status?.pending(`Jenkins build #${ref.number} running`, ref.url)

  if (settings.wait !== 'finish') {
    outcome.note = `Did not wait for the build to finish (wait: ${settings.wait === 'queued' ? 'false' : 'started'}).`
    return finish(outcome, true, settings)
  }

  let tail: string[] = []
  let final = first
  // A triggered build can end before its first look (a short build, or a
  // slow executor hand-over): its console is still what the user asked to
  // see, and the failure message quotes its last lines.
  const showConsole = settings.log && (first.building || settings.build === 'new')
  if (first.building || showConsole) {
    if (showConsole) {
      const streamer = new ConsoleStreamer(api, ref, {
        write: text => process.stdout.write(text),
        drained: stdoutDrained
      })
      core.startGroup(`Console of Jenkins ${name} #${ref.number}`)
      try {
        final = await withCommandsStopped(
          text => process.stdout.write(text),
          async () => {
            try {
              return await follower.waitForEnd(ref, streamer, first)
            } finally {
              streamer.flush()
            }
          }
        )
      } finally {
        core.endGroup()
      }
      tail = streamer.tail()
    } else {
      core.info(`Waiting for Jenkins build ${name} #${ref.number} to finish (log: false).`)
      final = await follower.waitForEnd(ref, undefined, first)
    }
  }
  progress.done()
  outcome.build = final
  outcome.result = final.result ?? undefined
  outcome.tests = await testsOf(api, ref, final)
  const accepted = final.result !== null && settings.accept.includes(final.result)
  outcome.accepted = accepted
  core.info(
    `Jenkins build ${name} #${ref.number} finished: ${final.result ?? 'no result'} in ${formatDuration(final.duration)}.`
  )
  await status?.finish(
    final.result ?? 'error',
    `Jenkins #${ref.number}: ${final.result ?? 'no result'}`,
    ref.url,
    accepted
  )
  await finish(outcome, accepted, settings, tail)
}

/** Resolves once stdout has handed its buffered writes to the runner (or is gone). */
function stdoutDrained(): Promise<void> {
  const out = process.stdout
  if (!out.writableNeedDrain) return Promise.resolve()
  return new Promise(resolve => {
    const done = (): void => {
      out.off('drain', done).off('close', done).off('error', done)
      resolve()
    }
    out.on('drain', done).on('close', done).on('error', done)
  })
}

/** Outputs and summary; throws the failure (with the console's last lines) when the result is not accepted. */
async function finish(
  outcome: BuildOutcome,
  accepted: boolean,
  settings: Settings,
  tail: string[] = []
): Promise<void> {
  // Whatever the step did not wait for, the user chose to leave running.
  core.saveState(State.Done, 'true')
  setBuildOutputs({ setOutput: (name, value) => core.setOutput(name, value) }, outcome)
  await writeSummary(core.summary, outcome, logger)
  if (!accepted) {
    throw new Error(failureMessage({ ...outcome, accept: settings.accept }, tail))
  }
}

/** Test counts, from the final JSON or, when it only names a test action, from one narrower request. */
async function testsOf(
  api: JenkinsApi,
  ref: BuildRef,
  build: Build
): Promise<BuildOutcome['tests']> {
  const counts = testCounts(build)
  if (counts) return counts
  const hasTestAction = (build.actions ?? []).some(
    a =>
      typeof a === 'object' &&
      a !== null &&
      /TestResultAction/.test(String((a as { _class?: unknown })._class))
  )
  if (!hasTestAction) return undefined
  try {
    // Test counts are exported below depth 0 (jenkins-api.md 5.5): a tree
    // asks for just them.
    const detailed = await api.getBuild(ref.job, ref.number, {
      tree: 'actions[_class,failCount,skipCount,totalCount,urlName]'
    })
    return testCounts({ ...build, actions: detailed.actions })
  } catch (error) {
    logger.debug(`Could not read test counts: ${(error as Error).message}`)
    return undefined
  }
}

async function lastBuild(api: JenkinsApi, settings: Settings): Promise<Build> {
  const which = settings.build === 'last' ? 'lastBuild' : 'lastSuccessfulBuild'
  try {
    return await api.getBuild(settings.job, which)
  } catch (error) {
    if (!(error instanceof JenkinsError && error.kind === 'not-found')) throw error
    // Tell "no such job" from "no such build": both are 404.
    await api.getJob(settings.job)
    throw new JenkinsError(
      'not-found',
      `Jenkins job ${settings.jobName} has no ${settings.build === 'last' ? '' : 'successful '}build yet (build: ${settings.build}), on ${api.baseUrl}.`,
      404
    )
  }
}

function warnUnknownParameters(unknown: string[], defined: string[], job: string): void {
  for (const name of unknown) {
    const close = closestNames(name, defined, 1)[0]
    const hint = close
      ? ` Did you mean '${close}'?`
      : defined.length
        ? ` It defines: ${defined.join(', ')}.`
        : ' It takes no parameters.'
    core.warning(
      `Jenkins job ${job} does not define parameter '${name}'; Jenkins ignores it.${hint}`
    )
  }
}

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
    logger.debug(`Could not list jobs for suggestions: ${(listError as Error).message}`)
  }
  return error.message
}

async function abortMessage(
  api: JenkinsApi,
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
  const done = await abortRemote(createClient(settings), progress, logger)
  // Only now: if the runner kills us before this, the post step stops the build.
  progress.done()
  core.info(`Jenkins: ${done}.`)
  return `${what}${target}; ${done}.`
}

/** The post step: a safety net for a main step that was killed before it could stop its build. */
async function post(): Promise<void> {
  try {
    if (core.getState(State.Done) !== 'false') return
    const settings = getSettings()
    if (!settings.abortOnCancel) return
    const queueId = core.getState(State.QueueId)
    const number = core.getState(State.BuildNumber)
    const api = createClient(settings)
    const target: RemoteTarget = {
      job: settings.job,
      queueId: queueId ? Number(queueId) : undefined,
      build: number
        ? {
            job: settings.job,
            number: Number(number),
            url: api.buildUrl(settings.job, Number(number))
          }
        : undefined
    }
    const done = await abortRemote(api, target, logger)
    core.info(`Post step: ${done}.`)
  } catch (error) {
    core.warning(
      `Post step could not check the Jenkins build: ${error instanceof Error ? error.message : String(error)}`
    )
  }
}
