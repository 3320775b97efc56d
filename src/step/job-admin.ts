/**
 * The step's runs that build nothing: `list-jobs` (the jobs of a folder)
 * and `disable` (one job, or every job of `jobs` at once).
 */
import { suggestingJobs } from '../follow/build-parts.js'
import type { Settings } from '../inputs/inputs.js'
import type { JobEntry } from '../inputs/jobs-input.js'
import { Interrupted } from '../jenkins/transport/errors.js'
import type { JenkinsApi } from '../jenkins/client.js'
import type { StepIO } from '../runner/io.js'
import { Output } from '../util/constants.js'
import { errorText } from '../util/error-text.js'
import { shortName } from '../util/names.js'

/** `list-jobs`: the jobs of the folder in `job` (the root without it), as an output and in the log. */
export async function listJobs(api: JenkinsApi, settings: Settings, io: StepIO): Promise<void> {
  const names = await suggestingJobs(api, settings.job, io.logger, api.listJobs(settings.job))
  io.setOutput(Output.Jobs, JSON.stringify(names))
  if (settings.job.length > 0) io.setOutput(Output.JobUrl, api.jobUrl(settings.job))
  const where = settings.jobName ? `folder ${settings.jobName}` : api.baseUrl
  io.logger.info(`${names.length} job(s) in ${where}:`)
  for (const name of names) io.logger.info(`  ${shortName(name)}`)
}

/** `disable` with one `job`; its URL is the `job-url` output once Jenkins has shown it exists. */
export async function disableJob(api: JenkinsApi, entry: JobEntry, io: StepIO): Promise<void> {
  await suggestingJobs(api, entry.job, io.logger, api.disableJob(entry.job))
  io.setOutput(Output.JobUrl, api.jobUrl(entry.job))
  io.logger.info(`Disabled Jenkins job ${entry.jobName} (${api.jobUrl(entry.job)}).`)
}

/** `disable` with `jobs`: every listed job, at once; throws naming each one that could not be. */
export async function disableJobs(
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
    throw new Error(
      [`Could not disable ${failures.length} of ${entries.length} Jenkins jobs:`, ...failures].join(
        '\n'
      )
    )
  }
}
