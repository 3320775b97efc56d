import type { JobEntry } from '../inputs/jobs-input.js'
import { Interrupted } from '../jenkins/transport/errors.js'
import type { JenkinsApi } from '../jenkins/model/types.js'
import type { Logger } from '../util/logger.js'
import { errorText } from '../util/error-text.js'

/** `disable` with `jobs`: every listed job, at once; throws naming each one that could not be. */
export async function disableJobs(
  api: JenkinsApi,
  entries: readonly JobEntry[],
  logger: Logger
): Promise<void> {
  const settled = await Promise.allSettled(entries.map(entry => api.disableJob(entry.job)))
  const failures: string[] = []
  settled.forEach((result, i) => {
    const entry = entries[i] as JobEntry
    if (result.status === 'fulfilled') {
      logger.info(`Disabled Jenkins job ${entry.jobName} (${api.jobUrl(entry.job)}).`)
    } else {
      failures.push(`- ${entry.jobName}: ${errorText(result.reason)}`)
    }
  })
  const stopped = settled.find(s => s.status === 'rejected' && s.reason instanceof Interrupted)
  if (stopped) throw (stopped as PromiseRejectedResult).reason
  if (failures.length > 0) {
    throw new Error(
      [`Could not disable ${failures.length} of ${entries.length} Jenkins jobs:`, ...failures].join(
        '\n'
      )
    )
  }
}
