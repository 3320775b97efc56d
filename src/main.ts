import * as core from '@actions/core'
import { Output, State } from './util/constants.js'
import { getSettings, type Settings } from './inputs/inputs.js'
import { resolveUploads } from './inputs/upload-files.js'
import type { UploadFile } from './jenkins/transport/multipart.js'
import { run as runPost } from './post.js'
import { coreStepIO, maskSecret } from './step/step-io.js'
import { settleCommit } from './outcome/commit-gate.js'
import type { StepIO } from './runner/io.js'
import { runBounded } from './step/bounded-step.js'
import { presenterFor } from './step/presenter.js'
import { BuildsRun } from './step/run-builds.js'
import { settleHandOffs } from './step/settle.js'
import { errorText } from './util/error-text.js'
import { suggestingJobs } from './follow/build-parts.js'
import type { JobEntry } from './inputs/jobs-input.js'
import { Interrupted } from './jenkins/transport/errors.js'
import type { JenkinsApi } from './jenkins/client.js'
import { shortName } from './util/names.js'

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
 * presented as the inputs ask (presenter.ts); or list or disable jobs
 * (below: the runs that build nothing), or settle hand-offs (settle.ts).
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

/** `list-jobs`: the jobs of the folder in `job` (the root without it), as an output and in the log. */
async function listJobs(api: JenkinsApi, settings: Settings, io: StepIO): Promise<void> {
  const names = await suggestingJobs(api, settings.job, io.logger, api.listJobs(settings.job))
  io.setOutput(Output.Jobs, JSON.stringify(names))
  if (settings.job.length > 0) io.setOutput(Output.JobUrl, api.jobUrl(settings.job))
  const where = settings.jobName ? `folder ${settings.jobName}` : api.baseUrl
  io.logger.info(`${names.length} job(s) in ${where}:`)
  for (const name of names) io.logger.info(`  ${shortName(name)}`)
}

/** `disable` with one `job`; its URL is the `job-url` output once Jenkins has shown it exists. */
async function disableJob(api: JenkinsApi, entry: JobEntry, io: StepIO): Promise<void> {
  await suggestingJobs(api, entry.job, io.logger, api.disableJob(entry.job))
  io.setOutput(Output.JobUrl, api.jobUrl(entry.job))
  io.logger.info(`Disabled Jenkins job ${entry.jobName} (${api.jobUrl(entry.job)}).`)
}

/** `disable` with `jobs`: every listed job, at once; throws naming each one that could not be. */
async function disableJobs(
  api: JenkinsApi,
  entries: readonly JobEntry[],
  io: Pick<StepIO, 'logger'>
): Promise<void> {
  const settled = await Promise.allSettled(entries.map(entry => api.disableJob(entry.job)))
  const failures: string[] = []
  for (const [i, result] of settled.entries()) {
    const entry = entries[i]
    if (!entry) continue
    if (result.status === 'fulfilled') {
      io.logger.info(`Disabled Jenkins job ${entry.jobName} (${api.jobUrl(entry.job)}).`)
    } else if (result.reason instanceof Interrupted) throw result.reason
    else failures.push(`- ${entry.jobName}: ${errorText(result.reason)}`)
  }
  if (failures.length > 0) {
    const head = `Could not disable ${failures.length} of ${entries.length} Jenkins jobs:`
    throw new Error([head, ...failures].join('\n'))
  }
}
