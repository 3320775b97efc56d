import { coreLogger } from './core-logger.js'
import type { Settings } from './inputs.js'
import { JenkinsClient } from './jenkins/client.js'

/**
 * The Jenkins client for the step. `deadline` bounds read retries (the step's
 * timeout); the abort paths pass none, since they run after it.
 */
export function createClient(settings: Settings, deadline?: number): JenkinsClient {
  return new JenkinsClient({
    url: settings.url,
    user: settings.user,
    token: settings.token,
    jobToken: settings.jobToken,
    headers: settings.headers,
    ca: settings.caCerts,
    triggerCause: runUrl(),
    logger: coreLogger,
    deadline
  })
}

/** The workflow run's URL, for the note of a build triggered with a job token. */
function runUrl(): string | undefined {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repo, GITHUB_RUN_ID: run } = process.env
  if (!server || !repo || !run) return undefined
  return `GitHub Actions ${server}/${repo}/actions/runs/${run}`
}
