import { afterEach, describe, expect, it } from 'vitest'
import { startJenkins, type ServerOptions, type TestJenkins } from '../../test-server/index.js'
import { ADMIN, get, getJson, post, queueId, waitFor } from './helpers.js'

let jenkins: TestJenkins | undefined

const JOBS: ServerOptions['jobs'] = {
  plain: { script: { durationMs: 100 } },
  off: { disabled: true },
  params: {
    parameters: [
      { name: 'BRANCH', default: 'main' },
      { name: 'DEBUG', type: 'boolean', default: true },
      { name: 'TARGET', type: 'choice', choices: ['staging', 'production'] }
    ],
    script: { durationMs: 100 }
  },
  team: { type: 'folder', jobs: { svc: { script: { durationMs: 100 } } } }
}

async function start(options: ServerOptions = {}): Promise<TestJenkins> {
  jenkins = await startJenkins({
    users: [{ ...ADMIN, permissions: ['admin'] }],
    quietPeriodSec: 60,
    jobs: JOBS,
    ...options
  })
  return jenkins
}

afterEach(async () => {
  await jenkins?.close()
  jenkins = undefined
})

describe('POST build (jenkins-api.md 3.1)', () => {
  it('answers 201 with an absolute queue Location from the Host header and an empty body', async () => {
    const j = await start({ rootUrl: 'https://ci.example.com/', contextPath: '/ci' })
    const res = await post(j, '/job/plain/build')
    expect(res.status).toBe(201)
    const port = new URL(j.url).port
    expect(res.headers.get('location')).toBe(`http://127.0.0.1:${port}/ci/queue/item/1/`)
    expect(await res.text()).toBe('')
    expect(res.headers.get('x-jenkins')).toBeNull()
    // A second /build merges into the queued item: the same 201 and Location.
    const merged = await post(j, '/job/plain/build')
    expect(merged.status).toBe(201)
    expect(merged.headers.get('location')).toBe(res.headers.get('location'))
    expect(j.state.queue).toHaveLength(1)
  })

  it('honours X-Forwarded-Proto and X-Forwarded-Host in the Location', async () => {
    const j = await start()
    const res = await post(j, '/job/plain/build', {
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'proxy.example' }
    })
    expect(res.headers.get('location')).toBe('https://proxy.example/queue/item/1/')
  })

  it('checks buildable first (409 even for GET), then the method (405)', async () => {
    const j = await start()
    const disabled = await post(j, '/job/off/build')
    expect(disabled.status).toBe(409)
    expect(await disabled.text()).toContain('off is not buildable')
    expect((await get(j, '/job/off/build')).status).toBe(409)
    const getPlain = await get(j, '/job/plain/build')
    expect(getPlain.status).toBe(405)
    expect(getPlain.headers.get('allow')).toBe('POST')
    // Parameterized + GET: the parameters form, 405 without Allow.
    const getParams = await get(j, '/job/params/build')
    expect(getParams.status).toBe(405)
    expect(getParams.headers.get('allow')).toBeNull()
    expect((await post(j, '/job/nope/build')).status).toBe(404)
  })

  it('refuses /build on a parameterized job without json (400)', async () => {
    const j = await start()
    const none = await post(j, '/job/params/build')
    expect(none.status).toBe(400)
    expect(await none.text()).toContain('Nothing is submitted')
    const some = await post(j, '/job/params/build?delay=0sec')
    expect(some.status).toBe(400)
    expect(await some.text()).toContain('This page expects a form submission')
    const json = JSON.stringify({ parameter: [{ name: 'BRANCH', value: 'dev' }] })
    const withJson = await post(j, '/job/params/build', {
      body: `json=${encodeURIComponent(json)}`
    })
    expect(withJson.status).toBe(201)
    expect(j.state.queue[0]?.parameters).toEqual([{ name: 'BRANCH', type: 'string', value: 'dev' }])
  })

  it('builds a job in a folder', async () => {
    const j = await start()
    expect((await post(j, '/job/team/job/svc/build')).status).toBe(201)
    expect((await post(j, '/job/team/svc/build')).status).toBe(404)
    expect(j.triggerCount('team/svc')).toBe(1)
  })
})

describe('POST buildWithParameters (jenkins-api.md 3.2)', () => {
  it('fills defaults, ignores unknown names, answers 303 when merged and 201 when different', async () => {
    const j = await start()
    const first = await post(j, '/job/params/buildWithParameters', {
      body: 'BRANCH=feature&UNKNOWN=x&branch=lower'
    })
    expect(first.status).toBe(201)
    const id = queueId(first.headers.get('location'))
    const item = j.state.queue.find(i => i.id === id)
    expect(item?.parameters).toEqual([
      { name: 'BRANCH', type: 'string', value: 'feature' },
      { name: 'DEBUG', type: 'boolean', value: true },
      { name: 'TARGET', type: 'choice', value: 'staging' }
    ])
    const same = await post(j, '/job/params/buildWithParameters?BRANCH=feature')
    expect(same.status).toBe(303)
    expect(same.headers.get('location')).toBe(first.headers.get('location'))
    const different = await post(j, '/job/params/buildWithParameters', { body: 'BRANCH=other' })
    expect(different.status).toBe(201)
    expect(different.headers.get('location')).not.toBe(first.headers.get('location'))
    expect(j.triggerCount('params')).toBe(3)
  })

  it('parses booleans like Java parseBoolean', async () => {
    const j = await start()
    for (const [text, value] of [
      ['TRUE', true],
      ['yes', false],
      ['1', false]
    ] as const) {
      const res = await post(j, '/job/params/buildWithParameters', {
        body: `DEBUG=${text}&BRANCH=${text}`
      })
      expect(res.status).toBe(201)
      const item = j.state.queue.find(i => i.id === queueId(res.headers.get('location')))
      expect(item?.parameters.find(p => p.name === 'DEBUG')?.value).toBe(value)
    }
  })

  it('answers 500 for several values or a bad choice, 400 when not parameterized, 409 when disabled', async () => {
    const j = await start()
    expect(
      (await post(j, '/job/params/buildWithParameters', { body: 'BRANCH=a&BRANCH=b' })).status
    ).toBe(500)
    expect(j.state.queue).toHaveLength(0)
    // Jenkins' error page: a Logging ID, and the exception only when Jenkins shows stack traces.
    const choice = await post(j, '/job/params/buildWithParameters', { body: 'TARGET=moon' })
    expect(choice.status).toBe(500)
    expect(choice.headers.get('x-jenkins')).toBe('2.541.1')
    const page = await choice.text()
    expect(page).toContain(
      '<h2 style="text-align: center">A problem occurred while processing the request</h2>'
    )
    expect(page).toMatch(/<p style="text-align: center">Logging ID=[0-9a-f-]{36}<\/p>/)
    expect(page).not.toContain('Illegal choice')
    await j.close()
    const shown = await start({ showStackTrace: true })
    const traced = await post(shown, '/job/params/buildWithParameters', { body: 'TARGET=moon' })
    expect(traced.status).toBe(500)
    expect(await traced.text()).toContain(
      'Caused by: java.lang.IllegalArgumentException: Illegal choice for parameter TARGET: moon\n'
    )
    const plain = await post(shown, '/job/plain/buildWithParameters')
    expect(plain.status).toBe(400)
    expect(await plain.text()).toContain('plain is not parameterized')
    expect((await post(shown, '/job/off/buildWithParameters')).status).toBe(409)
    // Method is checked before buildable here.
    expect((await get(shown, '/job/off/buildWithParameters')).status).toBe(405)
    expect(shown.state.queue).toHaveLength(0)
  })
})

describe('delay (jenkins-api.md 3.5)', () => {
  it('reads a bare number as ms, Nsec / N secs as seconds, and anything else as an error', async () => {
    const j = await start()
    const cases: Array<[string, number]> = [
      ['0sec', 0],
      ['10%20secs', 10],
      ['3000', 3],
      ['5', 0]
    ]
    for (const [delay, seconds] of cases) {
      const before = Date.now()
      const res = await post(j, `/job/params/buildWithParameters?delay=${delay}&BRANCH=${delay}`)
      expect(res.status).toBe(201)
      const item = j.state.queue.find(i => i.id === queueId(res.headers.get('location')))
      if (!item) throw new Error('no item')
      if (seconds === 0) expect(item.state).not.toBe('waiting')
      else {
        expect(item.dueAt - before).toBeGreaterThanOrEqual(seconds * 1000 - 50)
        expect(item.dueAt - before).toBeLessThan(seconds * 1000 + 1000)
      }
    }
    expect((await post(j, '/job/plain/build?delay=5min')).status).toBe(500)
  })

  it('uses the job quiet period when no delay is given', async () => {
    const j = await start()
    j.addJob('quick', { quietPeriodSec: 0, script: { durationMs: 100 } })
    const res = await post(j, '/job/quick/build')
    const item = await getJson<{ _class: string }>(
      j,
      `/queue/item/${queueId(res.headers.get('location'))}/api/json`
    )
    expect(item._class).toBe('hudson.model.Queue$LeftItem')
  })
})

type Causes = Array<{ _class: string; userId: string | null; shortDescription: string }>

/** The causes exported in a queue item's or build's CauseAction. */
function causesOf(json: { actions: Array<{ _class?: string; causes?: Causes }> }): Causes {
  return json.actions.find(a => a._class === 'hudson.model.CauseAction')?.causes ?? []
}

describe('folding a request into a queued item (Queue.scheduleInternal, CauseAction)', () => {
  it('adds each folded cause to the item and the build, once per request, grouped like the cause bag', async () => {
    const j = await start({
      users: [
        { ...ADMIN, permissions: ['admin'] },
        { name: 'bob', apiToken: 'tok-bob', permissions: ['read', 'build'] }
      ]
    })
    const bob = `Basic ${Buffer.from('bob:tok-bob').toString('base64')}`
    const first = await post(j, '/job/plain/build')
    const id = queueId(first.headers.get('location'))
    expect(causesOf(await getJson(j, `/queue/item/${id}/api/json`))).toHaveLength(1)
    for (const auth of [bob, undefined]) {
      const again = await post(j, '/job/plain/build', { auth })
      expect(again.status).toBe(201)
      expect(queueId(again.headers.get('location'))).toBe(id)
    }
    // CauseAction.getCauses(): each distinct cause repeated by its count, in first-seen order.
    expect(causesOf(await getJson(j, `/queue/item/${id}/api/json`)).map(c => c.userId)).toEqual([
      'admin',
      'admin',
      'bob'
    ])
    // The build carries the item's actions (Executor.run), so the same bag.
    await post(j, '/job/plain/build?delay=0sec')
    const build = await waitFor(() => j.builds('plain')[0], 'the build')
    expect(build.queueId).toBe(id)
    const json = await getJson<{ actions: Array<{ _class?: string; causes?: Causes }> }>(
      j,
      '/job/plain/1/api/json?tree=actions[causes[userId]]'
    )
    expect(causesOf(json).map(c => c.userId)).toEqual(['admin', 'admin', 'admin', 'bob'])
    expect(j.builds('plain')).toHaveLength(1)
  })

  it('merges a parameterized request only with an equal parameter set (303), folding its cause', async () => {
    const j = await start()
    const first = await post(j, '/job/params/buildWithParameters?BRANCH=x')
    const id = queueId(first.headers.get('location'))
    expect((await post(j, '/job/params/buildWithParameters?BRANCH=x')).status).toBe(303)
    const other = await post(j, '/job/params/buildWithParameters?BRANCH=y')
    expect(other.status).toBe(201)
    const otherId = queueId(other.headers.get('location'))
    expect(causesOf(await getJson(j, `/queue/item/${id}/api/json`))).toHaveLength(2)
    expect(causesOf(await getJson(j, `/queue/item/${otherId}/api/json`))).toHaveLength(1)
  })
})
