/**
 * One run of either side, each its own Node child process: ours is the bundle
 * as the runner runs it (dist/index.js, scripts/action-runner.ts), the
 * baseline is bench/baseline.mjs. A run comes back as a RunRecord: its exit,
 * the build its own trigger created, and every request the server logged for
 * its user while it ran.
 *
 * Timings come from one clock: the server runs in this process, so the
 * build's startedAt and finishedAt, the request log's times and the spawn and
 * exit times of the children are all Date.now() here (1 ms resolution; what
 * this process's event loop adds to each is a few ms on an idle machine).
 */
import { spawn } from 'node:child_process'
import { setPriority } from 'node:os'
import { join } from 'node:path'
import { ROOT, startAction } from '../../scripts/action-runner.js'
import type { BuildState, RequestLogEntry, TestJenkins, UserSpec } from '../../test-server/index.js'
import { until } from '../util.js'
import { adopt, forget, NODE, watchPeakRss } from './processes.js'
import { runFailure } from './records.js'

/** The baseline's polling interval: what the common alternatives use. */
export const BASELINE_INTERVAL_MS = 10_000

export const BASELINE_SCRIPT = join(ROOT, 'bench', 'baseline.mjs')

export interface RunRecord {
  /** ours: dist/index.js; today: the action before issue 10 (runners/today.ts); baseline: baseline.mjs. */
  side: 'ours' | 'today' | 'baseline'
  /** The RUN parameter that tells this run's build apart. */
  id: string
  job: string
  user: string
  spawnAt: number
  exitAt: number
  code: number | null
  /** The build number the run reported. */
  reported?: number
  /** The build this run's own trigger created. */
  build?: BuildState
  requests: RequestLogEntry[]
  peakRssBytes?: number
  stdoutBytes: number
  stdout: string
  stderr: string
  /** When each stdout chunk arrived, and the length of stdout after it (ours and today). */
  stdoutTimes?: Array<{ at: number; end: number }>
}

export interface RunSpec {
  jenkins: TestJenkins
  user: UserSpec
  job: string
  id: string
  /** Extra action inputs (ours only). */
  inputs?: Record<string, string>
  /** Extra environment for the step (ours only), e.g. GITHUB_WORKSPACE. */
  env?: Record<string, string>
  /** Run this build of the action instead of dist/index.js (today's: runners/today.ts). */
  bundle?: string
  rss?: boolean
  /** Ours only: run at this niceness (the crowd of scenarios/jobs-crowd.ts, so that the server in this process goes first). */
  nice?: number
  killAfterMs: number
  /** Baseline only: stop it once its build has a number (the idle-start scenario). */
  stopWhenStarted?: boolean
}

function ownBuild(jenkins: TestJenkins, job: string, id: string): BuildState | undefined {
  return jenkins.builds(job).find(b => b.parameters.RUN === id)
}

function finishRecord(
  spec: RunSpec,
  side: RunRecord['side'],
  spawnAt: number,
  exitAt: number,
  code: number | null,
  stdout: string,
  stderr: string,
  reported: number | undefined,
  peakRssBytes: number | undefined,
  stdoutTimes?: RunRecord['stdoutTimes']
): RunRecord {
  const { jenkins, user, job, id } = spec
  return {
    side,
    id,
    job,
    user: user.name,
    spawnAt,
    exitAt,
    code,
    reported,
    build: ownBuild(jenkins, job, id),
    requests: jenkins.requests.filter(
      r => r.user === user.name && r.time >= spawnAt && r.time <= exitAt
    ),
    peakRssBytes,
    stdoutBytes: Buffer.byteLength(stdout),
    stdout: stdout.length > 1_000_000 ? stdout.slice(-1_000_000) : stdout,
    stderr,
    ...(stdoutTimes && stdout.length <= 1_000_000 ? { stdoutTimes } : {})
  }
}

/** Our action: dist/index.js with url/user/token/job/parameters, plus `spec.inputs`. */
export async function runOurs(spec: RunSpec): Promise<RunRecord> {
  const running = startAction(
    {
      url: spec.jenkins.url,
      user: spec.user.name,
      token: spec.user.password ?? '',
      job: spec.job,
      parameters: `RUN=${spec.id}`,
      ...spec.inputs
    },
    { node: NODE.path, killAfterMs: spec.killAfterMs, bundle: spec.bundle, env: spec.env }
  )
  // Taken right after spawn() returned: the child exists from here on.
  const spawnAt = Date.now()
  adopt(running.child)
  if (spec.nice !== undefined && running.child.pid !== undefined) {
    try {
      setPriority(running.child.pid, spec.nice)
    } catch {
      // Already exited: its record says how.
    }
  }
  const stdoutTimes: Array<{ at: number; end: number }> = []
  let length = 0
  running.child.stdout?.on('data', (chunk: string) => {
    length += chunk.length
    stdoutTimes.push({ at: Date.now(), end: length })
  })
  let exitAt = NaN
  running.child.on('exit', () => (exitAt = Date.now()))
  const stopRss = spec.rss ? watchPeakRss(running.child.pid) : undefined
  try {
    const run = await running.done
    const number = Number(run.outputs['build-number'])
    return finishRecord(
      spec,
      spec.bundle ? 'today' : 'ours',
      spawnAt,
      exitAt,
      run.code,
      run.stdout,
      run.stderr,
      Number.isInteger(number) && number > 0 ? number : undefined,
      stopRss?.(),
      stdoutTimes
    )
  } finally {
    stopRss?.()
    forget(running.child)
  }
}

/** The baseline: crumb, trigger, then `lastBuild` every BASELINE_INTERVAL_MS (bench/baseline.mjs). */
export async function runBaseline(spec: RunSpec): Promise<RunRecord> {
  const child = spawn(
    NODE.path,
    [
      BASELINE_SCRIPT,
      spec.jenkins.url,
      spec.user.name,
      spec.user.password ?? '',
      spec.job,
      `RUN=${spec.id}`
    ],
    {
      env: {
        PATH: process.env.PATH ?? '',
        BASELINE_INTERVAL_MS: String(BASELINE_INTERVAL_MS),
        BASELINE_TIMEOUT_MS: String(spec.killAfterMs)
      },
      stdio: ['ignore', 'pipe', 'pipe']
    }
  )
  const spawnAt = Date.now()
  adopt(child)
  const stopRss = spec.rss ? watchPeakRss(child.pid) : undefined
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const killer = setTimeout(() => child.kill('SIGKILL'), spec.killAfterMs + 5000)
  let exitAt = NaN
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject)
    child.on('exit', code => {
      exitAt = Date.now()
      resolve(code)
    })
  })
  const closed = new Promise<void>(resolve => child.on('close', () => resolve()))
  try {
    if (spec.stopWhenStarted) {
      let gone = false
      void exited.then(() => (gone = true))
      await until(
        () => gone || ownBuild(spec.jenkins, spec.job, spec.id) !== undefined,
        spec.killAfterMs,
        `the baseline's build of ${spec.job}`
      )
      child.kill('SIGTERM')
    }
    const code = await exited
    await closed
    let reported: number | undefined
    try {
      reported = (JSON.parse(stdout.trim().split('\n').pop() ?? '') as { number?: number }).number
    } catch {
      reported = undefined
    }
    return finishRecord(
      spec,
      'baseline',
      spawnAt,
      exitAt,
      code,
      stdout,
      stderr,
      reported,
      stopRss?.()
    )
  } finally {
    clearTimeout(killer)
    stopRss?.()
    forget(child)
  }
}

export function describeFailure(run: RunRecord): string {
  return `${run.side} run ${run.id} on ${run.job}: exit ${run.code}\n${run.stdout.slice(-3000)}\n${run.stderr.slice(-3000)}`
}

/** A run that did not end as it should have invalidates the figures built on it: stop. */
export function expectSuccess(run: RunRecord): RunRecord {
  if (runFailure(run) !== undefined) {
    throw new Error(`bench: a run failed.\n${describeFailure(run)}`)
  }
  return run
}
