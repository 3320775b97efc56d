/**
 * `build: <number or URL>` at run time: the build, or the queue item to wait
 * on, that the step follows without having started it. A URL that was not
 * below `url` is taken when it is below the root URL Jenkins writes in its
 * answers (`url` of `/api/json`), and refused otherwise, naming both: the
 * requests still go to `url`, never to the URL's host. A queue item of
 * another job is refused, whatever `wait` says; one Jenkins has forgotten
 * (404, 5 minutes after it left the queue) is taken when one of the job's
 * recent builds came from it, and refused otherwise.
 */
import { InputError } from '../util/input-error.js'
import { locateReference, type BuildReference } from '../inputs/build-reference.js'
import { unlessNotFound } from '../jenkins/transport/errors.js'
import { fullName, queueItemUrl, sameJob } from '../jenkins/model/job-path.js'
import type { Build, JobPath } from '../jenkins/model/types.js'
import type { JenkinsApi } from '../jenkins/client.js'
import { buildNumberByQueueId, queueItemJob } from './queue-ended.js'
import { lastBuild } from './build-parts.js'

/** Where following a given build starts: its JSON, or its queue item. */
export type GivenStart = { build: Build } | { queueId: number; queueUrl: string }

/** Resolves `given` to its build or queue item on `url`; throws InputError for one of another job or host. */
export async function resolveGivenBuild(
  api: JenkinsApi,
  job: JobPath,
  given: BuildReference
): Promise<GivenStart> {
  let reference = given
  if (reference.kind === 'elsewhere') {
    const root = await api.rootUrl()
    const located =
      root === null ? undefined : locateReference(reference.url, root, job, reference.text)
    if (!located) {
      throw new InputError(
        `Input 'build' URL ('${reference.text}') is on ${reference.url.origin}${reference.url.pathname.replace(/\/[^/]*\/?$/, '')}, below neither 'url' (${api.baseUrl}) nor the root URL Jenkins writes in its answers (${root ?? 'none configured'}): give a build or queue item URL of job '${fullName(job)}' as Jenkins wrote it. Nothing was triggered.`
      )
    }
    reference = located
  }
  if (reference.kind === 'build') return { build: await api.getBuild(job, reference.number) }
  // A permalink under Jenkins' own root URL: the build it names now.
  if (reference.kind === 'latest') return { build: await lastBuild(api, job, reference.mode) }
  // A queue URL names no job: whichever `wait` says, one read of the item (its
  // `task`) tells whose it is, or, once Jenkins has forgotten it, whether one
  // of the job's recent builds came from it. Anything else is refused.
  const { id, text } = reference
  const name = fullName(job)
  const item = await unlessNotFound(api.getQueueItem(id), undefined)
  const names = item && queueItemJob(item)
  if (!item) {
    if ((await buildNumberByQueueId(api, job, id)) === undefined) {
      throw new InputError(
        `Input 'build' URL ('${text}') is queue item ${id}, which Jenkins no longer knows, and no recent build of job '${name}' (input 'job') came from it: Jenkins forgets a queue item 5 minutes after it leaves the queue (and on restart), so this may be another job's. Give the build's URL (build-url) instead. Nothing was triggered.`
      )
    }
  } else if (!names) {
    throw new InputError(
      `Input 'build' URL ('${text}') is queue item ${id}, but Jenkins did not say which job it is of, so it cannot be checked to be of '${name}' (input 'job'). Nothing was triggered.`
    )
  } else if (!sameJob(names, job)) {
    throw new InputError(
      `Input 'build' URL ('${text}') is queue item ${id} of job '${fullName(names)}', not of '${name}' (input 'job'): follow a build of the job given in 'job'. Nothing was triggered.`
    )
  }
  return { queueId: id, queueUrl: queueItemUrl(api.baseUrl, id) }
}
