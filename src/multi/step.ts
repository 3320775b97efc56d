import { statusFailure } from '../follow/build-parts.js'
import type { Settings } from '../inputs/inputs.js'
import { Interrupted } from '../jenkins/transport/errors.js'
import type { UploadFile } from '../jenkins/transport/multipart.js'
import { resolveUploads } from '../inputs/upload-files.js'
import type { StepIO } from '../runner/io.js'
import { settleBy } from '../util/wait.js'
import {
  leavingWorkRunning,
  runBounded,
  stopWork,
  type StepRun,
  type Stopped
} from '../step/bounded-step.js'
import { JobsRun } from './run-jobs.js'
import { settleCommit } from '../outcome/commit-gate.js'

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
  let run: JobsRun | undefined
  await runBounded(settings, io, {
    jobs: (settings.jobs ?? []).map(entry => entry.job),
    waitingFor: `${settings.jobs?.length ?? 0} Jenkins builds`,
    run: async step => {
      // A comment command is checked, and the commit settled, before anything goes to Jenkins.
      const settled = await settleCommit(step.settings, {
        logger: step.io.logger,
        signal: step.signal
      })
      run = new JobsRun({ ...step, settings: settled, uploads })
      return run.run()
    },
    stopped: (step, stopped) => stopAll(step, run, stopped),
    failed: async (step, error) => leavingWorkRunning(step, error, false)
  })
}

/** Cancels or stops everything the step started, in parallel within the budget, and says what it did. */
async function stopAll(
  step: StepRun,
  run: JobsRun | undefined,
  { error, head, until }: Stopped
): Promise<string> {
  // No run yet: stopped while the comment command was checked, before anything went to Jenkins.
  const log = run?.printer.logger ?? step.io.logger
  if (error instanceof Interrupted && error.sent) log.info(`${error.message}.`)
  // Commit statuses go alongside the abort, within its budget.
  const statuses = run?.finishStatuses(statusFailure(error, step.signal))
  const { outcome, said } = await stopWork(step, { log, until, single: false })
  await settleBy(statuses ?? Promise.resolve(), until)
  await run?.reportSoFar(said)
  return `${head}${outcome}`
}
