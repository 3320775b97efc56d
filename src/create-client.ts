import { coreLogger } from './core-logger.js'
import type { Settings } from './inputs.js'
import { JenkinsClient } from './jenkins/client.js'

/** What bounds a client: the step's timeout and cancel signal, or an abort budget. */
export interface ClientBounds {
  /** Epoch ms that no request, body or retry wait outlives. */
  deadline?: number
  /** Fires on cancel or timeout (or when an abort budget ends): requests in flight end, none start. */
  signal?: AbortSignal
}

/** The Jenkins client for the step, bounded by `bounds`. */
export function createClient(settings: Settings, bounds: ClientBounds = {}): JenkinsClient {
  return new JenkinsClient({
    url: settings.url,
    user: settings.user,
    token: settings.token,
    jobToken: settings.jobToken,
    headers: settings.headers,
    ca: settings.caCerts,
    triggerCause: runUrl(),
    logger: coreLogger,
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
