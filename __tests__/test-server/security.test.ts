import { afterEach, describe, expect, it } from 'vitest'
import {
  startJenkins,
  type RequestLogEntry,
  type ServerOptions,
  type TestJenkins
} from '../../test-server/index.js'
import { ADMIN, PASSWORD, TOKEN, basic, crumbSession, get, post, queueId } from './helpers.js'

let jenkins: TestJenkins | undefined

async function start(options: ServerOptions = {}): Promise<TestJenkins> {
  jenkins = await startJenkins({
    users: [
      { ...ADMIN, permissions: ['admin'] },
      { name: 'builder', password: 'pw-b', apiToken: 'tok-b', permissions: ['read', 'build'] }
    ],
    quietPeriodSec: 60,
    jobs: { app: { script: { durationMs: 100 } } },
    ...options
  })
  return jenkins
}

afterEach(async () => {
  await jenkins?.close()
  jenkins = undefined
})

describe('filter order (jenkins-api.md 0)', () => {
  it('answers 401 for bad credentials before the crumb check and before 404', async () => {
    const j = await start()
    for (const auth of [basic('admin', 'wrong'), basic('nobody', 'x'), 'Basic !!!notbase64']) {
      const res = await post(j, '/job/missing/build', { auth })
      expect(res.status).toBe(401)
      expect(res.headers.get('www-authenticate')).toBe('Basic realm="Jenkins"')
      expect(res.headers.get('x-jenkins')).toBeNull()
    }
    // Even on URLs anyone may read.
    expect((await get(j, '/whoAmI/api/json', basic('admin', 'wrong'))).status).toBe(401)
    expect((await get(j, '/login', basic('admin', 'wrong'))).status).toBe(401)
  })

  it('checks the crumb before looking up the job: unknown job without crumb is 403', async () => {
    const j = await start()
    const res = await post(j, '/job/missing/build', { auth: PASSWORD })
    expect(res.status).toBe(403)
    expect(await res.text()).toContain('No valid crumb was included in the request')
    expect(res.headers.get('x-jenkins')).toBeNull()
    // With a valid crumb the lookup happens: 404 HTML, which creates a session.
    const s = await crumbSession(j)
    const found = await post(j, '/job/missing/build', {
      auth: PASSWORD,
      headers: { cookie: s.cookie, [s.field]: s.crumb }
    })
    expect(found.status).toBe(404)
    expect(found.headers.get('content-type')).toContain('text/html')
    expect(found.headers.get('x-jenkins')).toBe('2.541.1')
  })

  it('rejects a raw semicolon with 400 but accepts %3B', async () => {
    const j = await start()
    expect((await get(j, '/job/app;x/api/json')).status).toBe(400)
    expect((await get(j, '/job/app%3Bx/api/json')).status).toBe(404)
  })
})

describe('authentication and authorisation (jenkins-api.md 2)', () => {
  it('sends the 403 login page, not a challenge, to anonymous callers', async () => {
    const j = await start({ contextPath: '/jenkins' })
    const res = await get(j, '/api/json?pretty', null)
    expect(res.status).toBe(403)
    expect(res.headers.get('www-authenticate')).toBeNull()
    expect(res.headers.get('x-jenkins')).toBe('2.541.1')
    expect(res.headers.get('x-hudson')).toBe('1.395')
    const body = await res.text()
    expect(body).toContain("url=/jenkins/login?from=%2Fjenkins%2Fapi%2Fjson%3Fpretty'")
    expect(body).toContain('Authentication required')
  })

  it('lets anonymous read when configured, but not build', async () => {
    const j = await start({ anonymousRead: true, csrf: false })
    expect((await get(j, '/api/json', null)).status).toBe(200)
    const res = await fetch(`${j.url}/job/app/build`, { method: 'POST', redirect: 'manual' })
    expect(res.status).toBe(403)
    expect(await res.text()).toContain('/login?from=')
  })

  it('answers whoAmI without Overall/Read', async () => {
    const j = await start()
    const anon = await get(j, '/whoAmI/api/json', null)
    expect(anon.status).toBe(200)
    expect(await anon.json()).toEqual({
      _class: 'hudson.security.WhoAmI',
      anonymous: true,
      authenticated: true,
      authorities: ['anonymous'],
      name: 'anonymous'
    })
    const me = (await (await get(j, '/whoAmI/api/json', TOKEN)).json()) as Record<string, unknown>
    expect(me.name).toBe('admin')
    expect(me.anonymous).toBe(false)
  })

  it('answers 403 with permission headers to a user who may build but not configure', async () => {
    const j = await start()
    const res = await post(j, '/job/app/disable', { auth: basic('builder', 'tok-b') })
    expect(res.status).toBe(403)
    expect(res.headers.get('x-you-are-authenticated-as')).toBe('builder')
    expect(res.headers.get('x-required-permission')).toBe('hudson.model.Item.Configure')
    expect(res.headers.get('content-type')).toContain('text/html')
    expect(j.state.findJob('app')?.disabled).toBe(false)
    // The same user may build.
    expect((await post(j, '/job/app/build', { auth: basic('builder', 'tok-b') })).status).toBe(201)
  })
})

describe('crumbs and sessions (jenkins-api.md 1)', () => {
  it('binds the crumb to the session cookie it set', async () => {
    const j = await start({ crumbField: 'Automation-Crumb' })
    const res = await get(j, '/crumbIssuer/api/json', PASSWORD)
    const setCookie = res.headers.get('set-cookie') ?? ''
    expect(setCookie).toMatch(/^JSESSIONID\.[0-9a-f]{8}=[^;]+; Path=\/; HttpOnly$/)
    expect(setCookie.startsWith(j.cookieName + '=')).toBe(true)
    const body = await res.text()
    expect(body).toMatch(
      /^\{"_class":"hudson.security.csrf.DefaultCrumbIssuer","crumb":"[0-9a-f]{64}","crumbRequestField":"Automation-Crumb"\}$/
    )
    const { crumb } = JSON.parse(body) as { crumb: string }
    const cookie = setCookie.split(';')[0] ?? ''

    const noCookie = await post(j, '/job/app/build', {
      auth: PASSWORD,
      headers: { 'Automation-Crumb': crumb }
    })
    expect(noCookie.status).toBe(403)
    const wrongCrumb = await post(j, '/job/app/build', {
      auth: PASSWORD,
      headers: { cookie, 'Automation-Crumb': crumb.replace(/.$/, c => (c === '0' ? '1' : '0')) }
    })
    expect(wrongCrumb.status).toBe(403)
    const ok = await post(j, '/job/app/build', {
      auth: PASSWORD,
      headers: { cookie, 'Automation-Crumb': crumb }
    })
    expect(ok.status).toBe(201)
    // Jenkins-Crumb is not accepted when the field is named otherwise.
    const otherName = await post(j, '/job/app/build', {
      auth: PASSWORD,
      headers: { cookie, 'Jenkins-Crumb': crumb }
    })
    expect(otherName.status).toBe(403)
  })

  it('reads the crumb from a form or query parameter when the header is absent', async () => {
    const j = await start()
    const s = await crumbSession(j)
    const form = await post(j, '/job/app/build', {
      auth: PASSWORD,
      headers: { cookie: s.cookie },
      body: `${s.field}=${s.crumb}`
    })
    expect(form.status).toBe(201)
    const query = await post(j, `/job/app/build?${s.field}=${s.crumb}`, {
      auth: PASSWORD,
      headers: { cookie: s.cookie }
    })
    expect(query.status).toBe(201)
  })

  it('exempts API-token requests, even with a wrong crumb; checks only POST', async () => {
    const j = await start()
    expect((await post(j, '/job/app/build', { auth: TOKEN })).status).toBe(201)
    const wrong = await post(j, '/job/app/build', {
      auth: TOKEN,
      headers: { 'Jenkins-Crumb': 'nonsense' }
    })
    expect(wrong.status).toBe(201)
    expect((await get(j, '/job/app/api/json', PASSWORD)).status).toBe(200)
    // POST on api/json goes through the crumb check like any POST.
    expect((await post(j, '/job/app/api/json', { auth: PASSWORD })).status).toBe(403)
    expect((await post(j, '/job/app/api/json', { auth: TOKEN })).status).toBe(200)
  })

  it('serves the special crumb xpath forms as text/plain without newline', async () => {
    const j = await start()
    const s = await crumbSession(j)
    const xpath = encodeURIComponent('concat(//crumbRequestField,":",//crumb)')
    const res = await get(j, `/crumbIssuer/api/xml?xpath=${xpath}`, PASSWORD, {
      cookie: s.cookie
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/plain;charset=UTF-8')
    expect(await res.text()).toBe(`Jenkins-Crumb:${s.crumb}`)
    const eq = encodeURIComponent("concat(//crumbRequestField,'=',//crumb)")
    const eqRes = await get(j, `/crumbIssuer/api/xml?xpath=${eq}`, PASSWORD, { cookie: s.cookie })
    expect(await eqRes.text()).toBe(`Jenkins-Crumb=${s.crumb}`)
    const other = encodeURIComponent('string(//crumb)')
    expect((await get(j, `/crumbIssuer/api/xml?xpath=${other}`, PASSWORD)).status).toBe(403)
    // The text crumb works with its cookie like the JSON one.
    const ok = await post(j, '/job/app/build', {
      auth: PASSWORD,
      headers: { cookie: s.cookie, 'Jenkins-Crumb': s.crumb }
    })
    expect(ok.status).toBe(201)
  })

  it('has no crumb issuer when CSRF protection is off', async () => {
    const j = await start({ csrf: false })
    expect((await get(j, '/crumbIssuer/api/json', PASSWORD)).status).toBe(404)
    const root = (await (await get(j, '/api/json', PASSWORD)).json()) as { useCrumbs: boolean }
    expect(root.useCrumbs).toBe(false)
    expect((await post(j, '/job/app/build', { auth: PASSWORD })).status).toBe(201)
  })

  it('restart drops sessions and LeftItems, keeps jobs and builds, refuses connections meanwhile', async () => {
    const j = await start({ quietPeriodSec: 0, restartDowntimeMs: 300 })
    const s = await crumbSession(j)
    const trigger = await post(j, '/job/app/build', {
      auth: PASSWORD,
      headers: { cookie: s.cookie, [s.field]: s.crumb }
    })
    expect(trigger.status).toBe(201)
    const oldCookieName = j.cookieName
    const restarting = j.restart()
    await new Promise(r => setTimeout(r, 100))
    await expect(fetch(`${j.url}/api/json`)).rejects.toThrow()
    await restarting
    expect(j.cookieName).not.toBe(oldCookieName)
    const again = await post(j, '/job/app/build', {
      auth: PASSWORD,
      headers: { cookie: s.cookie, [s.field]: s.crumb }
    })
    expect(again.status).toBe(403)
    expect((await get(j, '/queue/item/1/api/json')).status).toBe(404)
    expect(j.builds('app')).toHaveLength(1)
    expect((await get(j, '/job/app/1/api/json')).status).toBe(200)
    const fresh = await crumbSession(j)
    expect(fresh.crumb).not.toBe(s.crumb)
  })
})

describe('request log', () => {
  it('onRequest is told of each entry; entries say how the user signed in and whether the crumb was checked', async () => {
    const told: RequestLogEntry[] = []
    const j = await start({ onRequest: entry => told.push(entry) })
    expect((await post(j, '/job/app/build')).status).toBe(201)
    const session = await crumbSession(j)
    const withCrumb = await post(j, '/job/app/build', {
      auth: PASSWORD,
      headers: { cookie: session.cookie, [session.field]: session.crumb }
    })
    expect(withCrumb.status).toBe(201)
    expect((await get(j, '/api/json', null)).status).toBe(403)
    expect((await get(j, '/api/json', basic(ADMIN.name, 'wrong'))).status).toBe(401)

    expect(told).toEqual(j.requests)
    expect(
      told.map(e => [e.method, e.path, e.status, e.user, e.auth, e.crumbChecked ?? false])
    ).toEqual([
      ['POST', '/job/app/build', 201, 'admin', 'token', false],
      ['GET', '/crumbIssuer/api/json', 200, 'admin', 'password', false],
      ['POST', '/job/app/build', 201, 'admin', 'password', true],
      ['GET', '/api/json', 403, 'anonymous', 'anonymous', false],
      ['GET', '/api/json', 401, null, undefined, false]
    ])
  })
})

describe('a server that echoes requests (hostile.echoRequest)', () => {
  it("quotes the request's cookie and its session's crumb in a queue why, and records crumb headers", async () => {
    const j = await start({ hostile: { text: '', fields: ['why'], echoRequest: true } })
    const session = await crumbSession(j)
    const queued = await post(j, '/job/app/build', {
      auth: PASSWORD,
      headers: { cookie: session.cookie, [session.field]: session.crumb }
    })
    expect(queued.status).toBe(201)
    const id = queueId(queued.headers.get('location'))
    // The GET carries no crumb; the echo still quotes the crumb its session was issued.
    const res = await get(j, `/queue/item/${id}/api/json`, PASSWORD, { cookie: session.cookie })
    const item = (await res.json()) as { why: string }
    const echo = `why: ${session.cookie} crumb ${session.crumb} `
    expect(item.why.startsWith(echo), item.why).toBe(true)
    expect(item.why.slice(echo.length)).toMatch(/^In the quiet period\. Expires in \d/)
    const [trigger, read] = j.requests.filter(r => r.kind === 'trigger' || r.kind === 'queue')
    expect(trigger).toMatchObject({ method: 'POST', crumbHeader: true, crumbChecked: true })
    expect(read).toMatchObject({ method: 'GET' })
    expect(read?.crumbHeader).toBeUndefined()
    expect(j.issuedSessions).toContain(session.cookie.slice(session.cookie.indexOf('=') + 1))
  })
})
