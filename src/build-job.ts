import * as core from '@actions/core'
import type { BranchJob } from './branch.js'
import type { CommitStatusReporter } from './commit-status.js'
import { Output } from './constants.js'
import { coreLogger } from './core-logger.js'
import { BuildFollower, type EndWatch } from './follower.js'
import type { Settings } from './inputs.js'
import { JenkinsError } from './jenkins/errors.js'
import { notAJob } from './jenkins/trigger.js'
import type { Build, BuildRef, JenkinsApi, JobInfo, TriggerResult } from './jenkins/types.js'
import { ConsoleStreamer, withCommandsStopped } from './log-stream.js'
import { expectationFrom, expectationFromEstimate } from './poll-policy.js'
import type { Progress } from './progress.js'
import {
  failureMessage,
  formatDuration,
  setBuildOutputs,
  testCounts,
  writeSummary,
  type BuildOutcome
} from './report.js'
import { closestNames } from './suggest.js'
import { abortReason, StepAborted, throwIfAborted } from './wait.js'

/**
 * Triggers the job (or picks its last build), follows the build, streams its
 * console, and reports: outputs, summary, commit status. Throws when the
 * result is not accepted, with the console's last lines.
 */
export async function buildJob(
  api: JenkinsApi,
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
  api: JenkinsApi,
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
  if (settings.build === 'new') {
    const info = branch?.info ?? (await api.getJob(settings.job))
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

  let tail: string[] = []
  let final: Build
  // A triggered build can end before its first look (a short build, or a
  // slow executor hand-over): its console is still what the user asked to
  // see, and the failure message quotes its last lines.
  const showConsole = settings.log && (settings.build === 'new' || first?.building !== false)
  if (first && !first.building && !showConsole) {
    final = first
  } else if (showConsole) {
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
            return await follower.waitForEnd(ref, streamer, from)
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
    coreLogger.info(`Waiting for Jenkins build ${name} #${ref.number} to finish (log: false).`)
    final = await follower.waitForEnd(ref, undefined, from)
  }
  progress.done()
  outcome.build = final
  outcome.result = final.result ?? undefined
  outcome.tests = await testsOf(api, ref, final)
  const accepted = final.result !== null && settings.accept.includes(final.result)
  outcome.accepted = accepted
  coreLogger.info(
    `Jenkins build ${name} #${ref.number} finished: ${final.result ?? 'no result'} in ${formatDuration(final.duration)}.`
  )
  await status?.finish(
    final.result ?? 'error',
    `Jenkins #${ref.number}: ${final.result ?? 'no result'}`,
    ref.url,
    accepted
  )
  await finish(outcome, accepted, settings, progress, tail)
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
    coreLogger.debug(`Could not read test counts: ${(error as Error).message}`)
    return undefined
  }
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
