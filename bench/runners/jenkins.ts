/**
 * Test servers for the scenarios, with Jenkins' realistic defaults, and the
 * jobs, users and warm-up builds the scenarios put on them.
 */
import {
  startJenkins,
  type JobSpec,
  type ServerOptions,
  type TestJenkins,
  type UserSpec
} from '../../test-server/index.js'
import { until } from '../util.js'

/** Jenkins' defaults: a 5 s quiet period, 2 executors (more only where a scenario runs builds in parallel). */
export const QUIET_PERIOD_SEC = 5
export const DEFAULT_EXECUTORS = 2

/** An API-token user for the bench's own requests (warm-up builds), never for a measured run. */
export const ADMIN: UserSpec = {
  name: 'admin',
  password: 'admin',
  apiToken: '11d0f4f1a2b3c4d5e6f708192a3b4c5d6e',
  permissions: ['admin']
}

const servers = new Set<TestJenkins>()

/** A test server with Jenkins' defaults unless `options` says otherwise; closed by `closeServers` if not before. */
export async function server(options: ServerOptions): Promise<TestJenkins> {
  const jenkins = await startJenkins({
    quietPeriodSec: QUIET_PERIOD_SEC,
    executors: DEFAULT_EXECUTORS,
    ...options
  })
  servers.add(jenkins)
  return jenkins
}

export async function closeServer(jenkins: TestJenkins): Promise<void> {
  servers.delete(jenkins)
  await jenkins.close()
}

export async function closeServers(): Promise<void> {
  await Promise.all([...servers].map(s => s.close().catch(() => undefined)))
  servers.clear()
}

/** A job with a RUN parameter, which tells each run's build apart. */
export function job(
  durationMs: number,
  extra: JobSpec['script'] = {},
  concurrent = false
): JobSpec {
  return {
    concurrent,
    parameters: [{ name: 'RUN', type: 'string', default: '' }],
    script: { durationMs, consoleLines: ['Checking out', 'Building', 'Testing'], ...extra }
  }
}

/** Password users: crumb and session on every POST, as in the seed document. */
export function user(name: string): UserSpec {
  return { name, password: `${name}-password` }
}

/** One build per job through the API (token, no quiet period), so Jenkins has an estimatedDuration. */
export async function warmUp(
  jenkins: TestJenkins,
  jobs: string[],
  durationMs: number
): Promise<void> {
  const authorization = `Basic ${Buffer.from(`${ADMIN.name}:${ADMIN.apiToken}`).toString('base64')}`
  for (const name of jobs) {
    const spec = jenkins.state.findJob(name)
    if (spec) spec.script.durationMs = durationMs
    const res = await fetch(
      `${jenkins.url}/job/${encodeURIComponent(name)}/buildWithParameters?delay=0sec`,
      { method: 'POST', headers: { Authorization: authorization }, body: new URLSearchParams() }
    )
    await res.arrayBuffer()
    if (res.status !== 201) throw new Error(`bench: warm-up trigger of ${name}: HTTP ${res.status}`)
  }
  await until(
    () => jobs.every(name => jenkins.builds(name).some(b => !b.building)),
    durationMs + 30_000,
    'the warm-up builds'
  )
}

export function setDuration(jenkins: TestJenkins, name: string, durationMs: number): void {
  const spec = jenkins.state.findJob(name)
  if (!spec) throw new Error(`bench: no job ${name}`)
  spec.script.durationMs = durationMs
}

/** No queue item waiting and no build running: the next run starts on a quiet server. */
export const idle = (jenkins: TestJenkins): boolean =>
  jenkins.state.queue.every(i => i.state === 'left') &&
  jenkins.state.root.children.size > 0 &&
  [...jenkins.state.root.children.values()].every(j => j.builds.every(b => !b.building))
