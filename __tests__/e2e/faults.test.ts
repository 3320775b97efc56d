/**
 * End to end under a flaky network: the bundle, run as a workflow step,
 * against the test server with seeded faults in front of Jenkins (30 % of
 * answers 502/503, dropped connections, answers lost after Jenkins acted,
 * latency, a restart mid-build). Every run must report its own build's
 * result, and each run must have started exactly one build.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ActionRun } from '../../scripts/action-runner.js'
import {
  startJenkins,
  type BuildState,
  type FaultEffect,
  type FaultSpec,
  type JobSpec,
  type RequestKind,
  type TestJenkins
} from '../../test-server/index.js'
import { auth, describeRun, run, RUNTIMES } from './helpers.js'

const job = (durationMs: number, result: 'SUCCESS' | 'FAILURE' = 'SUCCESS'): JobSpec => ({
  parameters: [
    { name: 'RUN', type: 'string', default: '' },
    { name: 'DEBUG', type: 'boolean', default: false }
  ],
  concurrent: true,
  script: { durationMs, result, consoleLines: ['step 1', 'step 2', 'step 3'] }
})

/** The faults of the issue: 30 % errors over every kind of request, the trigger included. */
function faults(seed: number, extra: Partial<FaultSpec> = {}): FaultSpec {
  return {
    seed,
    errorRate: 0.3,
    errorStatuses: [502, 503],
    dropRate: 0.05,
    // Jenkins queued the build, the client never heard: the adopt path.
    lostAnswerRate: 0.1,
    latencyMs: [0, 30],
    ...extra
  }
}

/** The builds of `name` started with parameter RUN=value. */
function buildsOf(jenkins: TestJenkins, name: string, value: string): BuildState[] {
  return jenkins.builds(name).filter(b => b.parameters['RUN'] === value)
}

interface Figures {
  passed: number
  total: number
  lostTriggers: number
  adopted: number
  resent: number
  /** Runs whose every trigger send failed before reaching Jenkins, and that said so. */
  gaveUp: number
}
const figures: Figures = {
  passed: 0,
  total: 0,
  lostTriggers: 0,
  adopted: 0,
  resent: 0,
  gaveUp: 0
}

/** Checks one run against the server: right result, its own build, exactly one build. */
function checkRun(
  jenkins: TestJenkins,
  r: ActionRun,
  name: string,
  value: string,
  expected: 'SUCCESS' | 'FAILURE'
): void {
  figures.total++
  const mine = buildsOf(jenkins, name, value)
  expect(
    mine.map(b => b.number),
    `one build for RUN=${value}\n${describeRun(r)}`
  ).toHaveLength(1)
  const [build] = mine
  expect(r.code, describeRun(r)).toBe(expected === 'SUCCESS' ? 0 : 1)
  expect(r.outputs['result'], describeRun(r)).toBe(expected)
  // The run reports its own build, not another run's.
  expect(r.outputs['build-number']).toBe(String(build?.number))
  expect(build?.result).toBe(expected)
  if (/answer lost/.test(r.stdout)) figures.lostTriggers++
  if (/answer lost \([^)]*\); Jenkins shows (queue item|build)/.test(r.stdout)) figures.adopted++
  if (/sending it again/.test(r.stdout)) figures.resent++
  figures.passed++
}

describe('runs under seeded faults', () => {
  let jenkins: TestJenkins
  beforeAll(async () => {
    jenkins = await startJenkins({
      quietPeriodSec: 0,
      executors: 24,
      jobs: { ok: job(300), bad: job(300, 'FAILURE'), many: job(400), long: job(1500) }
    })
  })
  afterAll(async () => {
    await jenkins.close()
    console.log(`fault runs: ${JSON.stringify(figures)}`)
  })

  it('10 runs with seeds 1-10 (5 SUCCESS, 5 FAILURE, both runtimes, token and password), each on its own faulty server: right result, one build each', async () => {
    // One server per seed, so each run meets its own reproducible faults;
    // the runs are independent, so they run side by side.
    const results = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const seed = i + 1
        const name = seed % 2 === 0 ? 'ok' : 'bad'
        const server = await startJenkins({
          quietPeriodSec: 0,
          jobs: { ok: job(300), bad: job(300, 'FAILURE') },
          faults: faults(seed)
        })
        try {
          const runtime = RUNTIMES[seed % RUNTIMES.length] ?? RUNTIMES[0]
          const r = await run(runtime?.path ?? process.execPath, {
            ...auth(server, seed % 3 === 0 ? 'password' : 'token'),
            job: name,
            parameters: `RUN=seq-${seed}`
          })
          server.setFaults(undefined)
          checkRun(server, r, name, `seq-${seed}`, name === 'ok' ? 'SUCCESS' : 'FAILURE')
          return server.requests.filter(q => q.kind === 'trigger' && q.fault !== undefined).length
        } finally {
          await server.close()
        }
      })
    )
    // The faults reached the trigger: some answers were refused or lost, and handled.
    expect(results.reduce((a, b) => a + b, 0)).toBeGreaterThan(0)
  }, 120_000)

  it('a trigger whose answer is always lost after Jenkins queued it: adopted, exactly one build', async () => {
    jenkins.setFaults({ kinds: ['trigger'], lostAnswerRate: 1, lostAs: [502] })
    const r = await run(process.execPath, {
      ...auth(jenkins),
      job: 'ok',
      parameters: 'RUN=adopt'
    })
    jenkins.setFaults(undefined)
    expect(r.stdout).toMatch(/Trigger answer lost \(502\); Jenkins shows (queue item|build)/)
    expect(jenkins.triggerCount('ok')).toBeGreaterThan(0)
    checkRun(jenkins, r, 'ok', 'adopt', 'SUCCESS')
    // One POST: the lost answer was reconciled, never resent.
    const posts = jenkins.requests.filter(
      q => q.kind === 'trigger' && q.job === 'ok' && q.time >= Date.now() - r.durationMs
    )
    expect(posts).toHaveLength(1)
  })

  it.each([2, 20])(
    '%i concurrent runs of one job with distinct parameters each report their own build',
    async n => {
      jenkins.setFaults(faults(100 + n))
      const runs = await Promise.all(
        Array.from({ length: n }, (_, i) =>
          run(RUNTIMES[i % RUNTIMES.length]?.path ?? process.execPath, {
            ...auth(jenkins),
            job: 'many',
            parameters: `RUN=c${n}-${i}`
          })
        )
      )
      jenkins.setFaults(undefined)
      // With 30 % of answers failing, every trigger send of a run can fail
      // before reaching Jenkins (about 1 run in 100 here, so some 20-run pass
      // meets it). The run then gives up honestly, saying the build may or
      // may not be queued; that is right only if it did not queue two.
      const gaveUp = runs.filter(r => /may or may not have been queued/.test(r.stdout))
      runs.forEach((r, i) => {
        if (gaveUp.includes(r)) {
          expect(r.code, describeRun(r)).toBe(1)
          // Never two builds; none at all when Jenkins was seen to show none.
          const mine = buildsOf(jenkins, 'many', `c${n}-${i}`)
          const sawNone = /showed no queued item or build/.test(r.stdout)
          expect(mine.length, describeRun(r)).toBeLessThanOrEqual(sawNone ? 0 : 1)
          figures.gaveUp++
        } else {
          checkRun(jenkins, r, 'many', `c${n}-${i}`, 'SUCCESS')
        }
      })
      expect(gaveUp.length).toBeLessThan(Math.max(2, n / 4))
      const numbers = runs.filter(r => !gaveUp.includes(r)).map(r => r.outputs['build-number'])
      expect(new Set(numbers).size).toBe(n - gaveUp.length)
    },
    120_000
  )

  it('a restart mid-build with password auth (sessions dropped, crumb invalid) is survived', async () => {
    jenkins.setFaults({ restartDuringBuild: { afterMs: 300, job: 'long' } })
    const before = jenkins.cookieName
    const r = await run(process.execPath, {
      ...auth(jenkins, 'password'),
      job: 'long',
      parameters: 'RUN=restart'
    })
    jenkins.setFaults(undefined)
    expect(jenkins.cookieName).not.toBe(before)
    checkRun(jenkins, r, 'long', 'restart', 'SUCCESS')
  })

  it('a restart mid-build, then the timeout (password auth): the build is stopped, ABORTED', async () => {
    jenkins.addJob('longer', job(8000))
    jenkins.setFaults({ restartDuringBuild: { afterMs: 200, job: 'longer' } })
    const before = jenkins.cookieName
    const r = await run(process.execPath, {
      ...auth(jenkins, 'password'),
      job: 'longer',
      parameters: 'RUN=restart-stop',
      timeout: '2'
    })
    jenkins.setFaults(undefined)
    expect(jenkins.cookieName).not.toBe(before)
    expect(r.code, describeRun(r)).not.toBe(0)
    const [build] = buildsOf(jenkins, 'longer', 'restart-stop')
    expect(build?.result, describeRun(r)).toBe('ABORTED')
    expect(r.stdout).toMatch(
      /Timed out after 2 s .*stopped Jenkins build #\d+ \(stop; result ABORTED\)/
    )
  })

  it('a restart between reading the job and the trigger (password auth): the stale crumb is refused, a new session and crumb are used, one build', async () => {
    // The trigger is held a moment in front of Jenkins, so the restart lands
    // before Jenkins checks its crumb, whichever comes first.
    jenkins.setFaults({ kinds: ['trigger'], latencyMs: 300 })
    const since = jenkins.requests.length
    const started = run(process.execPath, {
      ...auth(jenkins, 'password'),
      job: 'ok',
      parameters: 'RUN=stale-crumb'
    })
    while (!jenkins.requests.slice(since).some(q => q.kind === 'job' && q.status === 200)) {
      await new Promise(resolve => setTimeout(resolve, 2))
    }
    await jenkins.restart()
    const r = await started
    jenkins.setFaults(undefined)
    checkRun(jenkins, r, 'ok', 'stale-crumb', 'SUCCESS')
    const after = jenkins.requests.slice(since)
    expect(after.some(q => q.kind === 'trigger' && q.status === 403)).toBe(true)
    expect(after.filter(q => q.kind === 'crumb' && q.status === 200)).toHaveLength(2)
    expect(after.filter(q => q.kind === 'trigger' && q.status === 201)).toHaveLength(1)
  })
})

describe('single glitches are ridden out, and a healthy build is never stopped for them (issue 9, item 2)', () => {
  let jenkins: TestJenkins
  beforeAll(async () => {
    jenkins = await startJenkins({ quietPeriodSec: 0, executors: 8 })
  })
  afterAll(async () => {
    await jenkins.close()
  })

  const glitches: Array<[string, string, RequestKind, FaultEffect]> = [
    ['a connection reset in the middle of a build JSON', 'reset-build', 'build', { type: 'reset' }],
    [
      'a connection reset in the middle of the console',
      'reset-log',
      'log',
      { type: 'reset', afterBytes: 8 }
    ],
    [
      'one HTML sign-in page (an SSO blip) on a queue poll',
      'sso-blip',
      'queue',
      { type: 'html-page' }
    ],
    ['one invalid JSON answer for the build', 'bad-json', 'build', { type: 'invalid-json' }]
  ]

  it.concurrent.each(glitches)(
    '%s: retried, the step passes',
    async (_what, name, kind, effect) => {
      jenkins.addJob(name, {
        script: { durationMs: 1500, consoleLines: ['one', 'two', 'three', 'four'] }
      })
      const fault = jenkins.aim({ kind, job: name, times: 1, effect })
      const r = await run(RUNTIMES[1]?.path ?? process.execPath, { ...auth(jenkins), job: name })
      expect(fault.hits, describeRun(r)).toBe(1)
      expect(r.code, describeRun(r)).toBe(0)
      expect(r.outputs['result']).toBe('SUCCESS')
      expect(r.state['done']).toBe('true')
      const number = Number(r.outputs['build-number'])
      const stops = jenkins.requests.filter(
        q => q.method === 'POST' && q.path.startsWith(`/job/${name}/${number}/`)
      )
      expect(stops).toEqual([])
    }
  )
})

describe('a restart that refuses connections for seconds mid-build is ridden out (issue 14)', () => {
  let jenkins: TestJenkins
  beforeAll(async () => {
    // Refused for 4 s: longer than the step gives a refused *first* request
    // (3 tries, about 1.5 s), so only the mid-build retries can ride it out.
    jenkins = await startJenkins({
      quietPeriodSec: 0,
      restartDowntimeMs: 4000,
      jobs: { 'long-restart': job(3000) }
    })
  })
  afterAll(async () => {
    await jenkins.close()
  })

  it('the build is followed to its end across the restart, with password auth', async () => {
    jenkins.setFaults({ restartDuringBuild: { afterMs: 300, job: 'long-restart' } })
    const before = jenkins.cookieName
    const r = await run(RUNTIMES[1]?.path ?? process.execPath, {
      ...auth(jenkins, 'password'),
      job: 'long-restart',
      parameters: 'RUN=long-downtime'
    })
    jenkins.setFaults(undefined)
    expect(jenkins.cookieName).not.toBe(before)
    checkRun(jenkins, r, 'long-restart', 'long-downtime', 'SUCCESS')
    expect(r.stdout).not.toMatch(/first request/)
  })
})
