/**
 * BuildsFollower with the real client against the test server: what it asks
 * Jenkins for, and how it falls back when a list is refused or hides builds.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { JenkinsClient } from '../../src/jenkins/client.js'
import type { Build, BuildRef } from '../../src/jenkins/model/types.js'
import { silentLogger } from '../fixtures/recording-logger.js'
import { BuildsFollower } from '../../src/follow/follow-builds.js'
import { StepAborted } from '../../src/util/wait.js'
import { startJenkins, type ServerOptions, type TestJenkins } from '../../test-server/index.js'

const TOKEN = 'tok-admin'
let jenkins: TestJenkins | undefined

afterEach(async () => {
  await jenkins?.close()
  jenkins = undefined
})

async function start(options: ServerOptions = {}): Promise<TestJenkins> {
  jenkins = await startJenkins({
    users: [{ name: 'admin', password: 'pw', apiToken: TOKEN, permissions: ['admin'] }],
    quietPeriodSec: 0,
    executors: 4,
    jobs: {
      a: { script: { durationMs: 400 } },
      b: { type: 'pipeline', script: { durationMs: 700, result: 'UNSTABLE' } },
      c: { script: { durationMs: 900 } }
    },
    ...options
  })
  return jenkins
}

interface Seen {
  started: Array<[number, number]>
  ended: Array<[number, Build]>
  failed: Array<[number, string]>
  waiting: Array<[number, string]>
}

/** Triggers each job through the API and follows the three builds to their ends. */
async function follow(
  j: TestJenkins,
  jobs = ['a', 'b', 'c'],
  signal = new AbortController().signal
) {
  const api = new JenkinsClient({ url: j.url, user: 'admin', token: TOKEN, logger: silentLogger })
  const seen: Seen = { started: [], ended: [], failed: [], waiting: [] }
  const debug: string[] = []
  const follower = new BuildsFollower({
    api,
    logger: { ...silentLogger, debug: message => void debug.push(message) },
    signal,
    hooks: {
      waiting: (t, why) => void seen.waiting.push([t, why]),
      started: (t, ref: BuildRef) => void seen.started.push([t, ref.number]),
      ended: (t, build) => void seen.ended.push([t, build]),
      failed: (t, error) => void seen.failed.push([t, error.message]),
      inputs: () => undefined
    }
  })
  const tracks = new Map<number, string>()
  for (const job of jobs) {
    const info = await api.getJob([job])
    const queued = await api.trigger(info, [job], {})
    tracks.set(follower.addQueued([job], queued.queueId), job)
  }
  const from = j.requests.length
  await follower.run()
  api.http.dispose()
  // Said once the builds were followed without the running list.
  const batched = !debug.includes(
    'Followed the builds one by one: Jenkins did not show them in computer/api/json.'
  )
  return { seen, tracks, requests: j.requests.slice(from), batched }
}

describe('BuildsFollower', () => {
  it('follows several builds with rounds of computer/api/json, one full read each at its end', async () => {
    const j = await start()
    const { seen, tracks, requests, batched } = await follow(j)
    expect(seen.ended.map(([t, b]) => [tracks.get(t), b.result]).sort()).toEqual([
      ['a', 'SUCCESS'],
      ['b', 'UNSTABLE'],
      ['c', 'SUCCESS']
    ])
    expect(batched).toBe(true)
    const builds = requests.filter(r => r.kind === 'build')
    // One read per build, its report: never a poll of a build.
    expect(builds.map(r => r.path).sort()).toEqual([
      '/job/a/1/api/json',
      '/job/b/1/api/json',
      '/job/c/1/api/json'
    ])
    expect(requests.filter(r => r.kind === 'queue' && r.path.startsWith('/queue/item/'))).toEqual(
      []
    )
    expect(requests.filter(r => r.kind === 'computer').length).toBeGreaterThan(0)
  })

  it('computer/api/json refused (403): each build is polled on its own, and still reported', async () => {
    const j = await start()
    j.aim({ kind: 'computer', effect: { type: 'status', status: 403 } })
    const { seen, requests, batched } = await follow(j)
    expect(seen.ended).toHaveLength(3)
    expect(batched).toBe(false)
    // Refused once, never asked again.
    expect(requests.filter(r => r.kind === 'computer')).toHaveLength(1)
    expect(
      requests.filter(r => r.kind === 'build' && r.query.includes('tree=')).length
    ).toBeGreaterThan(0)
  })

  it('a list that shows none of our builds: found running by one read, then followed on their own', async () => {
    const j = await start({ executorsHidden: true })
    const { seen, requests, batched } = await follow(j)
    expect(seen.ended).toHaveLength(3)
    expect(batched).toBe(false)
    expect(requests.filter(r => r.kind === 'computer').length).toBeLessThanOrEqual(3)
  })

  it('an item cancelled in the queue is reported failed, the others followed to their end', async () => {
    const j = await start({ executors: 0 })
    const api = new JenkinsClient({ url: j.url, user: 'admin', token: TOKEN, logger: silentLogger })
    const seen: Seen = { started: [], ended: [], failed: [], waiting: [] }
    const follower = new BuildsFollower({
      api,
      logger: silentLogger,
      signal: new AbortController().signal,
      hooks: {
        waiting: (t, why) => {
          seen.waiting.push([t, why])
          // Someone cancels the item while it waits.
          void api.cancelQueueItem(queueId)
        },
        started: () => undefined,
        ended: (t, build) => void seen.ended.push([t, build]),
        failed: (t, error) => void seen.failed.push([t, error.message]),
        inputs: () => undefined
      }
    })
    const info = await api.getJob(['a'])
    const { queueId } = await api.trigger(info, ['a'], {})
    follower.addQueued(['a'], queueId)
    await follower.run()
    api.http.dispose()
    expect(seen.waiting[0]?.[1]).toMatch(/Waiting for next available executor/)
    expect(seen.failed).toEqual([
      [
        0,
        `The queue item ${queueId} of a was cancelled in Jenkins before it started (by a user, or because the job was disabled).`
      ]
    ])
  })

  it('ends with StepAborted when the step is stopped', async () => {
    const j = await start({ jobs: { a: { script: { durationMs: 30_000 } } } })
    const controller = new AbortController()
    const running = follow(j, ['a'], controller.signal)
    while (!j.builds('a')[0]) await new Promise(resolve => setTimeout(resolve, 10))
    controller.abort('cancelled')
    await expect(running).rejects.toBeInstanceOf(StepAborted)
    await fetch(`${j.url}/job/a/1/stop`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`admin:${TOKEN}`).toString('base64')}` }
    })
  })
})
