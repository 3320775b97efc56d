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
