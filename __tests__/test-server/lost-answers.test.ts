import { afterEach, describe, expect, it } from 'vitest'
import { startJenkins, type TestJenkins } from '../../test-server/index.js'
import { ADMIN, get, post } from './helpers.js'

const servers: TestJenkins[] = []

afterEach(async () => {
  await Promise.all(servers.splice(0).map(s => s.close()))
})

async function start(lostAs: Array<'drop' | number>): Promise<TestJenkins> {
  const j = await startJenkins({
    users: [{ ...ADMIN, permissions: ['admin'] }],
    quietPeriodSec: 0,
    jobs: { app: { script: { durationMs: 100 } } },
    faults: { lostAnswerRate: 1, lostAs, kinds: ['trigger'] }
  })
  servers.push(j)
  return j
}

describe('lost answers: Jenkins acts, the client never hears of it', () => {
  it('answers a 502 for a trigger that queued a build', async () => {
    const j = await start([502])
    const res = await post(j, '/job/app/build?delay=0sec')
    expect(res.status).toBe(502)
    expect(res.headers.get('location')).toBeNull()
    expect(j.state.queue.filter(i => i.job.fullName === 'app')).toHaveLength(1)
    expect(j.requests.at(-1)).toMatchObject({ fault: 'lost', status: 502, actedStatus: 201 })
    // The trigger acted, so it counts.
    expect(j.triggerCount('app')).toBe(1)
    // Other kinds are not aimed at.
    expect((await get(j, '/job/app/api/json')).status).toBe(200)
  })

  it('drops the connection for a trigger that queued a build', async () => {
    const j = await start(['drop'])
    await expect(post(j, '/job/app/build?delay=0sec')).rejects.toThrow()
    await new Promise(resolve => setTimeout(resolve, 20))
    expect(j.state.queue.filter(i => i.job.fullName === 'app')).toHaveLength(1)
    expect(j.requests.at(-1)).toMatchObject({ fault: 'lost', status: 0, actedStatus: 201 })
    expect(j.triggerCount('app')).toBe(1)
  })
})
