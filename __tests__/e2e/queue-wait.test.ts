/**
 * End to end: the summary's queue wait is measured on Jenkins' clock (the
 * build's `timestamp` minus its queue item's `inQueueSince`), so a Jenkins
 * whose clock is far behind the runner's, or ahead of it, reports the wait
 * it really had. Before, the runner's clock minus `inQueueSince` showed
 * "75447 h" for the first and "0 ms" for the second.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { node24, startAction } from '../../scripts/action-runner.js'
import { formatDuration } from '../../src/util/duration.js'
import { startJenkins, type TestJenkins } from '../../test-server/index.js'
import { adminPost, auth, describeRun, startBuild } from './helpers.js'

const NODE24 = node24()
const HOUR_MS = 3_600_000

/** The wait the server itself had, between queuing the job's first item and starting its build. */
function serverQueueWait(jenkins: TestJenkins, job: string): number {
  const build = jenkins.builds(job)[0]
  const item = jenkins.state.queue.find(i => i.id === build?.queueId)
  if (!build || !item) throw new Error(`no build or queue item of ${job}`)
  return build.startedAt - item.inQueueSince
}

describe.concurrent('queue wait with a skewed Jenkins clock (Node 24)', () => {
  const servers: TestJenkins[] = []
  /** A server with one executor, whose clock is `skewMs` off the runner's. */
  async function skewed(skewMs: number): Promise<TestJenkins> {
    const jenkins = await startJenkins({
      quietPeriodSec: 0,
      executors: 1,
      clockSkewMs: skewMs,
      jobs: {
        blocker: { script: { durationMs: 600_000 } },
        quick: { script: { durationMs: 150, consoleLines: ['done'] } }
      }
    })
    servers.push(jenkins)
    return jenkins
  }
  afterAll(() => Promise.all(servers.map(s => s.close())))

  for (const [what, skewMs, wait] of [
    ['75447 h behind', -75_447 * HOUR_MS, 'true'],
    ['1 h ahead', HOUR_MS, 'true'],
    ['1 h ahead, wait: started', HOUR_MS, 'started']
  ] as const) {
    it(`Jenkins' clock ${what}: the summary shows the wait Jenkins had`, async () => {
      const jenkins = await skewed(skewMs)
      // The executor is busy: the step's build waits in the queue until the blocker is stopped, a second later.
      const blocker = await startBuild(jenkins, 'blocker')
      const step = startAction({ ...auth(jenkins), job: 'quick', wait }, { node: NODE24 })
      await step.waitForOutput(/Waiting in the Jenkins queue: /)
      await new Promise(resolve => setTimeout(resolve, 1000))
      await adminPost(jenkins, `/job/blocker/${blocker.number}/stop`)
      const r = await step.done
      expect(r.code, describeRun(r)).toBe(0)
      // The server's own clock is skewed the same way at both ends: this is its real wait.
      const had = serverQueueWait(jenkins, 'quick')
      // At least the second the blocker held the executor: neither 0 nor hours.
      expect(had).toBeGreaterThanOrEqual(1000)
      expect(had).toBeLessThan(60_000)
      expect(r.summary).toContain(`<th>Queue wait</th><td>${formatDuration(had)}</td>`)
    })
  }
})
