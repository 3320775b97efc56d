import { Interrupted, JenkinsError } from './errors.js'
import type { Requester } from './requester.js'

/** The CSRF crumb: the header name comes from the server (`crumbRequestField`), never a constant. */
export interface Crumb {
  field: string
  value: string
}

/**
 * The crumb from Jenkins' crumb issuer (crumbIssuer/api/json),
 * or undefined when there is none: Jenkins' own 404 means CSRF protection is
 * off (jenkins-api.md 1.4). A 404 from something else than Jenkins (kind
 * 'not-jenkins', locate.ts) is a wrong url, and thrown like any failure.
 */
export async function readCrumb(
  http: Pick<Requester, 'baseUrl' | 'context' | 'getJson' | 'logger'>
): Promise<Crumb | undefined> {
  const server = http.baseUrl
  let data: { crumb?: unknown; crumbRequestField?: unknown }
  try {
    data = await http.getJson(
      'crumb',
      `${server}/crumbIssuer/api/json`,
      http.context('the CSRF crumb')
    )
  } catch (error) {
    if (error instanceof JenkinsError && error.kind === 'not-found') {
      http.logger.debug(`Jenkins at ${server} has no crumb issuer: CSRF protection is off`)
      return undefined
    }
    throw error
  }
  if (
    typeof data.crumb !== 'string' ||
    typeof data.crumbRequestField !== 'string' ||
    !data.crumbRequestField
  ) {
    throw new JenkinsError(
      'protocol',
      `Jenkins at ${server} answered the crumb request without crumb and crumbRequestField`
    )
  }
  http.logger.debug(`Got a CSRF crumb (header ${data.crumbRequestField})`)
  return { field: data.crumbRequestField, value: data.crumb }
}

/**
 * The crumb before a POST: a cancel while it is fetched interrupts the
 * crumb's GET, and the POST was never sent (a trigger queued nothing).
 */
export async function notSentIfInterrupted<T>(step: Promise<T>): Promise<T> {
  try {
    return await step
  } catch (error) {
    if (error instanceof Interrupted && error.sent) {
      throw new Interrupted(error.message, { sent: false, lastFailure: error.lastFailure })
    }
    throw error
  }
}
