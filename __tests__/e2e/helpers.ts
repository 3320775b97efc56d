/**
 * Shared pieces of the end-to-end tests: the runtimes every scenario runs
 * under, the runner's reading of the step log (re-exported), small local HTTP
 * servers (a fake GitHub API, an SSO page) and a peak-memory probe.
 */
import { readFileSync } from 'node:fs'
import http, { type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { node24, runAction, type ActionRun, type RunOptions } from '../../scripts/action-runner.js'
import { State } from '../../src/util/constants.js'
import type { BuildState, TestJenkins } from '../../test-server/index.js'

/**
 * The machine's Node and Node 24 (what action.yml declares). node24() throws
 * when Node 24 is missing: CI installs it, and a suite that silently skipped
 * it would prove nothing about the runtime the action ships for.
 */
export const RUNTIMES: Array<{ name: string; path: string }> = [
  { name: `node ${process.version}`, path: process.execPath },
  { name: 'node 24', path: node24() }
]

export const ADMIN_TOKEN = '11d0f4f1a2b3c4d5e6f708192a3b4c5d6e'

/** Inputs that authenticate as the default admin with its password (crumb + session) or its API token. */
export function auth(jenkins: TestJenkins, kind: 'password' | 'token' = 'token') {
  return { url: jenkins.url, user: 'admin', token: kind === 'token' ? ADMIN_TOKEN : 'admin' }
}

/** A POST to the test server as the admin with its API token (no crumb needed), e.g. a blocker build or a stop. */
export async function adminPost(jenkins: TestJenkins, path: string): Promise<Response> {
  return fetch(`${jenkins.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { authorization: `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}` }
  })
}

/** Polls the in-process test server until `check` gives a value (the server has no events to wait on). */
export async function untilServer<T>(check: () => T | undefined, what: string): Promise<T> {
  const end = Date.now() + 20_000
  for (;;) {
    const value = check()
    if (value !== undefined) return value
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 20))
  }
}

/** Starts a build of `job` from outside the action (`query`: parameters) and waits until it runs. */
export async function startBuild(
  jenkins: TestJenkins,
  job: string,
  query = ''
): Promise<BuildState> {
  const before = jenkins.builds(job).length
  const endpoint = query ? `buildWithParameters?${query}&` : 'build?'
  const res = await adminPost(jenkins, `/job/${job}/${endpoint}delay=0sec`)
  if (res.status !== 201) throw new Error(`trigger of ${job}: ${res.status}`)
  return untilServer(() => jenkins.builds(job)[before], `a build of ${job}`)
}

/** The saved state of a main step the runner killed while `build` ran: what its post step starts from. */
export function killedMainState(build: BuildState): Record<string, string> {
  return {
    [State.IsPost]: 'true',
    [State.Builds]: JSON.stringify([
      {
        job: build.job.fullName.split('/'),
        queueId: build.queueId,
        number: build.number,
        own: 1,
        shared: false
      }
    ]),
    [State.Done]: 'false'
  }
}

/** `state` as a main step the runner killed would have left it: its work not yet dealt with. */
export function asKilled(state: Record<string, string>): Record<string, string> {
  const saved = JSON.parse(state[State.Builds] ?? '[]') as Array<Record<string, unknown>>
  const running = saved.map(({ done: _done, ...entry }) => entry)
  return { ...state, [State.Builds]: JSON.stringify(running), [State.Done]: 'false' }
}

/** What a main step saved for its post step about the work it started (the one item of a `job`, or the first of `jobs`). */
export function savedWork(state: Record<string, string>): {
  queueId?: number
  number?: number
  shared?: boolean
} {
  const saved = JSON.parse(state[State.Builds] ?? '[]') as Array<{
    queueId?: number
    number?: number
    shared?: boolean
  }>
  return saved[0] ?? {}
}

/** runAction under one runtime, killed if it hangs. */
export function run(
  node: string,
  inputs: Record<string, string>,
  options: RunOptions = {}
): Promise<ActionRun> {
  return runAction(inputs, { killAfterMs: 45_000, ...options, node })
}

/** What a run printed, for assertion messages. */
export function describeRun(r: ActionRun): string {
  return `exit ${r.code}\n--- stdout ---\n${r.stdout}\n--- stderr ---\n${r.stderr}`
}

/** The runner's reading of stdout (what it would act on): see fixtures/runner-log.ts. */
export { commands, endsStopped, runnerView, type LogLine } from '../fixtures/runner-log.js'

export interface RecordedRequest {
  method: string
  url: string
  headers: IncomingMessage['headers']
  body: string
}

export interface LocalServer {
  url: string
  requests: RecordedRequest[]
  close(): Promise<void>
}

/** A loopback HTTP server that records every request and answers with `handler`. */
export async function startLocalServer(
  handler: (req: RecordedRequest, res: ServerResponse) => void
): Promise<LocalServer> {
  const requests: RecordedRequest[] = []
  const server = http.createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => (body += chunk))
    req.on('end', () => {
      const recorded = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body
      }
      requests.push(recorded)
      handler(recorded, res)
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>(resolve => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/**
 * Samples /proc/<pid>/status while the process runs; VmHWM is the kernel's
 * own peak-RSS mark, so the last sample holds the peak even between samples.
 */
export function watchPeakRss(pid: number): { stop(): number } {
  let peakKb = 0
  const sample = (): void => {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8')
      const hwm = /^VmHWM:\s+(\d+) kB/m.exec(status)
      if (hwm) peakKb = Math.max(peakKb, Number(hwm[1]))
    } catch {
      // The process has exited; keep the last mark.
    }
  }
  sample()
  const timer = setInterval(sample, 25)
  return {
    stop() {
      clearInterval(timer)
      sample()
      return peakKb * 1024
    }
  }
}
