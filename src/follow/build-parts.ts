/**
 * The parts of following a build that every item of the step shares:
 * picking an existing build, the closest job names for a 404, and the
 * description of a failure for the commit status. None prints by itself:
 * each takes the logger to use.
 */
import { once } from 'node:events'
import type { BuildMode } from '../inputs/input-values.js'
import { JenkinsError } from '../jenkins/transport/errors.js'
import { fullName } from '../jenkins/model/job-path.js'
import { notAJob } from '../jenkins/trigger/trigger.js'
import type { Build, BuildRef, JobPath } from '../jenkins/model/types.js'
import type { JenkinsApi } from '../jenkins/client.js'
import type { Logger } from '../util/logger.js'
import { shortName } from '../util/names.js'
import { closestNames } from '../util/suggest.js'
import { abortReason, StepAborted } from '../util/wait.js'
import { errorText } from '../util/error-text.js'

/** A build's reference: its job, its number, its URL on the configured base. */
export function buildRef(
  api: Pick<JenkinsApi, 'buildUrl'>,
  job: JobPath,
  number: number
): BuildRef {
  return { job, number, url: api.buildUrl(job, number) }
}

/** `build: last` / `last-successful`: the job's existing build; 404s told apart (no job, not a job, no build). */
export async function lastBuild(
  api: JenkinsApi,
  job: JobPath,
  mode: Exclude<BuildMode, 'new'>
): Promise<Build> {
  const name = fullName(job)
  try {
    return await api.getBuild(job, mode === 'last' ? 'lastBuild' : 'lastSuccessfulBuild')
  } catch (error) {
    if (!(error instanceof JenkinsError && error.kind === 'not-found')) throw error
    // Tell "no such job" (or not a job) from "no such build": all are 404.
    const info = await api.getJob(job)
    if (info.isFolder) throw notAJob(info, name, api.baseUrl)
    throw new JenkinsError(
      'not-found',
      `Jenkins job ${name} has no ${mode === 'last' ? '' : 'successful '}build yet (build: ${mode}), on ${api.baseUrl}.`,
      404
    )
  }
}

/**
 * What `work` gives; a 404 it throws names the closest job names Jenkins
 * has; or, when Jenkins has no job list at `url` either (its own 404, or
 * `url` is a job's page), where Jenkins' root is: `url` is then wrong, not
 * the job (locateRoot).
 */
export async function suggestingJobs<T>(
  api: JenkinsApi,
  job: JobPath,
  logger: Logger,
  work: Promise<T>
): Promise<T> {
  try {
    return await work
  } catch (error) {
    if (!(error instanceof JenkinsError && error.kind === 'not-found')) throw error
    if (job.length === 0) throw new Error(error.message)
    const names = await api.listJobs([]).catch(async (listError: unknown) => {
      logger.debug(`Could not list jobs for suggestions: ${errorText(listError)}`)
      const noRoot =
        listError instanceof JenkinsError &&
        (listError.kind === 'not-found' || listError.kind === 'bad-request')
      const where = `job '${shortName(fullName(job))}'`
      const root = noRoot ? await api.locateRoot(where).catch(() => undefined) : undefined
      throw new Error(root ?? error.message)
    })
    const close = closestNames(fullName(job), names)
    if (close.length === 0) throw new Error(error.message)
    throw new Error(
      `${error.message.replace(/\.?$/, '.')} Did you mean: ${close.map(shortName).join(', ')}?`
    )
  }
}

/** A commit status description for a step that failed before the build's result was known. */
export function statusFailure(error: unknown, signal: AbortSignal): string {
  if (error instanceof StepAborted || signal.aborted) {
    return abortReason(signal) === 'timeout' ? 'Timed out waiting for Jenkins' : 'Cancelled'
  }
  return error instanceof Error ? (error.message.split('\n')[0] ?? 'Failed') : 'Failed'
}

/** Resolves once stdout has handed its buffered writes to the runner (or is gone). */
export async function stdoutDrained(): Promise<void> {
  const out = process.stdout
  if (!out.writableNeedDrain) return
  const settled = new AbortController()
  const { signal } = settled
  // once() rejects on 'error': gone, as for 'close'.
  await Promise.race([once(out, 'drain', { signal }), once(out, 'close', { signal })]).catch(
    () => undefined
  )
  settled.abort()
}
