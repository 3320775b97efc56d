/**
 * End to end: a Jenkins that stalls, with `timeout: 10` (issue 9, item 1).
 * Each kind of stall is aimed at one job's requests on a shared test server
 * (a drip of one byte a second on the job GET, the build GET or the console;
 * headers then silence; a body left half-open), and the bundle runs under
 * Node 24 as the runner runs it. Before, such steps ran until killed (120 s,
 * 150 s) or ended after 30 s with "aborted". Now each must end, name the
 * timeout and what it did about the build, and stop the build it started.
 * The times are printed, not asserted: the bound asserted is generous
 * (well under the minutes a stall would otherwise last).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorAnnotation, node24, runAction, type ActionRun } from '../../scripts/action-runner.js'
import {
  startJenkins,
  type FaultEffect,
  type JobSpec,
  type RequestKind,
  type TestJenkins
} from '../../test-server/index.js'
import { auth, describeRun, savedWork } from './helpers.js'

const NODE24 = node24()
const TIMEOUT_S = 10
/** Far below what any of these stalls would last unbounded; far above timeout + 5 s on a busy machine. */
const GENEROUS_MS = 45_000

const long: JobSpec = {
  concurrent: true,
  script: { durationMs: 120_000, consoleLines: Array.from({ length: 600 }, (_, i) => `line ${i}`) }
}

const figures: string[] = []

/** The line the step printed about the request it cut, if any. */
function cutLine(r: ActionRun): string {
  return /^Stopped waiting for Jenkins at .*$/m.exec(r.stdout)?.[0] ?? '(none)'
}

describe(`stalls with timeout: ${TIMEOUT_S} (Node 24)`, () => {
  let jenkins: TestJenkins

  beforeAll(async () => {
    jenkins = await startJenkins({
      quietPeriodSec: 0,
      executors: 10,
      jobs: {
        'drip-job': long,
        'drip-build': long,
        'drip-log': long,
        'silent-build': long,
        'half-open-log': long
      }
    })
  })
  afterAll(async () => {
    await jenkins.close()
    console.log(`stall figures (timeout: ${TIMEOUT_S} s):\n${figures.join('\n')}`)
  })

  /** Runs the step with the stall aimed at `kind` requests of `job`; returns the run and its own build (if any). */
  async function stalled(job: string, kind: RequestKind, effect: FaultEffect) {
    const fault = jenkins.aim({ kind, job, effect })
    const r = await runAction(
      { ...auth(jenkins), job, timeout: String(TIMEOUT_S) },
      { node: NODE24, killAfterMs: 120_000 }
    )
    fault.remove()
    figures.push(
      `  ${job} (${effect.type} on ${kind}): ended after ${(r.durationMs / 1000).toFixed(1)} s; ${cutLine(r)}\n    ${errorAnnotation(r)}`
    )
    expect(fault.hits, describeRun(r)).toBeGreaterThan(0)
    expect(r.code, describeRun(r)).not.toBe(0)
    expect(r.durationMs, describeRun(r)).toBeLessThan(GENEROUS_MS)
    const number = Number(savedWork(r.state).number) || undefined
    const build = jenkins.builds(job).find(b => b.number === number)
    return { r, build }
  }

  describe.concurrent('', () => {
    it('a job GET dripped at 1 byte/s: ends at the timeout, says what it waited for and that nothing was started', async () => {
      const { r } = await stalled('drip-job', 'job', { type: 'drip', bytesPerSecond: 1 })
      expect(errorAnnotation(r)).toMatch(
        /^Timed out after 10 s \(timeout: 10 s\) waiting for Jenkins drip-job; nothing was started in Jenkins\.$/
      )
      expect(cutLine(r)).toMatch(/it had sent \d+ bytes of job 'drip-job' in \d+\.\d s/)
      expect(jenkins.triggerCount('drip-job')).toBe(0)
    })

    it('a build GET dripped at 1 byte/s: stop is sent first, and the message says it could not see the build end', async () => {
      const { r, build } = await stalled('drip-build', 'build', { type: 'drip', bytesPerSecond: 1 })
      expect(build?.result, describeRun(r)).toBe('ABORTED')
      expect(errorAnnotation(r)).toMatch(
        /^Timed out after 10 s \(timeout: 10 s\) waiting for Jenkins drip-build #\d+; sent stop to Jenkins build #\d+, but could not see it end: .+/
      )
      const stops = jenkins.requests.filter(
        q => q.method === 'POST' && q.path === `/job/drip-build/${build?.number}/stop`
      )
      expect(stops).toHaveLength(1)
    })

    it('the console dripped at 1 byte/s: ends at the timeout and stops the build', async () => {
      const { r, build } = await stalled('drip-log', 'log', { type: 'drip', bytesPerSecond: 1 })
      expect(build?.result, describeRun(r)).toBe('ABORTED')
      expect(errorAnnotation(r)).toMatch(
        /^Timed out after 10 s \(timeout: 10 s\) waiting for Jenkins drip-log #\d+; stopped Jenkins build #\d+ \(stop; result ABORTED\)\.$/
      )
      expect(cutLine(r)).toMatch(/bytes of the console of build #\d+ of 'drip-log'/)
    })

    it('a build GET answered with headers, then silence: ends at the timeout with a clear message, not "aborted"', async () => {
      const { r, build } = await stalled('silent-build', 'build', { type: 'silence' })
      expect(build?.result, describeRun(r)).toBe('ABORTED')
      expect(errorAnnotation(r)).toMatch(
        /^Timed out after 10 s \(timeout: 10 s\) waiting for Jenkins silent-build #\d+; sent stop to Jenkins build #\d+, but could not see it end: Stopped waiting for Jenkins at .*: it had sent 0 bytes of build #\d+ of 'silent-build' in \d+\.\d s\.$/
      )
      expect(errorAnnotation(r)).not.toMatch(/^aborted$/)
    })

    it('a console body left half-open: ends at the timeout and stops the build', async () => {
      const { r, build } = await stalled('half-open-log', 'log', { type: 'half-open' })
      expect(build?.result, describeRun(r)).toBe('ABORTED')
      expect(errorAnnotation(r)).toMatch(
        /^Timed out after 10 s \(timeout: 10 s\) waiting for Jenkins half-open-log #\d+; stopped Jenkins build #\d+ \(stop; result ABORTED\)\.$/
      )
    })
  })
})
