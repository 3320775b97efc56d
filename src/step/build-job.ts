import type { BranchJob } from '../follow/branch.js'
import { lastBuild, statusFailure } from '../follow/build-parts.js'
import { buildStarted, existingBuild, queueBuild, type StepItem } from './build-begun.js'
import { judgeEnd, reportEnded } from './build-ended.js'
import type { CommitStatusReporter } from '../outcome/commit-status.js'
import { GithubReports } from '../outcome/github-reports.js'
import { Output } from '../util/constants.js'
import { BuildFollower, queueWaitMs } from '../follow/follower.js'
import type { EndWatch } from '../follow/schedule-policy.js'
import type { Settings } from '../inputs/inputs.js'
import type { Build, BuildOutputsApi, BuildRef, JenkinsApi } from '../jenkins/model/types.js'
import type { UploadFile } from '../jenkins/transport/multipart.js'
import { ConsoleStreamer, withCommandsStopped } from '../follow/log-stream.js'
import { expectationFrom, expectationFromEstimate } from '../follow/poll-policy.js'
import type { RemoteWork } from './remote-work.js'
import {
  failureMessage,
  productProblems,
  writeSummary,
  type BuildOutcome
} from '../outcome/report.js'
import { setBuildOutputs } from '../outcome/build-outputs.js'
import { readHistory } from '../outcome/history.js'
import { isPipeline, isPipelineJob, readStages, watchForInput } from '../outcome/stages.js'
import type { StepIO } from '../runner/io.js'
import { resolveGivenBuild } from '../follow/given-build.js'
import type { StepBounds } from '../util/request-bounds.js'
import { throwIfAborted } from '../util/wait.js'

/**
 * Triggers the job (or picks its last build), follows the build, streams its
 * console, and reports: outputs, summary, commit status, pull request
 * comment. Throws when the result is not accepted, with the console's last
 * lines.
 */
export async function buildJob(options: BuildJobOptions): Promise<void> {
  const { api, settings, signal, work, io } = options
  const follower = new BuildFollower({ api, job: settings.job, logger: io.logger, signal })
  const reports = await GithubReports.start({
    settings,
    logger: io.logger,
    setOutput: (name, value) => io.setOutput(name, value),
    redact: text => io.redact(text),
    reportName: settings.statusContext,
    bounds: options.githubBounds
  })
  const status = settings.commitStatus ? await reports.status(settings.statusContext) : undefined
  const outcome: BuildOutcome = { jobName: settings.jobName, jobUrl: api.jobUrl(settings.job) }
  try {
    await follow({ ...options, uploads: options.uploads ?? [], follower, status, outcome, reports })
  } catch (error) {
    // A status left pending would block a protected branch for good; a
    // comment left "running" would mislead the same way.
    const finishing: Promise<unknown>[] = []
    if (status && !status.finished) {
      finishing.push(status.finish('error', statusFailure(error, signal), work.item(0).ref?.url))
    }
    if (!reports.finished) {
      finishing.push(reports.show([{ outcome, error: statusFailure(error, signal) }], true))
    }
    // On cancel or timeout, stopping the build comes first: the reports
    // go alongside, within the abort's budget (main awaits them).
    if (signal.aborted) work.defer(Promise.all(finishing))
    else await Promise.all(finishing)
    throw error
  }
}

/** What one job's build is triggered, followed and reported with. */
export interface BuildJobOptions {
  api: JenkinsApi & BuildOutputsApi
  settings: Settings
  /** Fires on cancel or timeout. */
  signal: AbortSignal
  /** The bounds of its GitHub requests (runBounded). */
  githubBounds: StepBounds
  /** What this step started: its one item is the job's. */
  work: RemoteWork
  io: StepIO
  /** The branch job `branch` resolved to (follow/branch.ts). */
  branch?: BranchJob
  /** The files to send (upload-files.ts), checked on disk. */
  uploads?: readonly UploadFile[]
}

interface JobRun extends BuildJobOptions {
  uploads: readonly UploadFile[]
  follower: BuildFollower
  status: CommitStatusReporter | undefined
  /** The build as the comment shows it, filled in as it goes. */
  outcome: BuildOutcome
  /** The commit under test, its status and the pull request comment. */
  reports: GithubReports
}

async function follow(run: JobRun): Promise<void> {
  const { api, settings, signal, work, io, follower, status, branch, uploads, outcome } = run
  const log = io.logger
  const name = settings.jobName
  const item: StepItem = { api, work, index: 0, job: settings.job, outcome, logger: log }

  // The build's JSON when it is needed before its end (`wait: started`, or a
  // build this step did not start); a build this step follows to its end is
  // not read before it, its console says how it goes.
  let first: Build | undefined
  /** The queue item's `inQueueSince`, for the queue wait once the build's `timestamp` is read. */
  let inQueueSince: number | undefined
  let from: EndWatch
  let pipeline: boolean
  if (settings.build === 'new') {
    const info = branch?.info ?? (await api.getJob(settings.job))
    // Not before: a job that does not exist has no URL to give.
    io.setOutput(Output.JobUrl, outcome.jobUrl)
    pipeline = isPipelineJob(info)
    // A cancel that arrived while reading the job must not still trigger.
    throwIfAborted(signal)
    const queued = await queueBuild(item, {
      info,
      parameters: settings.parameters,
      uploads,
      branch
    })
    io.setOutput(Output.QueueUrl, queued.queueUrl)
    // Awaited like the status: a warning said while the console streams
    // would land in its stop-commands region, where the runner ignores it.
    await run.reports.show([{ outcome }])
    if (settings.wait === 'queued') {
      await status?.pending(`Queued in Jenkins`, queued.queueUrl)
      outcome.note = 'Did not wait for the build to start (wait: false).'
      work.returned(
        `queue item ${queued.queueId} of ${name} (${queued.queueUrl}) goes on in Jenkins (wait: false)`
      )
      return finish(run, true)
    }
    const start = await follower.waitForStart(queued.queueId)
    buildStarted(item, start.ref)
    startedOutputs(run, start.ref)
    inQueueSince = start.inQueueSince
    if (settings.wait !== 'finish') {
      first = await follower.describe(start.ref)
      outcome.queueWaitMs = queueWaitMs(inQueueSince, first)
    }
    from = {
      startedAt: start.seenAt,
      startSlackMs: start.startSlackMs,
      expect: expectationFrom(info.recent ?? [])
    }
  } else {
    // A build this step did not start (build: last, or a number or URL):
    // never recorded as queued by this step, so never cancelled or stopped.
    const given = settings.given && (await resolveGivenBuild(api, settings.job, settings.given))
    if (given && 'queueId' in given) {
      outcome.queueUrl = given.queueUrl
      io.setOutput(Output.QueueUrl, given.queueUrl)
      if (settings.wait === 'queued') {
        outcome.note = 'Did not wait for the build to start (wait: false).'
        work.returned(
          `queue item ${given.queueId} of ${name} (${given.queueUrl}) goes on in Jenkins (wait: false)`
        )
        return finish(run, true)
      }
      log.info(`Following queue item ${given.queueId} of ${name}: ${given.queueUrl}`)
      const start = await follower.waitForStart(given.queueId)
      inQueueSince = start.inQueueSince
      first = await follower.describe(start.ref)
      outcome.queueWaitMs = queueWaitMs(inQueueSince, first)
    } else {
      first = given ? given.build : await lastBuild(api, settings.job, settings.build)
    }
    io.setOutput(Output.JobUrl, outcome.jobUrl)
    pipeline = isPipeline(first)
    from = { startedAt: first.timestamp, expect: expectationFromEstimate(first.estimatedDuration) }
    const ref = existingBuild(item, first, settings.build)
    startedOutputs(run, ref)
    await run.reports.show([{ outcome }])
    // Not triggered here: no job read to take them from, so one bounded read.
    if (settings.wait !== 'queued') {
      outcome.history = await readHistory(api, settings.job, first.number, log)
    }
  }
  const ref = work.item(0).ref as BuildRef
  outcome.build = first
  await status?.pending(`Jenkins build #${ref.number} running`, ref.url)

  if (settings.wait !== 'finish') {
    // Where a running Pipeline is (a stage waiting at an input): one read, none with `wait: false`.
    if (settings.wait === 'started' && first && isPipeline(first)) {
      outcome.stages = await readStages(api, ref, first, log)
    }
    const wait = settings.wait === 'queued' ? 'false' : 'started'
    outcome.note = `Did not wait for the build to finish (wait: ${wait}).`
    work.returned(
      `Jenkins build ${name} #${ref.number} (${ref.url}) goes on running (wait: ${wait})`
    )
    return finish(run, true)
  }

  const { final, tail } = await waitForEnd(run, { ref, first, from, pipeline })
  work.done()
  outcome.queueWaitMs ??= queueWaitMs(inQueueSince, final)
  const accepted = judgeEnd([outcome], final, { ref, accept: settings.accept, logger: log })
  await reportEnded({
    api,
    settings,
    ref,
    final,
    outcome,
    signal,
    out: io,
    reports: run.reports,
    statuses: [status]
  })
  await finish(run, accepted, tail)
}

/** The build is known: its outputs are set now, so that a timeout or cancel after this still reports them. */
function startedOutputs({ io }: JobRun, ref: BuildRef): void {
  io.setOutput(Output.BuildNumber, String(ref.number))
  io.setOutput(Output.BuildUrl, ref.url)
}

/** Follows the build to its end, streaming its console unless `log` is false; the console's last lines for the failure message. */
async function waitForEnd(
  { api, settings, io, follower }: JobRun,
  {
    ref,
    first,
    from,
    pipeline
  }: { ref: BuildRef; first?: Build; from: EndWatch; pipeline: boolean }
): Promise<{ final: Build; tail: string[] }> {
  const log = io.logger
  const name = settings.jobName
  // A triggered build can end before its first look (a short build, or a
  // slow executor hand-over): its console is still what the user asked to
  // see, and the failure message quotes its last lines. A build this step
  // triggered has not been read (`first` is undefined): it runs.
  const building = first?.building ?? true
  // A given build (number or URL) is followed as a new one: its console from the start.
  const showConsole =
    settings.log && (building || settings.build === 'new' || settings.build === 'given')
  if (first && !building && !showConsole) return { final: first, tail: [] }
  // A Pipeline stopped at an `input` step would look hung: say where to answer it.
  const inputs = building && pipeline ? watchForInput(api, ref, log) : undefined
  try {
    if (!showConsole) {
      log.info(`Waiting for Jenkins build ${name} #${ref.number} to finish (log: false).`)
      return { final: await follower.waitForEnd(ref, { from }), tail: [] }
    }
    const streamer = new ConsoleStreamer(api, ref, io)
    io.startGroup(`Console of Jenkins ${name} #${ref.number}`)
    try {
      const final = await withCommandsStopped(
        text => io.write(text),
        async () => {
          try {
            return await follower.waitForEnd(ref, { console: streamer, from })
          } finally {
            // Before commands resume: its lines must stay in the stopped region.
            inputs?.stop()
            streamer.flush()
          }
        }
      )
      return { final, tail: streamer.tail() }
    } finally {
      io.endGroup()
    }
  } finally {
    inputs?.stop()
  }
}

/** Outputs and summary; throws the failure (with the console's last lines) when the result is not accepted. */
async function finish(
  { settings, work, io, outcome, reports }: JobRun,
  accepted: boolean,
  tail: string[] = []
): Promise<void> {
  // Whatever the step did not wait for, the user chose to leave running.
  work.done()
  setBuildOutputs(io, outcome, io.logger)
  await writeSummary(io.summary, outcome, io.logger)
  await reports.show([{ outcome }], true)
  // A wanted artifact or values file that is missing fails the step even when the build passed.
  const problems = productProblems(outcome)
  if (!accepted) {
    const message = failureMessage({ ...outcome, accept: settings.accept }, tail)
    throw new Error([message, ...problems].join('\n'))
  }
  if (problems.length > 0) throw new Error(problems.join('\n'))
}
