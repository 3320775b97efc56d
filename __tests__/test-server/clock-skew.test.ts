import { afterEach, describe, expect, it } from 'vitest'
import { startJenkins, type TestJenkins } from '../../test-server/index.js'
import { ADMIN, get, getJson, post, queueId, waitFor } from './helpers.js'

const servers: TestJenkins[] = []
const SKEW_MS = -75_447 * 3_600_000

afterEach(async () => {
  await Promise.all(servers.splice(0).map(s => s.close()))
})

describe('a Jenkins whose clock is off (clockSkewMs)', () => {
  it('reports every time on its own clock: Date header, inQueueSince, timestamp', async () => {
    const jenkins = await startJenkins({
      users: [{ ...ADMIN, permissions: ['admin'] }],
      quietPeriodSec: 0,
      clockSkewMs: SKEW_MS,
      jobs: { app: { script: { durationMs: 100 } } }
    })
    servers.push(jenkins)
    const before = Date.now()
    const res = await get(jenkins, '/api/json')
    await res.body?.cancel()
    const date = Date.parse(res.headers.get('date') ?? '')
    // HTTP dates have whole seconds.
    expect(Math.abs(date - (before + SKEW_MS))).toBeLessThan(5_000)

    const id = queueId((await post(jenkins, '/job/app/build?delay=0sec')).headers.get('location'))
    const item = await waitFor(async () => {
      const json = await getJson<{ inQueueSince: number; executable: { number: number } | null }>(
        jenkins,
        `/queue/item/${id}/api/json`
      )
      return json.executable ? json : undefined
    }, 'the build')
    const build = await getJson<{ timestamp: number }>(
      jenkins,
      `/job/app/${item.executable?.number}/api/json`
    )
    const state = jenkins.state.queue.find(i => i.id === id)
    expect(item.inQueueSince).toBe((state?.inQueueSince ?? NaN) + SKEW_MS)
    expect(build.timestamp).toBe((jenkins.builds('app')[0]?.startedAt ?? NaN) + SKEW_MS)
    // On one clock, the wait is what it was: neither negative nor hours.
    expect(build.timestamp - item.inQueueSince).toBeGreaterThanOrEqual(0)
    expect(build.timestamp - item.inQueueSince).toBeLessThan(10_000)
  })
})
