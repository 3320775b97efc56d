import { Interrupted, JenkinsError } from './errors.js'
import type { Requester } from './requester.js'

/** The CSRF crumb: the header name comes from the server (`crumbRequestField`), never a constant. */
export interface Crumb {
  field: string
  value: string
}

/**
 * Fetches the crumb at most once (concurrent callers share the request), and
 * remembers that CSRF protection is off when the issuer answered 404
 * (jenkins-api.md 1.4) so it is not asked again.
 */
export class CrumbCache {
  private pending: Promise<Crumb | undefined> | undefined
  /** The crumb once fetched (null: no crumb issuer); undefined while unknown. */
  private known: Crumb | null | undefined

  constructor(
    /** Gets the crumb, or undefined when the server has no crumb issuer. */
    private readonly fetch: () => Promise<Crumb | undefined>,
    /** Told of every new value (the transport sends it as a header). */
    private readonly onChange: (crumb: Crumb | undefined) => void
  ) {}

  /** The crumb to send, fetching it the first time. */
  ensure(): Promise<Crumb | undefined> {
    if (!this.pending) {
      const pending = this.fetch().then(crumb => {
        this.onChange(crumb)
        if (this.pending === pending) this.known = crumb ?? null
        return crumb
      })
      // A failed fetch is not cached: the next POST tries again.
      pending.catch(() => {
        if (this.pending === pending) this.pending = undefined
      })
      this.pending = pending
    }
    return this.pending
  }

  /** Starts fetching in the background (e.g. alongside the job GET before a trigger). */
  prefetch(): void {
    this.ensure().catch(() => undefined)
  }

  /** The crumb once fetched (null: Jenkins has no crumb issuer), or undefined while unknown. */
  get current(): Crumb | null | undefined {
    return this.known
  }

  /** Starts from another client's crumb (RequestSettings.session): nothing is fetched until Jenkins rejects it. */
  seed(crumb: Crumb | null): void {
    this.known = crumb
    this.pending = Promise.resolve(crumb ?? undefined)
    this.onChange(crumb ?? undefined)
  }

  /** Drops the crumb (its session is gone) and fetches a new one. */
  refresh(): Promise<Crumb | undefined> {
    this.pending = undefined
    this.known = undefined
    this.onChange(undefined)
    return this.ensure()
  }
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
