/**
 * End to end: the step's queue item ends in Jenkins without a build, while
 * the step waits for it: cancelled there (someone pressed the X in the
 * queue), or gone (the cancelled item forgotten by a restart). Nothing runs
 * in Jenkins: the main step says what Jenkins shows, not that it "left the
 * Jenkins work running", and the post step, reading the saved state, says it
 * has nothing to stop and sends nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorAnnotation, node24, runAction, startAction } from '../../scripts/action-runner.js'
import { startJenkins, type TestJenkins } from '../../test-server/index.js'
import { adminPost, auth, describeRun, untilServer } from './helpers.js'

const NODE24 = node24()

describe('a queue item that ends in Jenkins without a build (Node 24)', () => {
  let jenkins: TestJenkins

  beforeAll(async () => {
    // No executor: every item waits in the queue until it is cancelled.
    jenkins = await startJenkins({
      quietPeriodSec: 0,
      executors: 0,
      jobs: { 'cancelled-there': {}, 'gone-after-restart': {} }
    })
  })
  afterAll(() => jenkins.close())

  /** Runs the post step on the main step's saved state; returns it with the POSTs it sent. */
  async function postStep(job: string, state: Record<string, string>) {
    const before = jenkins.requests.length
    const post = await runAction(
      { ...auth(jenkins), job },
      { node: NODE24, state, killAfterMs: 45_000 }
    )
    const posts = jenkins.requests.slice(before).filter(q => q.method === 'POST')
    return { post, posts }
  }

  async function cancelItem(queueId: number): Promise<void> {
    const res = await adminPost(jenkins, `/queue/cancelItem?id=${queueId}`)
    expect(res.status).toBe(204)
  }

  it('cancelled in the queue: the step says so, nothing is left running, the post step has nothing to stop', async () => {
    const job = 'cancelled-there'
    const main = startAction({ ...auth(jenkins), job }, { node: NODE24, killAfterMs: 45_000 })
    await main.waitForOutput(/Waiting in the Jenkins queue: /)
    const queueId = Number(/\/queue\/item\/(\d+)\//.exec(main.stdout())?.[1])
    await cancelItem(queueId)
    const r = await main.done
    const url = `${jenkins.url}/queue/item/${queueId}/`
    expect(r.code, describeRun(r)).not.toBe(0)
    expect(errorAnnotation(r)).toBe(
      `The queue item ${queueId} of ${job} was cancelled in Jenkins before it started (by a user, or because the job was disabled). Nothing this step started is running in Jenkins (queue item ${queueId}: ${url}).`
    )
    expect(r.stdout).not.toContain('this step stops Jenkins work only when')
    expect(r.state['done']).toBe('true')
    expect(r.state['leftRunning']).toBeUndefined()
    expect(r.state['ended']).toBe(`queue item ${queueId} was cancelled in Jenkins, ${url}`)

    const { post, posts } = await postStep(job, r.state)
    expect(post.code, describeRun(post)).toBe(0)
    expect(post.stdout).toContain(
      `Post step: nothing to stop in Jenkins (queue item ${queueId} was cancelled in Jenkins, ${url}).`
    )
    expect(post.stdout).not.toContain('left the Jenkins work running')
    expect(posts).toEqual([])
  })

  it('gone after a restart: the step says Jenkins no longer knows it, the post step has nothing to stop', async () => {
    const job = 'gone-after-restart'
    // The step's queue polls get a proxy's 503 (retried) while the item is
    // cancelled and Jenkins restarts, so the first answer it gets is the 404.
    const blind = jenkins.aim({
      kind: 'queue',
      job,
      method: 'GET',
      effect: { type: 'status', status: 503 }
    })
    const main = startAction({ ...auth(jenkins), job }, { node: NODE24, killAfterMs: 45_000 })
    await blind.hit
    const queueId = await untilServer(
      () => jenkins.state.queue.find(item => item.job.fullName === job)?.id,
      'the queue item'
    )
    await cancelItem(queueId)
    await jenkins.restart()
    blind.remove()
    const r = await main.done
    const url = `${jenkins.url}/queue/item/${queueId}/`
    expect(r.code, describeRun(r)).not.toBe(0)
    expect(errorAnnotation(r)).toBe(
      `Queue item ${queueId} of ${job} is gone from Jenkins (it expires 5 minutes after leaving the queue, and on restart) and no recent build of ${job} has that queue id. Nothing this step started is running in Jenkins (queue item ${queueId}: ${url}).`
    )
    expect(r.stdout).not.toContain('this step stops Jenkins work only when')
    expect(r.state['ended']).toBe(
      `queue item ${queueId} is gone from Jenkins, with no build, ${url}`
    )

    const { post, posts } = await postStep(job, r.state)
    expect(post.code, describeRun(post)).toBe(0)
    expect(post.stdout).toContain(
      `Post step: nothing to stop in Jenkins (queue item ${queueId} is gone from Jenkins, with no build, ${url}).`
    )
    expect(posts).toEqual([])
  })
})
