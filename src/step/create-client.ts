import { coreLogger } from './core-logger.js'
import { maskSecret } from './secrets.js'
import type { Settings } from '../inputs/inputs.js'
import { JenkinsClient } from '../jenkins/client.js'

/** What bounds a client: the step's timeout and cancel signal, or an abort budget. */
export interface ClientBounds {
  /** Epoch ms that no request, body or retry wait outlives. */
  deadline?: number
  /** Fires on cancel or timeout (or when an abort budget ends): requests in flight end, none start. */
  signal?: AbortSignal
}

/**
 * Tries of a request whose connection fails before Jenkins ever answered the
 * step (about 1.5 s of waits with the default backoff): a wrong url or a
 * Jenkins that is down is said within seconds (requester.ts).
 */
const FIRST_CONTACT_ATTEMPTS = 3

/**
 * The Jenkins client for the step, bounded by `bounds`. `firstContact`
 * 'quick' is for the step's own client, whose first request may be the
 * first to meet the server; the abort and post clients keep retrying, as
 * they talk to a server the step already reached (a restart is ridden out).
 */
export function createClient(
  settings: Settings,
  bounds: ClientBounds = {},
  firstContact: 'quick' | 'patient' = 'patient'
): JenkinsClient {
  return new JenkinsClient({
    url: settings.url,
    user: settings.user,
    token: settings.token,
    jobToken: settings.jobToken,
    headers: settings.headers,
    ca: settings.caCerts,
    triggerCause: runUrl(),
    logger: coreLogger,
    firstContactAttempts: firstContact === 'quick' ? FIRST_CONTACT_ATTEMPTS : undefined,
    // Like the token: the runner masks a crumb or session cookie wherever it
    // shows, Jenkins' console and a proxy's echo included, and the step
    // redacts it from every text it writes (secrets.ts).
    onSecret: maskSecret,
    ...bounds
  })
}

/** A client for the cleanup after the step's own client was stopped: nothing it does outlives `until` (epoch ms). */
export function budgetClient(settings: Settings, until: number): JenkinsClient {
  return createClient(settings, {
    deadline: until,
    signal: AbortSignal.timeout(Math.max(0, until - Date.now()))
  })
}

/** The workflow run's URL, for the note of a build triggered with a job token. */
function runUrl(): string | undefined {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repo, GITHUB_RUN_ID: run } = process.env
  if (!server || !repo || !run) return undefined
  return `GitHub Actions ${server}/${repo}/actions/runs/${run}`
}
