import * as core from '@actions/core'
import { downloadArtifacts } from './artifacts.js'
import type { BranchJob } from './branch.js'
import type { CommitStatusReporter } from './commit-status.js'
import { Output } from './constants.js'
import { coreLogger } from './core-logger.js'
import { BuildFollower, type EndWatch } from './follower.js'
import type { Settings } from './inputs.js'
import { JenkinsError } from './jenkins/errors.js'
import { notAJob } from './jenkins/trigger.js'
import type {
  Build,
  BuildOutputsApi,
  BuildRef,
  JenkinsApi,
  JobInfo,
  TriggerResult
} from './jenkins/types.js'
import { ConsoleStreamer, withCommandsStopped } from './log-stream.js'
import { expectationFrom, expectationFromEstimate } from './poll-policy.js'
import type { Progress } from './progress.js'
import {
  failureMessage,
  formatDuration,
  setBuildOutputs,
  writeSummary,
  type BuildOutcome
} from './report.js'
import { failedStage, isPipeline, isPipelineJob, readStages, watchForInput } from './stages.js'
import { closestNames } from './suggest.js'
import { annotateFailedTests, readTests } from './test-report.js'
import { abortReason, StepAborted, throwIfAborted } from './wait.js'

/**
 * Triggers the job (or picks its last build), follows the build, streams its
 * console, and reports: outputs, summary, commit status. Throws when the
 * result is not accepted, with the console's last lines.
 */
export async function buildJob(
  api: JenkinsApi & BuildOutputsApi,
  settings: Settings,
  signal: AbortSignal,
  progress: Progress,
  branch?: BranchJob
): Promise<void> {
  const follower = new BuildFollower({ api, job: settings.job, logger: coreLogger, signal })
  // Octokit is evaluated only when asked for (start-up cost); "eager" keeps
  // it in the one bundle file rather than a chunk of its own.
  const status = settings.commitStatus
    ? new (await import(/* webpackMode: "eager" */ './commit-status.js')).CommitStatusReporter({
        token: settings.githubToken,
        context: settings.statusContext,
        logger: coreLogger
      })
    : undefined
  try {
    await follow(api, settings, signal, progress, follower, status, branch)
  } catch (error) {
    // A status left pending would block a protected branch for good.
    if (status && !status.finished) {
      const finishing = status.finish('error', statusFailure(error, signal), progress.build?.url)
      // On cancel or timeout, stopping the build comes first: the status
      // goes alongside, within the abort's budget (main awaits it).
      if (signal.aborted) progress.defer(finishing)
      else await finishing
    }
    throw error
  }
}

async function follow(
  api: JenkinsApi & BuildOutputsApi,
  settings: Settings,
  signal: AbortSignal,
  progress: Progress,
  follower: BuildFollower,
  status: CommitStatusReporter | undefined,
  branch: BranchJob | undefined
): Promise<void> {
  const name = settings.jobName
  const outcome: BuildOutcome = { jobName: name, jobUrl: api.jobUrl(settings.job) }

  // The build's JSON when it is needed before its end (`wait: started`, or a
  // build this step did not start); a build this step follows to its end is
  // not read before it, its console says how it goes.
  let first: Build | undefined
  let from: EndWatch
  let pipeline: boolean
  if (settings.build === 'new') {
    const info = branch?.info ?? (await api.getJob(settings.job))
    pipeline = isPipelineJob(info)
    // A cancel that arrived while reading the job must not still trigger.
    throwIfAborted(signal)
    // The scan that created a branch job already queued its build: that one.
    const queued = branch?.indexingBuild
      ? indexingBuildQueued(api, info, settings, branch.indexingBuild.queueId)
      : await api.trigger(info, settings.job, settings.parameters)
    progress.queued(queued.queueId, queued.merged)
    warnUnknownParameters(
      queued.unknownParameters,
      info.parameterDefinitions.map(p => p.name),
      name
    )
    outcome.queueUrl = queued.queueUrl
    outcome.parameters = settings.parameters
    core.setOutput(Output.QueueUrl, queued.queueUrl)
    if (!branch?.indexingBuild) {
      coreLogger.info(
        queued.merged
          ? `Jenkins merged this request into an identical queued build of ${name}: ${queued.queueUrl}`
          : `Queued ${name} in Jenkins: ${queued.queueUrl}`
      )
    }
    if (settings.wait === 'queued') {
      await status?.pending(`Queued in Jenkins`, queued.queueUrl)
      outcome.note = 'Did not wait for the build to start (wait: false).'
      return finish(outcome, true, settings, progress)
    }
    const start = await follower.waitForStart(queued.queueId)
    progress.started(start.ref)
    outcome.queueWaitMs = start.queueWaitMs
    outcome.buildUrl = start.ref.url
    coreLogger.info(`Jenkins build ${name} #${start.ref.number} started: ${start.ref.url}`)
    if (settings.wait !== 'finish') first = await follower.describe(start.ref)
    from = {
      startedAt: start.seenAt,
      startSlackMs: start.startSlackMs,
      expect: expectationFrom(info.recent ?? [])
    }
  } else {
    first = await lastBuild(api, settings)
    pipeline = isPipeline(first)
    from = { startedAt: first.timestamp, expect: expectationFromEstimate(first.estimatedDuration) }
    progress.started({
      job: settings.job,
      number: first.number,
      url: api.buildUrl(settings.job, first.number)
    })
    outcome.buildUrl = progress.build?.url
    coreLogger.info(
      `${settings.build === 'last' ? 'Last' : 'Last successful'} build of ${name}: #${first.number} ${outcome.buildUrl}`
    )
  }
  const ref = progress.build as BuildRef
  outcome.build = first
  await status?.pending(`Jenkins build #${ref.number} running`, ref.url)

  if (settings.wait !== 'finish') {
    outcome.note = `Did not wait for the build to finish (wait: ${settings.wait === 'queued' ? 'false' : 'started'}).`
    return finish(outcome, true, settings, progress)
  }

  const { final, tail } = await waitForEnd(api, settings, ref, first, from, pipeline, follower)
  progress.done()
  outcome.build = final
  outcome.result = final.result ?? undefined
  const accepted = final.result !== null && settings.accept.includes(final.result)
  outcome.accepted = accepted
  coreLogger.info(
    `Jenkins build ${name} #${ref.number} finished: ${final.result ?? 'no result'} in ${formatDuration(final.duration)}.`
  )
  await readProducts(api, settings, ref, final, outcome, signal)
  await status?.finish(
    final.result ?? 'error',
    `Jenkins #${ref.number}: ${final.result ?? 'no result'}`,
    ref.url,
    accepted
  )
  await finish(outcome, accepted, settings, progress, tail)
}

/** Follows the build to its end, streaming its console unless `log` is false; the console's last lines for the failure message. */
async function waitForEnd(
  api: JenkinsApi & BuildOutputsApi,
  settings: Settings,
  ref: BuildRef,
  first: Build | undefined,
  from: EndWatch,
  pipeline: boolean,
  follower: BuildFollower
): Promise<{ final: Build; tail: string[] }> {
  const name = settings.jobName
  // A triggered build can end before its first look (a short build, or a
  // slow executor hand-over): its console is still what the user asked to
  // see, and the failure message quotes its last lines. A build this step
  // triggered has not been read (`first` is undefined): it runs.
  const building = first?.building ?? true
  const showConsole = settings.log && (building || settings.build === 'new')
  if (first && !building && !showConsole) return { final: first, tail: [] }
  // A Pipeline stopped at an `input` step would look hung: say where to answer it.
  const inputs = building && pipeline ? watchForInput(api, ref, coreLogger) : undefined
  try {
    if (!showConsole) {
      coreLogger.info(`Waiting for Jenkins build ${name} #${ref.number} to finish (log: false).`)
      return { final: await follower.waitForEnd(ref, undefined, from), tail: [] }
    }
    const streamer = new ConsoleStreamer(api, ref, {
      write: text => process.stdout.write(text),
      drained: stdoutDrained
    })
    core.startGroup(`Console of Jenkins ${name} #${ref.number}`)
    try {
      const final = await withCommandsStopped(
        text => process.stdout.write(text),
        async () => {
          try {
            return await follower.waitForEnd(ref, streamer, from)
          } finally {
            // Before commands resume: its lines must stay in the stopped region.
            inputs?.stop()
            streamer.flush()
          }
        }
      )
      return { final, tail: streamer.tail() }
    } finally {
      core.endGroup()
    }
  } finally {
    inputs?.stop()
  }
}

/**
 * What the finished build produced: its failed tests (annotated), its
 * Pipeline stages, and the artifacts the user asked for. Each is its own
 * module; reading tests and stages is a help and never fails the step.
 */
async function readProducts(
  api: JenkinsApi & BuildOutputsApi,
  settings: Settings,
  ref: BuildRef,
  final: Build,
  outcome: BuildOutcome,
  signal: AbortSignal
): Promise<void> {
  outcome.tests = await readTests(api, ref, final, coreLogger)
  if (outcome.tests)
    annotateFailedTests(outcome.tests, (message, title) => core.error(message, { title }))
  outcome.stages = await readStages(api, ref, final, coreLogger)
  outcome.failedStage = failedStage(outcome.stages, final.result)?.name
  if (settings.artifacts.length > 0) {
    outcome.artifacts = await downloadArtifacts(api, settings, ref, coreLogger, signal)
  }
}

/** A commit status description for a step that failed before the build's result was known. */
function statusFailure(error: unknown, signal: AbortSignal): string {
  if (error instanceof StepAborted || signal.aborted) {
    return abortReason(signal) === 'timeout' ? 'Timed out waiting for Jenkins' : 'Cancelled'
  }
  return error instanceof Error ? (error.message.split('\n')[0] ?? 'Failed') : 'Failed'
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
  progress: Progress,
  tail: string[] = []
): Promise<void> {
  // Whatever the step did not wait for, the user chose to leave running.
  progress.done()
  setBuildOutputs({ setOutput: (name, value) => core.setOutput(name, value) }, outcome, coreLogger)
  await writeSummary(core.summary, outcome, coreLogger)
  // A wanted artifact that is missing fails the step even when the build passed.
  const problems = outcome.artifacts?.problems ?? []
  if (!accepted) {
    const message = failureMessage({ ...outcome, accept: settings.accept }, tail)
    throw new Error([message, ...problems].join('\n'))
  }
  if (problems.length > 0) throw new Error(problems.join('\n'))
}

async function lastBuild(api: JenkinsApi, settings: Settings): Promise<Build> {
  const which = settings.build === 'last' ? 'lastBuild' : 'lastSuccessfulBuild'
  try {
    return await api.getBuild(settings.job, which)
  } catch (error) {
    if (!(error instanceof JenkinsError && error.kind === 'not-found')) throw error
    // Tell "no such job" (or not a job) from "no such build": all are 404.
    const info = await api.getJob(settings.job)
    if (info.isFolder) throw notAJob(info, settings.jobName, api.baseUrl)
    throw new JenkinsError(
      'not-found',
      `Jenkins job ${settings.jobName} has no ${settings.build === 'last' ? '' : 'successful '}build yet (build: ${settings.build}), on ${api.baseUrl}.`,
      404
    )
  }
}

/** The queue item of the build branch indexing started, in the shape of a trigger's answer. */
function indexingBuildQueued(
  api: JenkinsApi,
  info: JobInfo,
  settings: Settings,
  queueId: number
): TriggerResult {
  const defined = new Set(info.parameterDefinitions.map(definition => definition.name))
  return {
    queueId,
    queueUrl: `${api.baseUrl}/queue/item/${queueId}/`,
    merged: false,
    unknownParameters: Object.keys(settings.parameters).filter(key => !defined.has(key))
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
