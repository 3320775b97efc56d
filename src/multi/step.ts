import { statusFailure } from '../follow/build-parts.js'
import { CANCEL_BUDGET_MS, TIMEOUT_BUDGET_MS } from '../step/budgets.js'
import { abortRemote, onCancelSignals, scanLeft } from '../follow/cancel.js'
import { State } from '../util/constants.js'
import { budgetClient, createClient } from '../step/create-client.js'
import { formatDuration } from '../util/duration.js'
import type { Settings } from '../inputs/inputs.js'
import { Interrupted } from '../jenkins/transport/errors.js'
import type { JenkinsApi } from '../jenkins/model/types.js'
import type { UploadFile } from '../jenkins/transport/multipart.js'
import { queueItemUrl } from '../jenkins/model/job-path.js'
import { resolveUploads } from '../inputs/upload-files.js'
import { namedLogger } from '../util/logger.js'
import type { StepIO } from '../step/step-io.js'
import { abortReason, settleBy, StepAborted } from '../util/wait.js'
import { Ledger } from './ledger.js'
import { JobsRun } from './run-jobs.js'
import { errorText } from '../util/error-text.js'

/**
 * The step with `jobs`: the builds (run-jobs.ts) bounded by `timeout` and
 * stopped by the runner's cancel signals, like one job's (main.ts). On
 * cancel or timeout every build this step started is stopped (or its queue
 * item cancelled) in parallel, within the same budget as one build's, with
 * a client of its own; what is known is reported. Any other failure leaves
 * the builds still running, as `abort-on-cancel` promises, and names them.
 */
export async function runJobsStep(settings: Settings, io: StepIO): Promise<void> {
  // Every item's files are checked on disk before anything is sent to Jenkins.
  const uploads: UploadFile[][] = []
  for (const [index, entry] of (settings.jobs ?? []).entries()) {
    uploads.push(
      await resolveUploads(
        entry.files,
        settings.workspace,
        `Input 'jobs' item ${index + 1}'s files`
      )
    )
  }
  const started = Date.now()
  const controller = new AbortController()
  let abortedAt: number | undefined
  controller.signal.addEventListener('abort', () => (abortedAt = Date.now()), { once: true })
  const timer = setTimeout(() => controller.abort('timeout'), settings.timeoutMs)
  const removeSignalHandlers = onCancelSignals(controller, io.logger)
  const api = createClient(
    settings,
    { deadline: started + settings.timeoutMs, signal: controller.signal },
    'quick'
  )
  const ledger = new Ledger(
    (settings.jobs ?? []).map(entry => entry.job),
    (name, value) => io.saveState(name, value)
  )
  const run = new JobsRun({ api, settings, signal: controller.signal, io, ledger, uploads })
  try {
    await run.run()
  } catch (error) {
    if (controller.signal.aborted || error instanceof StepAborted) {
      const at = abortedAt ?? Date.now()
      throw new Error(
        await stopAll(settings, run, ledger, error, controller.signal, at - started, at)
      )
    }
    throw leavingWorkRunning(api, run, ledger, io, error)
  } finally {
    clearTimeout(timer)
    removeSignalHandlers()
  }
}

/** Cancels or stops everything the step started, in parallel within the budget, and says what it did. */
async function stopAll(
  settings: Settings,
  run: JobsRun,
  ledger: Ledger,
  error: unknown,
  signal: AbortSignal,
  waitedMs: number,
  abortedAt: number
): Promise<string> {
  const reason = abortReason(signal)
  const until = abortedAt + (reason === 'timeout' ? TIMEOUT_BUDGET_MS : CANCEL_BUDGET_MS)
  const log = run.printer.logger
  const count = settings.jobs?.length ?? 0
  const head =
    reason === 'timeout'
      ? `Timed out after ${formatDuration(waitedMs)} (timeout: ${formatDuration(settings.timeoutMs)}) waiting for ${count} Jenkins builds`
      : `The workflow was cancelled while waiting for ${count} Jenkins builds`
  if (error instanceof Interrupted && error.sent) log.info(`${error.message}.`)
  // Commit statuses go alongside the abort, within its budget.
  const statuses = run.finishStatuses(statusFailure(error, signal))
  const said = new Map<string, string>()
  let outcome: string
  if (!ledger.anything) {
    const left = [...new Set(run.scans)].map(scanLeft)
    for (const line of left) log.info(`Jenkins: ${line}.`)
    outcome = left.length > 0 ? `; ${left.join('; ')}.` : '; nothing was started in Jenkins.'
  } else if (!settings.abortOnCancel) {
    outcome = '; left the Jenkins work running (abort-on-cancel: false).'
  } else {
    // The step's own client was stopped with it: the abort gets its own, bounded by its budget.
    const client = budgetClient(settings, until)
    const done = await Promise.all(
      ledger.targets(client).map(async target => {
        const what = await abortRemote(
          client,
          target,
          namedLogger(log, target.name),
          undefined,
          until
        )
        said.set(target.name.toLowerCase(), what)
        return `${target.name}: ${what}`
      })
    )
    for (const line of done) log.info(`Jenkins ${line}.`)
    outcome = done.length > 0 ? `; ${done.join('; ')}.` : '; none of it was still running.'
  }
  // Only now: if the runner kills us before this, the post step stops the builds.
  ledger.done()
  await settleBy(statuses, until)
  await run.reportSoFar(said)
  return `${head}${outcome}`
}

/** A failure other than cancel or timeout leaves the builds running, and names them; the post step is told not to stop them. */
function leavingWorkRunning(
  api: JenkinsApi,
  run: JobsRun,
  ledger: Ledger,
  io: StepIO,
  error: unknown
): unknown {
  const left = ledger.targets(api)
  ledger.done()
  if (left.length === 0) return error
  const urls = left.map(t => t.build?.url ?? queueItemUrl(api.baseUrl, t.queueId))
  io.saveState(State.LeftRunning, urls.join(' '))
  const message = errorText(error)
  run.printer.logger.debug(`Left running: ${urls.join(', ')}`)
  return new Error(
    `${message.replace(/\.?$/, '.')} Jenkins work this step started is still running: ${urls.join(', ')} (this step stops Jenkins work only when it is cancelled or times out).`
  )
}
