/**
 * End to end: `build: <number or URL>`, a build the step did not start,
 * followed as a new one (console from its start, values, outputs): by
 * number, by build URL, by queue URL before and after Jenkins forgot the
 * item (its left-items cache, shortened here), a queue item cancelled in
 * Jenkins, another job's URL and another host's (refused, nothing
 * triggered), Jenkins' own root URL (accepted, requests to `url`), and a
 * cancel that leaves the build running with no stop from the post step.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorAnnotation, startAction } from '../../scripts/action-runner.js'
import { startJenkins, type TestJenkins } from '../../test-server/index.js'
import { adminPost, auth, describeRun, run, RUNTIMES, startBuild, untilServer } from './helpers.js'

const NODE = RUNTIMES[0]!.path
const LEFT_ITEM_TTL_MS = 400

function job(durationMs: number) {
  return {
    script: {
      durationMs,
      consoleLines: ['first line of the build', 'second line'],
      artifacts: [{ path: 'values.json', content: '{"version":"2.0.1"}' }]
    }
  }
}

describe.each(RUNTIMES)('build: a number or URL ($name)', ({ path: node }) => {
  let jenkins: TestJenkins
  /** Forgets a queue item LEFT_ITEM_TTL_MS after it left the queue (Jenkins: 5 minutes). */
  let forgetful: TestJenkins
  beforeAll(async () => {
    jenkins = await startJenkins({
      quietPeriodSec: 0,
      jobs: { app: job(600), other: job(100), blocked: job(60_000) }
    })
    forgetful = await startJenkins({
      quietPeriodSec: 0,
      leftItemTtlMs: LEFT_ITEM_TTL_MS,
      jobs: { app: job(100), other: job(100) }
    })
  })
  afterAll(async () => {
    await jenkins.close()
    await forgetful.close()
  })

  it('a build number: followed from its console’s start, values read, nothing triggered', async () => {
    const build = await startBuild(jenkins, 'app')
    const triggers = jenkins.triggerCount()
    const r = await run(node, {
      ...auth(jenkins),
      job: 'app',
      build: String(build.number),
      'values-file': 'values.json'
    })
    expect(r.code, describeRun(r)).toBe(0)
    expect(r.outputs['build-number']).toBe(String(build.number))
    expect(r.outputs.result).toBe('SUCCESS')
    expect(r.outputs.values).toBe('{"version":"2.0.1"}')
    expect(r.stdout).toContain('first line of the build')
    expect(jenkins.triggerCount()).toBe(triggers)
  })

  it('a build URL (an earlier build-url output)', async () => {
    const build = await startBuild(jenkins, 'app')
    const url = `${jenkins.url}/job/app/${build.number}/`
    const r = await run(node, { ...auth(jenkins), job: 'app', build: url })
    expect(r.code, describeRun(r)).toBe(0)
    expect(r.outputs['build-url']).toBe(url)
    expect(r.stdout).toContain(`Following build #${build.number} of app: ${url}`)
    expect(r.stdout).toContain('first line of the build')
  })

  it('a queue URL kept from a wait: false step, before and after Jenkins forgot the item', async () => {
    for (const forgotten of [false, true]) {
      const server = forgotten ? forgetful : jenkins
      const first = await run(node, { ...auth(server), job: 'app', wait: 'false' })
      expect(first.code, describeRun(first)).toBe(0)
      const queueUrl = first.outputs['queue-url'] ?? ''
      const id = Number(/queue\/item\/(\d+)\/$/.exec(queueUrl)?.[1])
      if (forgotten) await untilForgotten(queueUrl)
      const triggers = server.triggerCount()
      const r = await run(node, { ...auth(server), job: 'app', build: queueUrl })
      expect(r.code, describeRun(r)).toBe(0)
      const build = server.builds('app').find(b => b.queueId === id)
      expect(r.outputs['build-number']).toBe(String(build?.number))
      expect(r.outputs['queue-url']).toBe(queueUrl)
      expect(server.triggerCount()).toBe(triggers)
      if (forgotten) expect(r.stdout).not.toContain('Waiting in the Jenkins queue')
    }
  })

  it('a queue item cancelled in Jenkins: a clear failure', async () => {
    // A running build keeps the next one of this job in the queue (blocked).
    const running = await startBuild(jenkins, 'blocked')
    const first = await run(node, { ...auth(jenkins), job: 'blocked', wait: 'false' })
    const queueUrl = first.outputs['queue-url'] ?? ''
    const id = /queue\/item\/(\d+)\/$/.exec(queueUrl)?.[1]
    expect((await adminPost(jenkins, `/queue/cancelItem?id=${id}`)).status).toBe(204)
    const r = await run(node, { ...auth(jenkins), job: 'blocked', build: queueUrl })
    expect(r.code).toBe(1)
    expect(errorAnnotation(r)).toContain(`queue item ${id} of blocked was cancelled in Jenkins`)
    await adminPost(jenkins, `/job/blocked/${running.number}/stop`)
  })

  it('another job’s build or queue URL is refused naming both jobs, nothing sent to trigger', async () => {
    const build = await startBuild(jenkins, 'other')
    const before = jenkins.requests.length
    const r = await run(node, {
      ...auth(jenkins),
      job: 'app',
      build: `${jenkins.url}/job/other/${build.number}/`
    })
    expect(r.code).toBe(1)
    expect(errorAnnotation(r)).toContain(`is a build of job 'other', not of 'app' (input 'job')`)
    // Refused before any request.
    expect(jenkins.requests.slice(before).filter(q => q.path.startsWith('/job/'))).toEqual([])

    const queued = await run(node, { ...auth(jenkins), job: 'other', wait: 'false' })
    const r2 = await run(node, {
      ...auth(jenkins),
      job: 'app',
      build: queued.outputs['queue-url'] ?? ''
    })
    expect(r2.code).toBe(1)
    expect(errorAnnotation(r2)).toMatch(/is queue item \d+ of job 'other', not of 'app'/)
  })

  it('another job’s queue URL is refused also with wait: false, before and after Jenkins forgot it; nothing triggered', async () => {
    for (const forgotten of [false, true]) {
      const server = forgotten ? forgetful : jenkins
      const queued = await run(node, { ...auth(server), job: 'other', wait: 'false' })
      expect(queued.code, describeRun(queued)).toBe(0)
      const queueUrl = queued.outputs['queue-url'] ?? ''
      const id = /queue\/item\/(\d+)\/$/.exec(queueUrl)?.[1]
      if (forgotten) await untilForgotten(queueUrl)
      // Forgotten, the item names no job any more: checked for each wait.
      for (const wait of forgotten ? ['false', 'started', 'true'] : ['false']) {
        const before = server.requests.length
        const appBuilds = server.builds('app').length
        const r = await run(node, { ...auth(server), job: 'app', build: queueUrl, wait })
        expect(r.code, `forgotten ${forgotten}, wait ${wait}: ${describeRun(r)}`).toBe(1)
        expect(errorAnnotation(r)).toContain(
          forgotten
            ? `is queue item ${id}, which Jenkins no longer knows, and no recent build of job 'app' (input 'job') came from it`
            : `is queue item ${id} of job 'other', not of 'app' (input 'job')`
        )
        expect(errorAnnotation(r)).toContain('Nothing was triggered.')
        expect(r.outputs['queue-url']).toBeUndefined()
        const mine = server.requests.slice(before).filter(q => q.job === 'app')
        expect(mine.filter(q => q.kind === 'trigger' || q.method === 'POST')).toEqual([])
        expect(server.builds('app')).toHaveLength(appBuilds)
      }
    }
  })

  it('a URL on another host is refused naming both hosts; nothing is sent there', async () => {
    const r = await run(node, {
      ...auth(jenkins),
      job: 'app',
      build: 'http://elsewhere.invalid/job/app/1/'
    })
    expect(r.code).toBe(1)
    expect(errorAnnotation(r)).toContain(
      `is on http://elsewhere.invalid/job/app, below neither 'url' (${jenkins.url})`
    )
    expect(errorAnnotation(r)).toContain('Nothing was triggered.')
  })
})

describe('build: a URL Jenkins wrote from its configured root URL', () => {
  let jenkins: TestJenkins
  beforeAll(async () => {
    jenkins = await startJenkins({
      quietPeriodSec: 0,
      rootUrl: 'https://jenkins.example.com/ci/',
      jobs: { app: job(100) }
    })
  })
  afterAll(() => jenkins.close())

  it('is followed, with every request to url', async () => {
    const build = await startBuild(jenkins, 'app')
    const r = await run(NODE, {
      ...auth(jenkins),
      job: 'app',
      build: `https://jenkins.example.com/ci/job/app/${build.number}/`
    })
    expect(r.code, describeRun(r)).toBe(0)
    expect(r.outputs['build-url']).toBe(`${jenkins.url}/job/app/${build.number}/`)
  })

  it('outside its context path: refused', async () => {
    const r = await run(NODE, {
      ...auth(jenkins),
      job: 'app',
      build: 'https://jenkins.example.com/other/job/app/1/'
    })
    expect(r.code).toBe(1)
    expect(errorAnnotation(r)).toContain(
      'the root URL Jenkins writes in its answers (https://jenkins.example.com/ci/)'
    )
  })
})

describe('cancel while following a build the step did not start', () => {
  let jenkins: TestJenkins
  beforeAll(async () => {
    jenkins = await startJenkins({ quietPeriodSec: 0, jobs: { long: job(60_000) } })
  })
  afterAll(() => jenkins.close())

  it('leaves it running, says so, and the post step sends no stop', async () => {
    const build = await startBuild(jenkins, 'long')
    const before = jenkins.requests.length
    const action = startAction(
      { ...auth(jenkins), job: 'long', build: String(build.number) },
      { node: NODE, killAfterMs: 45_000 }
    )
    await action.waitForOutput(/first line of the build/)
    action.child.kill('SIGINT')
    const r = await action.done
    expect(r.code).not.toBe(0)
    expect(r.stdout).toContain('left it running (this step did not start it)')
    const post = await run(NODE, { ...auth(jenkins), job: 'long' }, { state: r.state })
    expect(post.code, describeRun(post)).toBe(0)
    const mine = jenkins.requests.slice(before)
    const buildPath = `/job/long/${build.number}/`
    expect(mine.filter(q => q.method === 'POST' && q.path.startsWith(buildPath))).toEqual([])
    expect(mine.filter(q => q.path.startsWith('/queue/cancelItem'))).toEqual([])
    expect(build.building).toBe(true)
    await adminPost(jenkins, `${buildPath}stop`)
    await untilServer(() => (build.building ? undefined : true), 'the build to stop')
  })
})

/** Waits until the queue item at `queueUrl` answers 404 (its build started, the item forgotten). */
async function untilForgotten(queueUrl: string): Promise<void> {
  const gone = async (): Promise<boolean> =>
    (await fetch(`${queueUrl}api/json`, { headers: { authorization: basic() } })).status === 404
  const until = Date.now() + 20_000
  while (!(await gone()) && Date.now() < until) await sleep(100)
  expect(await gone()).toBe(true)
}

function basic(): string {
  return `Basic ${Buffer.from('admin:11d0f4f1a2b3c4d5e6f708192a3b4c5d6e').toString('base64')}`
}

function sleep(ms: number): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, ms))
}
