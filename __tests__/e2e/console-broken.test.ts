/**
 * End to end: a console Jenkins (or a proxy in front of it) never delivers:
 * every progressiveText answer is reset mid-body. The console is the end
 * signal with `log: true`, so before, such a step waited for `timeout` (an
 * hour by default) after a build that had long ended. Now a failed console
 * read asks the build JSON whether the build is over; once it is, the rest
 * of the console is tried for the end's follow-up bound (30 s), then given
 * up with a notice that links it, and the step reports the build's result.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { node24, runAction } from '../../scripts/action-runner.js'
import { startJenkins, type TestJenkins } from '../../test-server/index.js'
import { auth, commands, describeRun } from './helpers.js'

let jenkins: TestJenkins

beforeAll(async () => {
  jenkins = await startJenkins({
    quietPeriodSec: 0,
    jobs: { 'broken-log': { script: { durationMs: 1500, consoleLines: ['step 1', 'step 2'] } } }
  })
})
afterAll(() => jenkins.close())

describe('a console that is reset on every read (Node 24)', () => {
  it('the build JSON tells the end; the step reports its result and links the console it could not read', async () => {
    const fault = jenkins.aim({ kind: 'log', job: 'broken-log', effect: { type: 'reset' } })
    const r = await runAction(
      { ...auth(jenkins), job: 'broken-log', timeout: '600' },
      { node: node24(), killAfterMs: 180_000 }
    )
    fault.remove()
    expect(fault.hits, describeRun(r)).toBeGreaterThan(0)
    expect(r.code, describeRun(r)).toBe(0)
    expect(r.outputs['result']).toBe('SUCCESS')
    const number = Number(r.outputs['build-number'])
    const build = jenkins.builds('broken-log').find(b => b.number === number)
    expect(build?.result).toBe('SUCCESS')
    expect(r.stdout).toMatch(
      new RegExp(
        `Could not read the rest of the console of #${number} 30 s after the build finished \\(.*\\); it is at ${jenkins.url}/job/broken-log/${number}/console`
      )
    )
    // This run's own build reads: the end was learnt from the build JSON,
    // not by waiting for the timeout.
    const reads = jenkins.requests.filter(
      q => q.kind === 'build' && q.path === `/job/broken-log/${number}/api/json`
    )
    expect(reads.length, describeRun(r)).toBeGreaterThan(0)
    expect(commands(r.stdout, 'error')).toEqual([])
    console.log(
      `console reset on every read: step ended after ${(r.durationMs / 1000).toFixed(1)} s`
    )
  }, 120_000)
})
