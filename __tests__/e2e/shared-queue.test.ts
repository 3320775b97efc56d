/**
 * End to end: two workflow runs trigger the same job while its queue item
 * waits, and Jenkins folds them into one item (the test server folds as
 * Queue.scheduleInternal does, causes and all). With `concurrency:
 * cancel-in-progress`, one run gets SIGINT: it must leave the shared item or
 * build running, and the other run must still get its result. Jenkins must
 * never receive a cancel or stop for that item or build. Signals go to the
 * bundle under Node 24, as in cancel.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  errorAnnotation,
  node24,
  runAction,
  startAction,
  type RunningAction
} from '../../scripts/action-runner.js'
import { State } from '../../src/constants.js'
import { startJenkins, type BuildState, type TestJenkins } from '../../test-server/index.js'
import {
  adminPost,
  auth,
  describeRun,
  killedMainState,
  startBuild,
  untilServer
} from './helpers.js'

const NODE24 = node24()

function start(jenkins: TestJenkins, inputs: Record<string, string>): RunningAction {
  return startAction({ ...auth(jenkins), ...inputs }, { node: NODE24, killAfterMs: 60_000 })
}

/** Runs a build of `job` from outside for a minute, so that the next items of the job wait (not concurrent). */
async function blocker(jenkins: TestJenkins, job: string, query = ''): Promise<BuildState> {
  const spec = jenkins.state.findJob(job)!.script
  const normal = spec.durationMs
  spec.durationMs = 60_000
  const build = await startBuild(jenkins, job, query)
  spec.durationMs = normal
  return build
}

/** Every cancel or stop Jenkins received for this item and this build of `job`. */
function cancelsAndStops(jenkins: TestJenkins, job: string, queueId: number, number?: number) {
  return jenkins.requests.filter(
    q =>
      q.method === 'POST' &&
      ((q.path.endsWith('/queue/cancelItem') &&
        new URLSearchParams(q.query).get('id') === String(queueId)) ||
        (number !== undefined &&
          ['stop', 'term', 'kill'].some(how => q.path === `/job/${job}/${number}/${how}`)))
  )
}

describe.concurrent('a queue item shared with another run (Node 24)', () => {
  let jenkins: TestJenkins
  beforeAll(async () => {
    jenkins = await startJenkins({
      quietPeriodSec: 0,
      executors: 4,
      jobs: {
        // Neither is concurrent: a running build keeps the next item queued.
        plain: { script: { durationMs: 500 } },
        params: { parameters: [{ name: 'P' }], script: { durationMs: 10_000 } }
      }
    })
  })
  afterAll(() => jenkins.close())

  it('201 folded (no parameters): the cancelled run leaves the item, the other gets its result', async () => {
    const gate = await blocker(jenkins, 'plain')
    const a = start(jenkins, { job: 'plain' })
    await a.waitForOutput(/Waiting in the Jenkins queue/)
    const b = start(jenkins, { job: 'plain' })
    await b.waitForOutput(/Waiting in the Jenkins queue/)
    // Both were answered 201 with the one item; it now carries two causes.
    const item = jenkins.state.queue.find(i => i.job.fullName === 'plain' && i.state !== 'left')!
    expect(item.causes).toHaveLength(2)

    a.child.kill('SIGINT')
    const ra = await a.done
    expect(ra.code, describeRun(ra)).not.toBe(0)
    expect(Number(ra.state[State.QueueId])).toBe(item.id)
    expect(errorAnnotation(ra)).toMatch(
      `left queue item ${item.id} running: shared with another request`
    )
    expect(cancelsAndStops(jenkins, 'plain', item.id)).toEqual([])

    // The post step of a run the runner had to kill looks again, and leaves it too.
    const post = await runAction(
      { ...auth(jenkins), job: 'plain' },
      { node: NODE24, state: { ...ra.state, [State.Done]: 'false' } }
    )
    expect(post.code, describeRun(post)).toBe(0)
    expect(post.stdout).toContain(
      `Post step: left queue item ${item.id} running: shared with another request.`
    )

    await adminPost(jenkins, `/job/plain/${gate.number}/stop`)
    const rb = await b.done
    expect(rb.code, describeRun(rb)).toBe(0)
    expect(rb.outputs.result).toBe('SUCCESS')
    const number = Number(rb.outputs['build-number'])
    expect(jenkins.builds('plain').find(x => x.number === number)?.queueId).toBe(item.id)
    expect(cancelsAndStops(jenkins, 'plain', item.id, number)).toEqual([])
  }, 60_000)

  it('303 merged (parameters): the cancelled run leaves the running build, the other gets its result', async () => {
    const gate = await blocker(jenkins, 'params', 'P=gate')
    const a = start(jenkins, { job: 'params', parameters: 'P=x' })
    await a.waitForOutput(/Waiting in the Jenkins queue/)
    const b = start(jenkins, { job: 'params', parameters: 'P=x' })
    await b.waitForOutput(/Jenkins merged this request into an identical queued build of params/)
    await adminPost(jenkins, `/job/params/${gate.number}/stop`)
    await b.waitForOutput(/Jenkins build params #\d+ started/)
    const build = await untilServer(
      () => jenkins.builds('params').find(x => x.number !== gate.number && x.building),
      'the shared build'
    )

    // A post step that knows only the queue item and the build (no 303 in its
    // state) looks at the build's causes before stopping it.
    const post = await runAction(
      { ...auth(jenkins), job: 'params' },
      { node: NODE24, state: killedMainState(build) }
    )
    expect(post.code, describeRun(post)).toBe(0)
    expect(post.stdout).toContain(
      `Post step: left build #${build.number} running: shared with another request.`
    )

    b.child.kill('SIGINT')
    const rb = await b.done
    expect(rb.code, describeRun(rb)).not.toBe(0)
    expect(rb.state[State.Shared]).toBe('true')
    expect(errorAnnotation(rb)).toMatch(
      `left build #${build.number} running: shared with another request`
    )
    expect(cancelsAndStops(jenkins, 'params', build.queueId, build.number)).toEqual([])

    const ra = await a.done
    expect(ra.code, describeRun(ra)).toBe(0)
    expect(ra.outputs.result).toBe('SUCCESS')
    expect(Number(ra.outputs['build-number'])).toBe(build.number)
    expect(cancelsAndStops(jenkins, 'params', build.queueId, build.number)).toEqual([])
  }, 60_000)
})
