import { abortRemote, COULD_NOT_ABORT, onCancelSignals, scanLeft } from '../follow/cancel.js'
import type { RemoteTarget } from '../follow/cancel.js'
import { statusFailure } from '../follow/build-parts.js'
import { Interrupted } from '../jenkins/transport/errors.js'
import type { Settings } from '../inputs/inputs.js'
import type { JenkinsApi, JenkinsClient } from '../jenkins/client.js'
import type { StepIO } from '../runner/io.js'
import { namedLogger, type Logger } from '../util/logger.js'
import type { RequestBounds } from '../outcome/github-transport.js'
import { abortReason, settleBy, StepAborted, type AbortReason } from '../util/wait.js'
import { budgetClient, createClient } from './create-client.js'
import { RemoteWork } from './remote-work.js'
import type { Presenter } from './presenter.js'
import type { BuildsRun } from './run-builds.js'
import { jobKey, queueItemUrl } from '../jenkins/model/job-path.js'
import { errorText } from '../util/error-text.js'
import { formatDuration } from '../util/duration.js'

/** What a step's work runs with: its client and signal, and the record of what it starts. */
export interface StepRun {
  settings: Settings
  io: StepIO
  /** The step's own client: bounded by `timeout`, stopped by the signal. */
  api: JenkinsClient
  /** Fires on cancel or timeout. */
  signal: AbortSignal
  /**
   * The bounds of a GitHub request that starts now: the step's signal and
   * timeout until the step is stopped (a request in flight then ends at once:
   * stopping the Jenkins work never waits on GitHub), then what is left of
   * the abort's budget (the final commit status and comment).
   */
  githubBounds: () => RequestBounds
  work: RemoteWork
}

/**
 * The step's work (`run`), bounded by `timeout` and stopped by the runner's
 * cancel signals: on either, stopStep stops what was started and returns
 * the failure message; any other failure leaves the work running
 * (leavingWorkRunning). Timeout and cancel fire one signal: the client's
 * requests in flight end at once and none start after it, and the abort
 * runs with its own client and budget. GitHub's requests in flight end with
 * them; those sent after (the final status and comment) get the abort's
 * budget (`githubBounds`). The only place a step's abort controller, timer,
 * signal handlers and clients' bounds are made.
 */
export async function runBounded(
  settings: Settings,
  io: StepIO,
  present: Presenter,
  mode: {
    run(step: StepRun): Promise<void>
    /** The run of builds once it began: the stop handler ends its statuses and writes its report. */
    builds(): BuildsRun | undefined
  }
): Promise<void> {
  const started = Date.now()
  const controller = new AbortController()
  const { signal } = controller
  const deadline = started + settings.timeoutMs
  let abortedAt: number | undefined
  let until: number | undefined
  const githubBounds = (): RequestBounds =>
    until === undefined ? { signal, deadline } : { deadline: until }
  // First of the signal's listeners: GitHub requests sent from here on (the
  // final status and comment) already get the abort's budget.
  signal.addEventListener(
    'abort',
    () => {
      abortedAt = Date.now()
      until = abortedAt + BUDGET_MS[abortReason(signal)]
    },
    { once: true }
  )
  const timer = setTimeout(() => controller.abort('timeout'), settings.timeoutMs)
  const removeSignalHandlers = onCancelSignals(controller, io.logger)
  // Its first request may be the first to meet the server: a connection that fails before
  // Jenkins ever answered is tried 3 times (about 1.5 s of waits): a wrong url or a Jenkins
  // that is down is said within seconds (requester.ts).
  const api = createClient(settings, { deadline, signal, firstContactAttempts: 3 })
  const step: StepRun = {
    settings,
    io,
    api,
    signal,
    githubBounds,
    // One item of the record for each job it may start.
    work: new RemoteWork(settings, io)
  }
  try {
    await mode.run(step)
  } catch (error) {
    // Whatever failed once the signal fired failed because of it.
    if (signal.aborted || error instanceof StepAborted) {
      const reason = abortReason(signal)
      const at = abortedAt ?? Date.now()
      const head =
        reason === 'timeout'
          ? `Timed out after ${formatDuration(at - started)} (timeout: ${formatDuration(settings.timeoutMs)}) waiting for ${present.waitingFor}`
          : `The workflow was cancelled while waiting for ${present.waitingFor}`
      // The stop message's start (why, after how long, waiting for what), and the epoch ms the abort must end by.
      const stopped = { error, head, until: at + BUDGET_MS[reason] }
      throw new Error(await stopStep(step, mode.builds(), present, stopped))
    }
    throw leavingWorkRunning(step, error, present)
  } finally {
    clearTimeout(timer)
    removeSignalHandlers()
  }
}

/** How long the abort may take after the step was stopped for each reason (ms). */
const BUDGET_MS: Record<AbortReason, number> = {
  // The runner sends SIGINT, SIGTERM 7.5 s later, then kills: this leaves 2 s to report and exit.
  cancelled: 5500,
  // The step ends by `timeout` + 5 s, with 1.5 s to report and exit.
  timeout: 3500
}

/**
 * Cancels or stops what the step started (unless told not to), every target
 * at once within `until`, and says what it did: the text that ends the abort
 * message, and what was said of each job (by jobKey). With `named` (several
 * builds) each line names its job.
 */
async function stopWork(
  { settings, work, api }: StepRun,
  { log, until, named }: { log: Logger; until: number; named: boolean }
): Promise<{ outcome: string; said?: ReadonlyMap<string, string> }> {
  /** Jobs (by jobKey) whose work the abort could not reach: left to the post step. */
  let unstopped: ReadonlySet<string> = new Set()
  try {
    if (!work.anything) {
      const it = work.adopted === 1 ? 'it' : 'them'
      if (work.adopted > 0)
        return { outcome: `; left ${it} running (this step did not start ${it}).` }
      const left = [...new Set(work.scans)].map(scanLeft)
      for (const line of left) log.info(`Jenkins: ${line}.`)
      const outcome =
        left.length > 0 ? `; ${left.join('; ')}.` : '; nothing was started in Jenkins.'
      return { outcome }
    }
    if (!settings.abortOnCancel) {
      return { outcome: '; left the Jenkins work running (abort-on-cancel: false).' }
    }
    // The step's own client was stopped with it: the abort gets its own, bounded by its budget.
    const client = budgetClient(settings, { until, continuing: api })
    const done = await abortTargets(client, work.targets(client), { log, until, named })
    for (const { line } of done) log.info(`Jenkins${named ? '' : ':'} ${line}.`)
    unstopped = new Set(done.filter(d => d.what === COULD_NOT_ABORT).map(d => d.key))
    if (unstopped.size > 0) log.info('Jenkins: the post step will try again to stop it.')
    const lines = done.map(d => d.line).join('; ')
    const said = new Map(done.map(d => [d.key, d.what]))
    return { outcome: lines ? `; ${lines}.` : '; none of it was still running.', said }
  } finally {
    // Only now: if the runner kills us before this, the post step stops the work;
    // it also stops what the abort could not reach.
    work.done({ except: unstopped })
  }
}

/** Stops or cancels every target at once within `until`: what was said of each (by jobKey), in a line that names its job with `named`. */
export function abortTargets(
  api: JenkinsApi,
  targets: ReadonlyArray<RemoteTarget & { name: string }>,
  { log, until, named }: { log: Logger; until: number; named: boolean }
): Promise<Array<{ key: string; what: string; line: string }>> {
  return Promise.all(
    targets.map(async target => {
      const what = await abortRemote(api, target, named ? namedLogger(log, target.name) : log, {
        until
      })
      return { key: jobKey(target.job), what, line: named ? `${target.name}: ${what}` : what }
    })
  )
}

/**
 * A failure that is not a cancel or timeout leaves the work running, as
 * `abort-on-cancel` promises, and says so with its links (in the
 * presenter's words); the post step is told not to stop it.
 */
function leavingWorkRunning(
  { api, work, io }: StepRun,
  error: unknown,
  present: Pick<Presenter, 'leftRunning'>
): unknown {
  const left = work.targets(api)
  if (left.length === 0) {
    work.done()
    return error
  }
  const urls = left.map(t => t.build?.url ?? queueItemUrl(api.baseUrl, t.queueId))
  work.leftRunning(urls.join(' '))
  io.logger.debug(`Left running: ${urls.join(', ')}`)
  return new Error(
    `${errorText(error).replace(/\.?$/, '.')} ${present.leftRunning(left, urls)} (this step stops Jenkins work only when it is cancelled or times out).`
  )
}

/**
 * The one stop handler (cancel or timeout): says what the step waited for,
 * ends the pending statuses and the comment alongside, stops or cancels
 * what was started (stopWork), reports what is known, and returns the
 * step's message. Jenkins failing until the timeout is the news then.
 */
async function stopStep(
  step: StepRun,
  run: BuildsRun | undefined,
  present: Presenter,
  { error, head, until }: { error: unknown; head: string; until: number }
): Promise<string> {
  const { work, settings } = step
  const reason = abortReason(step.signal)
  const log = run?.log ?? step.io.logger
  const last = error instanceof Interrupted ? error.lastFailure?.replace(/\.$/, '') : undefined
  // What the step was waiting for when it was stopped (a hung request says how long it hung).
  if (error instanceof Interrupted && error.sent) log.info(`${error.message}.`)
  if (last && reason === 'cancelled') log.info(`Last error before the cancel: ${last}.`)
  const target = present.stopTarget(work)
  const started = work.anything || work.adopted > 0
  const stopping = run?.stop(statusFailure(error, step.signal))
  const { outcome, said } = await stopWork(step, { log, until, named: present.several })
  // The statuses and the comment get what is left of the budget.
  await settleBy(stopping?.finishing ?? Promise.resolve(), until)
  await stopping?.report(said)
  if (last && reason === 'timeout') {
    return started
      ? `${head}${target} (last error: ${last})${outcome}`
      : `${last} (still failing at the step's timeout, ${formatDuration(settings.timeoutMs)})${outcome}`
  }
  return `${head}${target}${outcome}`
}
