/** What went wrong, so callers can react without parsing messages. */
export type JenkinsErrorKind =
  | 'bad-credentials' // 401
  | 'auth-required' // 403 login page / anonymous
  | 'forbidden' // 403 missing permission
  | 'crumb' // 403 no valid crumb (after the one refresh)
  | 'not-found' // 404
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
