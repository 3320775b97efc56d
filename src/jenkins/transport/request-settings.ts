import type { SerializedCookieJar } from 'tough-cookie'
import type { Logger } from '../../util/logger.js'
import type { RetryPolicy } from './retry.js'

/** How requests are sent and retried, and to whom; ClientOptions extends it. */
export interface RequestSettings {
  /** Base URL as validated by the inputs (http/https, no credentials); a trailing slash is tolerated. */
  url: string
  user?: string
  /** API token or password. */
  token?: string
  logger: Logger
  /**
   * Fires when the step is cancelled or times out (or an abort budget runs
   * out): every exchange in flight ends at once, body included, and none
   * starts after it (errors.ts Interrupted). Retry waits end with it too.
   */
  signal?: AbortSignal
  /** Epoch ms that no request, body or retry wait outlives (the step's timeout, or an abort budget's end). */
  deadline?: number
  /** Time for the response headers, and for an answer read whole (JSON, error pages) to its last byte, in ms (default 30000). */
  requestTimeoutMs?: number
  /** A streamed body (the console) fails when it brings fewer than `bytes` within `ms` of waiting (default 16 KiB in 30 s): a drip or a half-open connection. */
  stall?: { ms?: number; bytes?: number }
  /** Retry tuning (defaults suit production; tests shrink them). */
  retry?: Partial<RetryPolicy>
  /** The job's "Trigger builds remotely" token, sent as form field `token` with triggers. */
  jobToken?: string
  /** Extra `[name, value]` headers sent with every request to the origin of the base URL, and nowhere else. */
  headers?: ReadonlyArray<readonly [string, string]>
  /** PEM CA certificates trusted, besides Node's defaults, for this client's connections only. */
  ca?: readonly string[]
  /**
   * Tries of a request whose connection fails (refused, unreachable) before
   * Jenkins ever answered this client: the step's own client sets a few, so
   * that a wrong `url` or a Jenkins that is down fails within seconds. Once
   * Jenkins answered, the usual retries ride out a restart. Unset: no
   * difference (the abort and post clients talk to a server the step reached).
   */
  firstContactAttempts?: number
  /**
   * Told of each secret Jenkins hands the client (a crumb, a session cookie
   * value) the moment it arrives, before any message could quote it: the
   * step registers it with the runner's masker (core.setSecret), as it does
   * the token. The client redacts it from its own messages either way.
   */
  onSecret?: (value: string) => void
  /**
   * Another client's session with the same Jenkins (JenkinsClient.http.session()):
   * its cookies and, when known, its crumb, so that the abort's client sends
   * its stop at once instead of asking for a crumb first. A stale one is
   * rejected by Jenkins and replaced, as after a restart.
   */
  session?: JenkinsSession
}

/** A client's session: its cookies as tough-cookie serialises them, and its crumb once known (null: Jenkins has no crumb issuer). */
export interface JenkinsSession {
  cookies: SerializedCookieJar
  crumb?: Crumb | null
}

/** The CSRF crumb: the header name comes from the server (`crumbRequestField`), never a constant. */
export interface Crumb {
  field: string
  value: string
}
