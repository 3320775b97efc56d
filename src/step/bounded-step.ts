import { abortRemote, COULD_NOT_ABORT, onCancelSignals, scanLeft } from '../follow/cancel.js'
import type { RemoteTarget } from '../follow/cancel.js'
import type { Settings } from '../inputs/inputs.js'
import type { JenkinsClient } from '../jenkins/client.js'
import type { JobPath } from '../jenkins/model/types.js'
import type { JenkinsApi } from '../jenkins/client.js'
import type { StepIO } from '../runner/io.js'
import { namedLogger, type Logger } from '../util/logger.js'
import { StepBounds } from '../util/request-bounds.js'
import { abortReason, StepAborted, type AbortReason } from '../util/wait.js'
import { budgetClient, createClient } from './create-client.js'
import { RemoteWork } from './remote-work.js'
import type { Presenter } from './presenter.js'
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
  /** The bounds of the step's GitHub requests: its signal and timeout, then the abort's budget. */
  githubBounds: StepBounds
  work: RemoteWork
}

/** Why and when the step was stopped. */
export interface Stopped {
  error: unknown
  reason: AbortReason
  /** The stop message's start: why, after how long, waiting for what. */
  head: string
  /** Epoch ms the abort (stop, cancel, statuses, report) must end by. */
  until: number
}

/** What runBounded bounds: the step's work, and what it says when it is stopped or fails. */
export interface StepMode {
  /** The jobs it may start, one item each (RemoteWork). */
  jobs: readonly JobPath[]
  /** What the stop message says the step waited for: `Jenkins <job>`, `<n> Jenkins builds`. */
  waitingFor: string
  run(step: StepRun): Promise<void>
  /** After the signal: stops what was started (stopWork) and returns the failure message. */
  stopped(step: StepRun, stopped: Stopped): Promise<string>
  /** Any other failure, turned into what the step fails with (leavingWorkRunning). */
  failed(step: StepRun, error: unknown): Promise<unknown>
}

/**
 * A mode of the step, bounded by `timeout` and stopped by the runner's
 * cancel signals. Both fire one signal: the client's requests in flight end
 * at once and none start after it, and the abort (stop or cancel what was
 * started) runs with its own client and budget. GitHub's requests in flight
 * end with them; those sent after (the final status and comment) get the
 * abort's budget (`githubBounds`). The only place a step's abort controller,
 * timer, signal handlers and clients' bounds are made.
 */
export async function runBounded(settings: Settings, io: StepIO, mode: StepMode): Promise<void> {
  const started = Date.now()
  const controller = new AbortController()
  const { signal } = controller
  const deadline = started + settings.timeoutMs
  const githubBounds = new StepBounds({ signal, deadline })
  let abortedAt: number | undefined
  let until: number | undefined
  // First of the signal's listeners: GitHub requests sent from here on (the
  // final status and comment) already get the abort's budget.
  signal.addEventListener(
    'abort',
    () => {
      abortedAt = Date.now()
      until = abortedAt + budgetMs(abortReason(signal))
      githubBounds.budget(until)
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
    work: new RemoteWork(mode.jobs, io)
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
          ? `Timed out after ${formatDuration(at - started)} (timeout: ${formatDuration(settings.timeoutMs)}) waiting for ${mode.waitingFor}`
          : `The workflow was cancelled while waiting for ${mode.waitingFor}`
      const end = until ?? at + budgetMs(reason)
      throw new Error(await mode.stopped(step, { error, reason, head, until: end }))
    }
    throw await mode.failed(step, error)
  } finally {
    clearTimeout(timer)
    removeSignalHandlers()
  }
}

/**
 * How long the abort after a cancel signal may take. The runner sends
 * SIGINT, SIGTERM 7.5 s later, then kills: this leaves 2 s to report and exit.
 */
const CANCEL_BUDGET_MS = 5500
/** How long the abort after the timeout may take: the step ends by `timeout` + 5 s, with 1.5 s to report and exit. */
const TIMEOUT_BUDGET_MS = 3500

/** How long the abort may take after the step was stopped for `reason`. */
function budgetMs(reason: AbortReason): number {
  return reason === 'timeout' ? TIMEOUT_BUDGET_MS : CANCEL_BUDGET_MS
}

/**
 * Cancels or stops what the step started (unless told not to), every target
 * at once within `until`, and says what it did: the text that ends the abort
 * message, and what was said of each job (by jobKey). With `named` (several
 * builds) each line names its job.
 */
export async function stopWork(
  { settings, work, api }: StepRun,
  { log, until, named }: { log: Logger; until: number; named: boolean }
): Promise<{ outcome: string; said: Map<string, string> }> {
  const said = new Map<string, string>()
  /** Jobs (by jobKey) whose work the abort could not reach: left to the post step. */
  const unstopped = new Set<string>()
  try {
    if (!work.anything) {
      const adopted = work.adopted
      if (adopted > 0) {
        const it = adopted === 1 ? 'it' : 'them'
        return { outcome: `; left ${it} running (this step did not start ${it}).`, said }
      }
      const left = [...new Set(work.scans)].map(scanLeft)
      for (const line of left) log.info(`Jenkins: ${line}.`)
      const outcome =
        left.length > 0 ? `; ${left.join('; ')}.` : '; nothing was started in Jenkins.'
      return { outcome, said }
    }
    if (!settings.abortOnCancel) {
      return { outcome: '; left the Jenkins work running (abort-on-cancel: false).', said }
    }
    // The step's own client was stopped with it: the abort gets its own, bounded by its budget.
    const client = budgetClient(settings, { until, continuing: api })
    const done = await abortTargets(client, work.targets(client), { log, until, named })
    for (const { key, what, line } of done) {
      said.set(key, what)
      if (what === COULD_NOT_ABORT) unstopped.add(key)
      log.info(`Jenkins${named ? '' : ':'} ${line}.`)
    }
    if (unstopped.size > 0) log.info('Jenkins: the post step will try again to stop it.')
    const lines = done.map(d => d.line).join('; ')
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
export function leavingWorkRunning(
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
