/**
 * `build: <number or URL>` at run time: the build, or the queue item to wait
 * on, that the step follows without having started it. A URL that was not
 * below `url` is taken when it is below the root URL Jenkins writes in its
 * answers (`url` of `/api/json`), and refused otherwise, naming both: the
 * requests still go to `url`, never to the URL's host. A queue item of
 * another job is refused; one Jenkins has forgotten (404, 5 minutes after it
 * left the queue) is left to the follower, which finds its build among the
 * job's recent builds by queue id (follower.ts waitForStart).
 */
import { InputError } from '../util/input-error.js'
import { locateReference, type BuildReference } from '../inputs/build-reference.js'
import { JenkinsError } from '../jenkins/transport/errors.js'
import { fullName } from '../jenkins/model/job-path.js'
import { jobNamesFromUrl } from '../jenkins/reads/decode.js'
import type { Build, JenkinsApi, JobPath } from '../jenkins/model/types.js'

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
  const { id, text } = reference
  try {
    const item = await api.getQueueItem(id)
    const url = item.task?.url
    const names = typeof url === 'string' ? jobNamesFromUrl(url) : undefined
    if (names && fullName(names) !== fullName(job)) {
      throw new InputError(
        `Input 'build' URL ('${text}') is queue item ${id} of job '${fullName(names)}', not of '${fullName(job)}' (input 'job'): follow a build of the job given in 'job'. Nothing was triggered.`
      )
    }
  } catch (error) {
    // Forgotten by Jenkins: the follower finds its build by queue id.
    if (!(error instanceof JenkinsError && error.kind === 'not-found')) throw error
  }
  return { queueId: id, queueUrl: `${api.baseUrl}/queue/item/${id}/` }
}
