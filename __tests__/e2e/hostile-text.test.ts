/**
 * End to end: a hostile Jenkins (test server option `hostile`) puts workflow
 * commands in every text field the action prints outside the console region:
 * a queue item's `why`, job names (list-jobs), display names, causes, and
 * build results (the final one, and those quoted when the step or the post
 * step stops a build). Read as the runner reads stdout (helpers.runnerView),
 * no command may come from Jenkins, and command processing must never be
 * left stopped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorAnnotation, startAction, type ActionRun } from '../../scripts/action-runner.js'
import { startJenkins, type TestJenkins } from '../../test-server/index.js'
import {
  adminPost,
  auth,
  commands,
  describeRun,
  endsStopped,
  killedMainState,
  run,
  RUNTIMES,
  startBuild,
  savedWork
} from './helpers.js'

/** What the payloads carry: a command formed from Jenkins text has data (or a token) starting with it. */
const MARK = 'jenkins-pwned'
const PAYLOADS = [
  `::error::${MARK}`,
  `\r::warning::${MARK}`,
  `\n::stop-commands::${MARK}`,
  `##[error]${MARK}`
]

/** No command came from Jenkins, the run really printed the Jenkins text, and commands were resumed. */
function expectInert(r: ActionRun): void {
  const acted = commands(r.stdout)
  const fromJenkins = acted.filter(c => c.value.startsWith(MARK) || c.name.includes(MARK))
  expect(fromJenkins, describeRun(r)).toEqual([])
  for (const stop of acted.filter(c => c.name === 'stop-commands')) {
    expect(stop.value).toMatch(/^[0-9a-f-]{36}$/)
  }
  expect(endsStopped(r.stdout), describeRun(r)).toBe(false)
  // At most the step's own failure annotation.
  expect(acted.filter(c => c.name === 'error').length).toBeLessThanOrEqual(1)
  expect(r.stdout).toContain(MARK)
}

describe.each(PAYLOADS.map((text, i) => ({ text, i })))('Jenkins text $text', ({ text, i }) => {
  let jenkins: TestJenkins
  beforeAll(async () => {
    jenkins = await startJenkins({
      quietPeriodSec: 0,
      executors: 8,
      hostile: { text },
      jobs: {
        // Not concurrent: a running build keeps the action's item queued, with a why.
        gate: { script: { durationMs: 300 } },
        'jobs-gate': { script: { durationMs: 300 } },
        brief: { concurrent: true, script: { durationMs: 300 } },
        long: { concurrent: true, script: { durationMs: 60_000 } },
        orphan: { concurrent: true, script: { durationMs: 60_000 } },
        folder: { type: 'folder', jobs: { inner: {} } }
      }
    })
  })
  afterAll(() => jenkins.close())

  const node = (k: number): string => RUNTIMES[(i + k) % RUNTIMES.length]?.path ?? process.execPath

  describe.concurrent('fields', () => {
    it('a queued item’s why, then a result that is not one of the five: an error, inert', async () => {
      const gate = jenkins.state.findJob('gate')!
      gate.script.durationMs = 60_000
      const blocker = await startBuild(jenkins, 'gate')
      gate.script.durationMs = 300
      const action = startAction({ ...auth(jenkins), job: 'gate' }, { node: node(0) })
      await action.waitForOutput(/Waiting in the Jenkins queue/)
      await adminPost(jenkins, `/job/gate/${blocker.number}/stop`)
      const r = await action.done
      expect(r.code, describeRun(r)).not.toBe(0)
      expect(r.stdout).toMatch(new RegExp(`Waiting in the Jenkins queue: .*${MARK}Build #`))
      expect(errorAnnotation(r)).toMatch(/with an unexpected result ".*jenkins-pwnedSUCCESS"/)
      expectInert(r)
    })

    it('several jobs: a queued item’s why in its state line, results in the verdict, inert', async () => {
      const gate = jenkins.state.findJob('jobs-gate')!
      gate.script.durationMs = 60_000
      const blocker = await startBuild(jenkins, 'jobs-gate')
      gate.script.durationMs = 300
      const action = startAction({ ...auth(jenkins), jobs: 'jobs-gate\nbrief' }, { node: node(1) })
      await action.waitForOutput(/Jenkins jobs-gate: waiting in the queue/)
      await adminPost(jenkins, `/job/jobs-gate/${blocker.number}/stop`)
      const r = await action.done
      expect(r.code, describeRun(r)).not.toBe(0)
      expect(r.stdout).toMatch(
        new RegExp(`Jenkins jobs-gate: waiting in the queue: .*${MARK}Build #`)
      )
      expect(errorAnnotation(r)).toMatch(/^2 of 2 Jenkins builds did not pass/)
      expectInert(r)
    })

    it('job names in list-jobs', async () => {
      const r = await run(node(1), { ...auth(jenkins), 'list-jobs': 'true' })
      expect(r.code, describeRun(r)).toBe(0)
      expect(JSON.parse(r.outputs.jobs ?? '[]')).toContain(`${text}folder/${text}inner`)
      expectInert(r)
    })

    it('the result quoted when a cancelled step stops its build', async () => {
      const action = startAction({ ...auth(jenkins), job: 'long' }, { node: node(2) })
      await action.waitForOutput(/Jenkins build .* started/)
      action.child.kill('SIGINT')
      const r = await action.done
      expect(r.code, describeRun(r)).not.toBe(0)
      const number = Number(savedWork(r.state).number)
      expect(jenkins.builds('long').find(b => b.number === number)?.result).toBe('ABORTED')
      expectInert(r)
    })

    it('the result quoted when the post step stops a build the killed main step left', async () => {
      const build = await startBuild(jenkins, 'orphan')
      const r = await run(
        node(3),
        { ...auth(jenkins), job: 'orphan' },
        { state: killedMainState(build) }
      )
      expect(r.code, describeRun(r)).toBe(0)
      expect(build.result).toBe('ABORTED')
      expectInert(r)
    })
  })
})
