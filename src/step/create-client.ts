import { coreLogger, maskSecret } from './step-io.js'
import type { Settings } from '../inputs/inputs.js'
import { JenkinsClient } from '../jenkins/client.js'
import type { RequestSettings } from '../jenkins/transport/http.js'

/**
 * The Jenkins client for the step, bounded by `bounds`: the step's timeout
 * and cancel signal, or an abort budget, and the session it continues. The
 * abort and post clients keep retrying a first contact, as they talk to a
 * server the step already reached (a restart is ridden out).
 */
export function createClient(
  settings: Settings,
  bounds: Pick<RequestSettings, 'deadline' | 'signal' | 'session' | 'firstContactAttempts'> = {}
): JenkinsClient {
  // The workflow run's URL, for the note of a build triggered with a job token.
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repo, GITHUB_RUN_ID: run } = process.env
  return new JenkinsClient({
    url: settings.url,
    user: settings.user,
    token: settings.token,
    jobToken: settings.jobToken,
    headers: settings.headers,
    ca: settings.caCerts,
    triggerCause: server && repo && run && `GitHub Actions ${server}/${repo}/actions/runs/${run}`,
    logger: coreLogger,
    // Like the token: the runner masks a crumb or session cookie wherever it
    // shows, Jenkins' console and a proxy's echo included, and the step
    // redacts it from every text it writes (step-io.ts).
    onSecret: maskSecret,
    ...bounds
  })
}

/**
 * A client for the cleanup after the step's own client was stopped: nothing
 * it does outlives `until` (epoch ms). Given the step's client, it continues
 * its session: a stop needs no crumb request first.
 */
export function budgetClient(
  settings: Settings,
  { until, continuing }: { until: number; continuing?: JenkinsClient }
): JenkinsClient {
  return createClient(settings, {
    deadline: until,
    signal: AbortSignal.timeout(Math.max(0, until - Date.now())),
    session: continuing?.http.session()
  })
}
