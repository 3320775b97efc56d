/**
 * End to end: a Jenkins that accepts connections and never answers (the
 * test server's `hang` aimed at every request), run as the runner runs the
 * bundle under Node 24. Before, the normal log showed nothing for 6 min 47 s
 * (only debug lines), then "No answer … within 30.0 s (after 12 attempts)".
 * Now a request left unanswered is said in the normal log, and each retry
 * after that; a Jenkins silent from the very first request fails the step
 * within the bound docs/faults-and-cancellation.md states (Faults and restarts: two tries of
 * 10 s, about 20 s); and a cut request says the whole time it waited.
 * Durations are printed, and asserted only as generous bounds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorAnnotation, node24, runAction, startAction } from '../../scripts/action-runner.js'
import { startJenkins, type TestJenkins } from '../../test-server/index.js'
import { auth, describeRun, untilServer } from './helpers.js'

const NODE24 = node24()
/** The documented bound for a Jenkins silent from the first request: two tries of 10 s. */
const FIRST_CONTACT_BOUND_MS = 20_000
/** Room for a busy 2-core machine on top of it (process start, timers late): generous, and far below the minutes it took. */
const SLACK_MS = 15_000

const figures: string[] = []

/** The lines of the normal log (not debug, not workflow commands). */
function visible(stdout: string): string[] {
  return stdout.split('\n').filter(line => line !== '' && !line.startsWith('::'))
}

describe.concurrent('a Jenkins that accepts connections and never answers (Node 24)', () => {
  let jenkins: TestJenkins

  beforeAll(async () => {
    jenkins = await startJenkins({
      quietPeriodSec: 0,
      jobs: { 'goes-silent': { script: { durationMs: 120_000 } } }
    })
  })
  afterAll(async () => {
    await jenkins.close()
    console.log(`silent Jenkins figures:\n${figures.join('\n')}`)
  })

  it('silent from the first request: said in the log while it waits, and the step fails within the stated bound', async () => {
    // A server of its own: every request to it hangs, from the first.
    const silent = await startJenkins({ quietPeriodSec: 0, jobs: { hello: {} } })
    const hang = silent.aim({ effect: { type: 'hang' } })
    try {
      // No timeout input: the default hour must not be what ends it.
      const r = await runAction(
        { ...auth(silent), job: 'hello' },
        { node: NODE24, killAfterMs: 120_000 }
      )
      figures.push(
        `  silent from the first request: failed after ${(r.durationMs / 1000).toFixed(1)} s`
      )
      expect(r.code, describeRun(r)).not.toBe(0)
      const url = silent.url
      expect(errorAnnotation(r)).toMatch(
        new RegExp(
          `^No answer from Jenkins at ${url} to job 'hello' within 10\\.0 s\\. That was the first request, and nothing has answered at that address yet: check the 'url' input \\(its host and port\\) and that Jenkins is running and answering \\(after 2 attempts in \\d+ s\\)$`
        )
      )
      const lines = visible(r.stdout)
      figures.push(...lines.map(l => `    ${l}`))
      // Said while waiting, not only at the end: the wait, then the retry, in the normal log.
      expect(
        lines.some(
          l =>
            l.startsWith(`No answer yet from Jenkins at ${url} to `) &&
            l.includes(' s; waiting up to 10.0 s for it')
        )
      ).toBe(true)
      expect(
        lines.some(l =>
          /; trying again in \d+\.\d s \(try 2 of 2, 1\d s since the first\)$/.test(l)
        )
      ).toBe(true)
      // Two tries of the job read, no more (a hung request is logged once its connection closes).
      const jobReads = () => silent.requests.filter(q => q.kind === 'job' && q.fault === 'hang')
      await untilServer(() => (jobReads().length >= 2 ? true : undefined), 'two job reads')
      expect(jobReads()).toHaveLength(2)
      // Two tries of 10 s each: the bound is what the tries take, not a guess.
      expect(r.durationMs).toBeGreaterThanOrEqual(FIRST_CONTACT_BOUND_MS)
      expect(r.durationMs, describeRun(r)).toBeLessThan(FIRST_CONTACT_BOUND_MS + SLACK_MS)
    } finally {
      hang.remove()
      await silent.close()
    }
  }, 120_000)

  it('silent mid-build: each wait and retry is said, and the timeout says the whole time it waited', async () => {
    const job = 'goes-silent'
    const step = startAction(
      { ...auth(jenkins), job, timeout: '45', log: 'false' },
      { node: NODE24, killAfterMs: 120_000 }
    )
    await step.waitForOutput(/Jenkins build goes-silent #\d+ started/)
    const silence = jenkins.aim({ job, effect: { type: 'hang' } })
    const r = await step.done
    silence.remove()
    figures.push(
      `  silent mid-build, timeout 45 s: ended after ${(r.durationMs / 1000).toFixed(1)} s`
    )
    expect(r.code, describeRun(r)).not.toBe(0)
    const lines = visible(r.stdout)
    figures.push(...lines.map(l => `    ${l}`))
    const said = (pattern: RegExp) => lines.filter(l => pattern.test(l))
    // 10 s into the first unanswered poll.
    expect(
      said(
        /^No answer yet from Jenkins at .* to build #\d+ of 'goes-silent' after \d+\.\d s; waiting up to 30\.0 s for it$/
      )
    ).toHaveLength(1)
    // The 30 s request timeout, then a retry: said too.
    expect(
      said(
        /^No answer from Jenkins at .* to build #\d+ of 'goes-silent' within 30\.0 s; trying again in \d+\.\d s \(try 2 of \d+, 3\d s since the first\)$/
      )
    ).toHaveLength(1)
    // The timeout cut the second try: the line gives the whole wait, not the last try's few seconds.
    expect(
      said(
        /^Stopped waiting for Jenkins at .*: no answer to build #\d+ of 'goes-silent' after \d+\.\d s \(2 tries; this one \d+\.\d s\)\.$/
      )
    ).toHaveLength(1)
    const [whole, last] = (
      /after (\d+\.\d) s \(2 tries; this one (\d+\.\d) s\)/.exec(r.stdout) ?? []
    )
      .slice(1)
      .map(Number)
    expect(whole).toBeGreaterThan(30)
    expect(whole).toBeGreaterThan((last ?? Infinity) + 30)
    expect(errorAnnotation(r)).toMatch(
      /^Timed out after 45 s \(timeout: 45 s\) waiting for Jenkins goes-silent #\d+/
    )
  }, 120_000)
})
