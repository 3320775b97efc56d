/**
 * End to end: two workflow runs trigger the same job while its queue item
 * waits, and Jenkins folds them into one item (the test server folds as
 * Queue.scheduleInternal does, causes and all). With `concurrency:
 * cancel-in-progress`, one run gets SIGINT: it must leave the shared item or
 * build running, and the other run must still get its result. Jenkins must
 * never receive a cancel or stop for that item or build. The same for
 * multibranch scans: two runs scanning for one new branch share the scan's
 * item and the build branch indexing starts, and a run cancelled during its
 * scan leaves the scan. Signals go to the bundle under Node 24, as in
 * cancel.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  errorAnnotation,
  node24,
  runAction,
  startAction,
  type RunningAction
} from '../../scripts/action-runner.js'
import { startJenkins, type BuildState, type TestJenkins } from '../../test-server/index.js'
import {
  adminPost,
  auth,
  describeRun,
  killedMainState,
  startBuild,
  untilServer,
  savedWork,
  asKilled
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
        params: { parameters: [{ name: 'P' }], script: { durationMs: 10_000 } },
        // PR-7 is pushed while a scan runs (addHead): the next scan finds it.
        mb: {
          type: 'multibranch',
          scanDurationMs: 300,
          jobs: { main: { script: { durationMs: 150 } } },
          heads: { main: {} }
        },
        'mb-cancel': {
          type: 'multibranch',
          scanDurationMs: 300,
          jobs: { main: { script: { durationMs: 150 } } },
          heads: { main: {} }
        },
        'mb-jobs': {
          type: 'multibranch',
          scanDurationMs: 300,
          jobs: { main: { script: { durationMs: 150 } } },
          heads: { main: {} }
        }
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
    expect(Number(savedWork(ra.state).queueId)).toBe(item.id)
    expect(errorAnnotation(ra)).toMatch(
      `left queue item ${item.id} running: shared with another request`
    )
    expect(cancelsAndStops(jenkins, 'plain', item.id)).toEqual([])

    // The post step of a run the runner had to kill looks again, and leaves it too.
    const post = await runAction(
      { ...auth(jenkins), job: 'plain' },
      { node: NODE24, state: asKilled(ra.state) }
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
    expect(savedWork(rb.state).shared).toBe(true)
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

  it('two runs scan for the same new branch: the scan request folds, and the build indexing started is left to the other run', async () => {
    // A scan from outside keeps the runs' scan queued (a second scan waits while one runs),
    // long enough for two processes to start on a busy machine.
    const mb = jenkins.state.findJob('mb')!
    mb.scanDurationMs = 12_000
    const scanning = await adminPost(jenkins, '/job/mb/build?delay=0sec')
    expect(scanning.status).toBe(302)
    mb.scanDurationMs = 300
    const a = start(jenkins, { job: 'mb', branch: 'PR-7' })
    const b = start(jenkins, { job: 'mb', branch: 'PR-7' })
    const merged =
      /Jenkins merged this scan request into the scan of mb already queued \(queue item (\d+), 2 requests\): the scan is shared\./
    await Promise.all([a.waitForOutput(merged), b.waitForOutput(merged)])
    const scanItem = Number(merged.exec(a.stdout())?.[1])
    expect(Number(merged.exec(b.stdout())?.[1])).toBe(scanItem)
    // Pushed now: the runs' one scan finds it, creates PR-7 and builds it once.
    jenkins.addHead('mb', 'PR-7', { script: { durationMs: 10_000 } })
    const started = /Jenkins build mb\/PR-7 #1 started/
    await Promise.all([a.waitForOutput(started), b.waitForOutput(started)])
    for (const r of [a, b]) {
      expect(r.stdout()).toContain('following build #1 instead of triggering a second build')
      expect(r.stdout()).toContain(
        "Every run that scanned for branch 'PR-7' follows this build, and Jenkins does not record which: it is shared, and a cancel leaves it running."
      )
    }
    const build = jenkins.builds('mb/PR-7')[0]!
    expect(jenkins.builds('mb/PR-7')).toHaveLength(1)
    expect(build.building).toBe(true)

    a.child.kill('SIGINT')
    const ra = await a.done
    expect(ra.code, describeRun(ra)).not.toBe(0)
    expect(savedWork(ra.state).shared).toBe(true)
    expect(errorAnnotation(ra)).toMatch(`left build #1 running: shared with another request`)
    expect(ra.stdout).toContain('Jenkins: left build #1 running: shared with another request.\n')
    // The runner then runs the post step; one whose main step was killed looks again, and leaves it too.
    const post = await runAction(
      { ...auth(jenkins), job: 'mb', branch: 'PR-7' },
      { node: NODE24, state: asKilled(ra.state) }
    )
    expect(post.code, describeRun(post)).toBe(0)
    expect(post.stdout).toContain('Post step: left build #1 running: shared with another request.')
    expect(build.building).toBe(true)

    const rb = await b.done
    expect(rb.code, describeRun(rb)).toBe(0)
    expect(rb.outputs.result).toBe('SUCCESS')
    expect(rb.outputs['build-number']).toBe('1')
    expect(build.result).toBe('SUCCESS')
    const stops = jenkins.requests.filter(
      q =>
        q.method === 'POST' &&
        (['stop', 'term', 'kill'].some(how => q.path === `/job/mb/job/PR-7/1/${how}`) ||
          (q.path === '/queue/cancelItem' &&
            [String(scanItem), String(build.queueId)].includes(
              new URLSearchParams(q.query).get('id') ?? ''
            )))
    )
    expect(stops).toEqual([])
    // Each run asked for the scan once; Jenkins folded them into one item.
    const scans = jenkins.requests.filter(q => q.kind === 'scan' && q.job === 'mb')
    expect(scans.map(q => q.status)).toEqual([302, 302, 302])
  }, 60_000)

  it.each<{ project: string; inputs: Record<string, string>; head: string }>([
    {
      project: 'mb-cancel',
      inputs: { job: 'mb-cancel', branch: 'PR-9' },
      head: 'The workflow was cancelled while waiting for Jenkins mb-cancel/PR-9'
    },
    {
      project: 'mb-jobs',
      inputs: { jobs: 'mb-jobs', branch: 'PR-9' },
      head: 'The workflow was cancelled while waiting for 1 Jenkins builds'
    }
  ])(
    'a run cancelled while its scan waits leaves the scan to run, and says why ($project)',
    async ({ project: name, inputs, head }) => {
      const project = jenkins.state.findJob(name)!
      // Outlasts the run's start on a busy machine; the test ends without waiting for it.
      project.scanDurationMs = 20_000
      const scanning = await adminPost(jenkins, `/job/${name}/build?delay=0sec`)
      expect(scanning.status).toBe(302)
      project.scanDurationMs = 300
      const a = start(jenkins, inputs)
      await a.waitForOutput(new RegExp(`::group::Scan of ${name}`))
      const item = await untilServer(
        () => jenkins.state.queue.find(i => i.job.fullName === name && i.state !== 'left'),
        "the run's scan, queued behind the running one"
      )
      a.child.kill('SIGINT')
      const ra = await a.done
      expect(ra.code, describeRun(ra)).not.toBe(0)
      const left = `left the scan of ${name} running: shared by every request waiting for the project's branches`
      expect(errorAnnotation(ra)).toBe(`${head}; ${left}.`)
      expect(ra.stdout).toContain(`Jenkins: ${left}.\n`)
      expect(
        jenkins.requests.filter(
          q =>
            q.method === 'POST' &&
            q.path === '/queue/cancelItem' &&
            new URLSearchParams(q.query).get('id') === String(item.id)
        )
      ).toEqual([])
      expect(item.state).not.toBe('left')
    },
    60_000
  )
})
