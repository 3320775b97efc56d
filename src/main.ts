import * as core from '@actions/core'
import { State } from './util/constants.js'
import { getSettings, type Settings } from './inputs/inputs.js'
import { resolveUploads } from './inputs/upload-files.js'
import type { UploadFile } from './jenkins/transport/multipart.js'
import { run as runPost } from './post.js'
import { coreStepIO } from './step/step-io.js'
import { maskSecret } from './step/secrets.js'
import { settleCommit } from './outcome/commit-gate.js'
import type { StepIO } from './runner/io.js'
import { runBounded } from './step/bounded-step.js'
import { disableJob, disableJobs, listJobs } from './step/job-admin.js'
import { presenterFor } from './step/presenter.js'
import { BuildsRun } from './step/run-builds.js'
import { settleHandOffs } from './step/settle.js'
import { errorText } from './util/error-text.js'

/** The action's entry point: the main step, or the post step on the second run. */
export async function run(): Promise<void> {
  if (core.getState(State.IsPost) === 'true') {
    await runPost()
    return
  }
  coreStepIO.saveState(State.IsPost, 'true')
  try {
    const settings = getSettings({ mask: maskSecret })
    for (const warning of settings.inputWarnings) coreStepIO.logger.warning(warning)
    await runStep(settings, coreStepIO)
  } catch (error) {
    // Report every thrown value, not only Error instances. The message is an
    // annotation too: it leaves without the step's secrets.
    core.setFailed(coreStepIO.redact(errorText(error)))
    // core.setFailed sets it too; @github/local-action's stand-in for it does
    // not, and `npm run local-action` must exit with the step's status.
    process.exitCode = 1
  }
}

/**
 * The step, bounded by `timeout` and stopped by the runner's cancel signals
 * (runBounded): one flow for one `job` and several `jobs` (run-builds.ts),
 * presented as the inputs ask (presenter.ts); or list or disable jobs, or
 * settle hand-offs (settle.ts).
 */
async function runStep(settings: Settings, io: StepIO): Promise<void> {
  const present = presenterFor(settings)
  const entries = settings.jobs ?? [settings]
  // The files are checked on disk before anything is sent to Jenkins.
  const uploads: UploadFile[][] = []
  for (const [index, entry] of entries.entries()) {
    uploads.push(await resolveUploads(entry.files, settings.workspace, present.filesLabel(index)))
  }
  let builds: BuildsRun | undefined
  await runBounded(settings, io, present, {
    run: async step => {
      // Settling reads GitHub's statuses and Jenkins: no comment command, no commit to settle.
      if (settings.settle) return settleHandOffs(step)
      // A comment command is checked, and the commit settled, before anything goes to Jenkins.
      const settled = await settleCommit(settings, {
        logger: io.logger,
        signal: step.signal,
        bounds: step.githubBounds
      })
      if (settled.listJobs) return listJobs(step.api, settled, io)
      if (settled.disable) {
        return settled.jobs
          ? disableJobs(step.api, settled.jobs, io)
          : disableJob(step.api, settled, io)
      }
      builds = new BuildsRun({ ...step, settings: settled }, present, uploads)
      return builds.run()
    },
    builds: () => builds
  })
}
