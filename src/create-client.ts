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
    logger: coreLogger,
    deadline
  })
}
