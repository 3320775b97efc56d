import { afterEach, describe, expect, it } from 'vitest'
import { startJenkins, type ServerOptions, type TestJenkins } from '../../test-server/index.js'
import { ADMIN, basic, get, getJson, post, queueId, waitFor } from './helpers.js'

let jenkins: TestJenkins | undefined

async function start(options: ServerOptions = {}): Promise<TestJenkins> {
  jenkins = await startJenkins({
    users: [
      { ...ADMIN, permissions: ['admin'] },
      { name: 'reader', apiToken: 'tok-r', permissions: ['read'] },
      { name: 'builder', apiToken: 'tok-b', permissions: ['read', 'build'] }
    ],
    quietPeriodSec: 0,
    jobs: {
      serial: { script: { durationMs: 400 } },
      parallel: { type: 'pipeline', script: { durationMs: 400 } },
      slow: { script: { durationMs: 400 } }
    },
    ...options
  })
  return jenkins
}

afterEach(async () => {
  await jenkins?.close()
  jenkins = undefined
})

type Item = Record<string, unknown> & { _class: string; why: string | null }

async function item(j: TestJenkins, id: number): Promise<Item> {
  return getJson<Item>(j, `/queue/item/${id}/api/json`)
}

describe('queue items (jenkins-api.md 4)', () => {
  it('goes Waiting (quiet period) → Left with an absolute executable and relative url', async () => {
    const j = await start()
    const res = await post(j, '/job/serial/build?delay=1sec')
    const id = queueId(res.headers.get('location'))
    const waiting = await item(j, id)
    expect(waiting._class).toBe('hudson.model.Queue$WaitingItem')
    expect(waiting.why).toMatch(/^In the quiet period\. Expires in (0\.\d+|1) sec$/)
    expect(waiting.url).toBe(`queue/item/${id}/`)
    expect(waiting.params).toBe('')
    expect(typeof waiting.timestamp).toBe('number')
    expect(waiting.task).toEqual({
      _class: 'hudson.model.FreeStyleProject',
      name: 'serial',
      url: `${j.url}/job/serial/`,
      color: 'notbuilt'
    })
    const left = await waitFor(async () => {
      const it = await item(j, id)
      return it._class === 'hudson.model.Queue$LeftItem' ? it : undefined
    }, 'LeftItem')
    expect(left.why).toBeNull()
    expect(left.cancelled).toBe(false)
    expect(left.executable).toEqual({
      _class: 'hudson.model.FreeStyleBuild',
      number: 1,
      url: `${j.url}/job/serial/1/`
    })
    const text = await get(j, `/queue/item/${id}/`)
    expect(text.headers.get('content-type')).toBe('text/plain;charset=UTF-8')
    expect(await text.text()).toContain('Queue item exists.')
  })

  it('blocks a second build of a job without concurrent builds', async () => {
    const j = await start()
    j.addJob('serial2', { parameters: [{ name: 'N' }], script: { durationMs: 300 } })
    await post(j, '/job/serial2/buildWithParameters?N=1')
    const blocked = await post(j, '/job/serial2/buildWithParameters?N=2')
    const blockedItem = await item(j, queueId(blocked.headers.get('location')))
    expect(blockedItem._class).toBe('hudson.model.Queue$BlockedItem')
    expect(blockedItem.why).toBe('Build #1 is already in progress (ETA: N/A)')
    expect(blockedItem.params).toBe('\nN=2')
    expect(blockedItem.blocked).toBe(true)
    expect(j.builds('serial2')).toHaveLength(1)
    await waitFor(() => (j.builds('serial2').length === 2 ? true : undefined), 'second build')
    expect(j.builds('serial2')[0]?.building).toBe(false)
    // With one completed build the ETA is known.
    const third = await post(j, '/job/serial2/buildWithParameters?N=3')
    const eta = await item(j, queueId(third.headers.get('location')))
    expect(eta.why).toMatch(/^Build #2 is already in progress \(ETA: (0\.\d+ sec|\d+ ms)\)$/)
  })

  it('starts builds of a pipeline concurrently by default', async () => {
    const j = await start({ executors: 3 })
    j.addJob('pipe', { type: 'pipeline', parameters: [{ name: 'N' }], script: { durationMs: 300 } })
    await post(j, '/job/pipe/buildWithParameters?N=1')
    await post(j, '/job/pipe/buildWithParameters?N=2')
    expect(j.builds('pipe').filter(b => b.building)).toHaveLength(2)
  })

  it('waits for an executor when all are busy', async () => {
    const j = await start({ executors: 1 })
    await post(j, '/job/serial/build')
    const res = await post(j, '/job/slow/build')
    const waiting = await item(j, queueId(res.headers.get('location')))
    expect(waiting._class).toBe('hudson.model.Queue$BuildableItem')
    expect(waiting.why).toBe('Waiting for next available executor')
    expect(waiting.buildable).toBe(true)
    await waitFor(() => (j.builds('slow').length === 1 ? true : undefined), 'slow to start')
    expect(j.builds('serial')[0]?.building).toBe(false)
  })

  it('shows executable:null for a configurable window before the run exists', async () => {
    const j = await start({ executableDelayMs: 300 })
    const res = await post(j, '/job/serial/build')
    const left = await item(j, queueId(res.headers.get('location')))
    expect(left._class).toBe('hudson.model.Queue$LeftItem')
    expect(left.executable).toBeNull()
    expect(left.cancelled).toBe(false)
    await waitFor(async () => {
      const it = await item(j, queueId(res.headers.get('location')))
      return it.executable ? it : undefined
    }, 'executable')
  })

  it('forgets LeftItems after the TTL', async () => {
    const j = await start({ leftItemTtlMs: 200 })
    const res = await post(j, '/job/serial/build')
    const id = queueId(res.headers.get('location'))
    expect((await get(j, `/queue/item/${id}/api/json`)).status).toBe(200)
    await waitFor(async () =>
      (await get(j, `/queue/item/${id}/api/json`)).status === 404 ? true : undefined
    )
    expect(j.builds('serial')[0]?.queueId).toBe(id)
  })

  it('cancelItem answers 204, then 500 once left, 404 when unknown, 422 without Cancel, 405 on GET', async () => {
    const j = await start({ quietPeriodSec: 60 })
    const res = await post(j, '/job/serial/build')
    const id = queueId(res.headers.get('location'))
    expect((await get(j, `/queue/cancelItem?id=${id}`)).status).toBe(405)
    const denied = await post(j, `/queue/cancelItem?id=${id}`, { auth: basic('reader', 'tok-r') })
    expect(denied.status).toBe(422)
    const cancelled = await post(j, `/queue/cancelItem?id=${id}`)
    expect(cancelled.status).toBe(204)
    expect(cancelled.headers.get('x-jenkins')).toBeNull()
    const left = await item(j, id)
    expect(left._class).toBe('hudson.model.Queue$LeftItem')
    expect(left.cancelled).toBe(true)
    expect(left.executable).toBeNull()
    expect((await post(j, `/queue/cancelItem?id=${id}`)).status).toBe(500)
    expect((await post(j, '/queue/cancelItem?id=9999')).status).toBe(404)
  })

  it('lets a user who may build cancel (Job/Cancel is implied by Job/Build)', async () => {
    const j = await start({ quietPeriodSec: 60 })
    const res = await post(j, '/job/serial/build', { auth: basic('builder', 'tok-b') })
    const id = queueId(res.headers.get('location'))
    const cancelled = await post(j, `/queue/cancelItem?id=${id}`, {
      auth: basic('builder', 'tok-b')
    })
    expect(cancelled.status).toBe(204)
  })

  it('cancels queued items when the job is disabled', async () => {
    const j = await start({ quietPeriodSec: 60 })
    const res = await post(j, '/job/serial/build')
    const id = queueId(res.headers.get('location'))
    expect((await post(j, '/job/serial/disable')).status).toBe(302)
    const left = await item(j, id)
    expect(left.cancelled).toBe(true)
    const job = await getJson<{ inQueue: boolean; color: string; buildable: boolean }>(
      j,
      '/job/serial/api/json'
    )
    expect(job).toMatchObject({ inQueue: false, color: 'disabled', buildable: false })
  })

  it("a timer's request (TimerTrigger.run): every default, no quiet period, folded with an equal request like any other", async () => {
    const j = await start({
      jobs: {
        blocked: {
          parameters: [
            { name: 'PACKAGE', type: 'file' },
            { name: 'TARGET', default: 'staging' }
          ],
          script: { durationMs: 5000 }
        }
      }
    })
    await post(j, '/job/blocked/buildWithParameters?TARGET=first&delay=0sec')
    await waitFor(() => (j.builds('blocked')[0] ? true : undefined))
    const timer = j.timer('blocked')
    expect(timer.state).toBe('blocked')
    expect(timer.parameters).toEqual([{ name: 'TARGET', type: 'string', value: 'staging' }])
    const res = await post(j, '/job/blocked/buildWithParameters?delay=0sec')
    expect(res.status).toBe(303)
    expect(queueId(res.headers.get('location'))).toBe(timer.id)
    // A second timer request counts again (TimerTriggerCause equals every other).
    expect(j.timer('blocked')).toBe(timer)
    const exported = await item(j, timer.id)
    const causes = (exported.actions as Array<{ causes?: Array<{ _class: string }> }>)
      .flatMap(a => a.causes ?? [])
      .map(c => c._class)
    expect(causes).toEqual([
      'hudson.triggers.TimerTrigger$TimerTriggerCause',
      'hudson.triggers.TimerTrigger$TimerTriggerCause',
      'hudson.model.Cause$UserIdCause'
    ])
  })
})
