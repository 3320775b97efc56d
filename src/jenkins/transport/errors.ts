/** What went wrong, so callers can react without parsing messages. */
export type JenkinsErrorKind =
  | 'bad-credentials' // 401
  | 'auth-required' // 403 login page / anonymous
  | 'forbidden' // 403 missing permission
  | 'crumb' // 403 no valid crumb (after the one refresh)
  | 'not-found' // 404
  | 'not-jenkins' // a 404 not from Jenkins before it ever answered: 'url' is not Jenkins' address (a missing context path)
  | 'conflict' // 409 (job disabled)
  | 'bad-request' // 400 / 405
  | 'html' // HTML where JSON was expected (login page, SSO proxy)
  | 'network' // DNS, connection refused/reset, TLS
  | 'timeout' // request or step deadline
  | 'server' // 5xx after retries
  | 'redirect' // redirect to another origin or a downgrade
  | 'protocol' // an answer Jenkins should not give (missing Location, bad JSON)
  | 'aborted' // the caller's AbortSignal fired

/** An error with a message a user can act on. Never contains credentials. */
export class JenkinsError extends Error {
  constructor(
    readonly kind: JenkinsErrorKind,
    message: string,
    readonly status?: number
  ) {
    super(message)
    this.name = 'JenkinsError'
  }
}

/** What `read` gives, or `missing` when Jenkins answered 404: the thing is not (or no longer) there. */
export async function unlessNotFound<T, M>(read: Promise<T>, missing: M): Promise<T | M> {
  try {
    return await read
  } catch (error) {
    if (error instanceof JenkinsError && error.kind === 'not-found') return missing
    throw error
  }
}

/**
 * The client's signal fired (the step was cancelled or timed out): the
 * exchange in flight was cut, or none was started. Never retried.
 */
export class Interrupted extends JenkinsError {
  /** Whether the request may have reached Jenkins (false: it was never sent). */
  declare readonly sent: boolean
  /** Set when a trigger may have queued a build whose queue item we never learned (see reconcile.ts). */
  declare readonly lostTrigger?: LostTrigger
  /** When it was waiting to retry: the failure it was waiting out (why the step took that long). */
  declare readonly lastFailure?: string

  constructor(
    message: string,
    fields: { sent: boolean; lostTrigger?: LostTrigger; lastFailure?: string }
  ) {
    super('aborted', message)
    this.name = 'Interrupted'
    Object.assign(this, fields)
  }
}

/**
 * Why a client's signal fired, for a message: a budget's own clock (the post
 * step's, the abort's after a cancel: AbortSignal.timeout) ran out, or the
 * step was stopped (cancelled, or its timeout).
 */
export function stopReason(signal: AbortSignal | undefined): string {
  const reason: unknown = signal?.reason
  return reason instanceof Error && reason.name === 'TimeoutError'
    ? 'the time allowed for it ran out'
    : 'the step was stopped'
}

/**
 * A trigger that may have queued a build whose answer never came back (lost
 * on the way, or cut by a cancel): what to look for in Jenkins to find it
 * (trigger/reconcile.ts). Plain data, so a later step can look with another client.
 */
export interface LostTrigger {
  /** The job, as decoded item names. */
  job: readonly string[]
  /** Full parameter set as Jenkins stores it; undefined values match anything. */
  parameters: ReadonlyMap<string, string | undefined>
  /** Our user id; builds caused by another user are not ours. Undefined for anonymous. */
  user?: string
  /** The job's nextBuildNumber before the trigger; without it builds are not considered. */
  firstBuildNumber?: number
}
