import { JenkinsError } from '../transport/errors.js'
import { buildUrl, fullName, jobUrl } from '../model/job-path.js'
import { buildNotFound, jobNotFound } from '../reads/reads.js'
import type { Requester } from '../transport/requester.js'
import { RETRYABLE_STATUSES, errorForResponse, type ErrorContext } from '../transport/responses.js'
import type { BuildRef, CancelOutcome, JobPath } from '../model/types.js'

// Each action retries within its own budget (Requester.actionDeadline), not
// the step's deadline, so that it can still run once the step timed out.

/** POST stop / term / kill on a build. */
export async function stopBuild(
  http: Requester,
  build: BuildRef,
  how: 'stop' | 'term' | 'kill'
): Promise<void> {
  const name = fullName(build.job)
  const context = http.context(`the ${how} of build #${build.number} of '${name}'`, {
    notFound: `${buildNotFound(http, name, build.number)}${how === 'stop' ? '' : `; '${how}' exists only for Pipeline builds`}`,
    permission: 'Job/Cancel'
  })
  // Jenkins redirects back after a stop, also when the build was not running (jenkins-api.md 7).
  await postForRedirect(
    http,
    'stop',
    `${buildUrl(http.baseUrl, build.job, build.number)}${how}`,
    context
  )
}

/** POST queue/cancelItem. */
export async function cancelQueueItem(http: Requester, queueId: number): Promise<CancelOutcome> {
  const url = `${http.baseUrl}/queue/cancelItem?id=${queueId}`
  const context = http.context(`the cancellation of queue item ${queueId}`, {
    permission: 'Job/Cancel'
  })
  // 500 is Jenkins' answer for an item that already left (jenkins-api.md 4), not a failure to retry.
  const { response, body } = await http.post('cancel', url, context, {
    retryStatuses: new Set([429, 502, 503, 504]),
    deadline: http.actionDeadline()
  })
  // Before 2.211 every answer was a redirect back (JENKINS-21311): 302 = cancelled.
  switch (response.status) {
    case 200:
    case 204:
    case 302:
    case 303:
      return 'cancelled'
    case 500:
      return 'already-left'
    case 404:
      return 'not-found'
    case 422:
      throw new JenkinsError(
        'forbidden',
        `Jenkins at ${http.baseUrl} refused to cancel queue item ${queueId} for user '${http.user ?? 'anonymous'}' (422): the user lacks Job/Cancel`,
        422
      )
  }
  throw errorForResponse(response, body, context)
}

/** POST disable on a job. */
export async function disableJob(http: Requester, job: JobPath): Promise<void> {
  const name = fullName(job)
  const context = http.context(`disabling job '${name}'`, {
    notFound: jobNotFound(http, name),
    permission: 'Job/Configure'
  })
  // HttpRedirect(".") on success, also when already disabled (jenkins-api.md 8).
  await postForRedirect(http, 'disable', `${jobUrl(http.baseUrl, job)}disable`, context)
}

/** A POST that Jenkins answers with 2xx or a redirect back when done, retried within the action's budget. */
async function postForRedirect(
  http: Requester,
  label: string,
  url: string,
  context: ErrorContext
): Promise<void> {
  const { response, body } = await http.post(label, url, context, {
    retryStatuses: RETRYABLE_STATUSES,
    deadline: http.actionDeadline()
  })
  const status = response.status
  if ((status >= 200 && status < 300) || status === 302 || status === 303) return
  throw errorForResponse(response, body, context)
}
