import nock from 'nock'
import { describe, expect, it } from 'vitest'
import type { BuildRef, JobInfo } from '../../../src/jenkins/model/types.js'
import {
  AUTH,
  BASE,
  COOKIE,
  COOKIE2,
  CRUMB,
  CRUMB2,
  JENKINS_404,
  ORIGIN,
  crumbIssuer,
  jenkinsError,
  makeClient,
  useNock
} from '../helpers.js'

useNock()

const job = ['deploy']
const plain: JobInfo = {
  name: 'deploy',
  url: `${BASE}/job/deploy/`,
  parameterDefinitions: [],
  isFolder: false
}
const build: BuildRef = { job, number: 7, url: `${BASE}/job/deploy/7/` }

describe('crumb and session', () => {
  it('fetches the crumb once before the first POST and sends it with POSTs only, named by crumbRequestField, with the session cookie', async () => {
    const { client } = makeClient()
    crumbIssuer('Automation-Crumb')
    nock(ORIGIN)
      .post('/jenkins/job/deploy/build')
      .query({ delay: '0sec' })
      .matchHeader('automation-crumb', CRUMB)
      .matchHeader('cookie', COOKIE)
      .matchHeader('authorization', AUTH)
      .reply(201, '', { Location: `${ORIGIN}/jenkins/queue/item/5/` })
      .post('/jenkins/job/deploy/7/stop')
      .matchHeader('automation-crumb', CRUMB)
      .matchHeader('cookie', COOKIE)
      .reply(302, '', { Location: `${ORIGIN}/jenkins/job/deploy/7/` })
    // Later GETs carry the session but never the crumb: only POSTs are
    // checked (CrumbFilter), and a GET's headers are what a proxy may echo.
    nock(ORIGIN, { badheaders: ['automation-crumb'] })
      .get('/jenkins/queue/item/5/api/json')
      .matchHeader('cookie', COOKIE)
      .reply(200, { id: 5 })

    await client.trigger(plain, job, {})
    await client.stopBuild(build, 'stop')
    await client.getQueueItem(5)
    expect(client.http.requestCounts['crumb']).toBe(1)
  })

  it('tells onSecret of the crumb and the session cookie as they arrive, and redacts both from a queue why', async () => {
    const told: string[] = []
    const { client } = makeClient({ onSecret: value => told.push(value) })
    crumbIssuer()
    const sessionId = COOKIE.slice(COOKIE.indexOf('=') + 1)
    nock(ORIGIN)
      .post('/jenkins/job/deploy/build')
      .query({ delay: '0sec' })
      .reply(201, '', { Location: `${ORIGIN}/jenkins/queue/item/5/` })
      .get('/jenkins/queue/item/5/api/json')
      .reply(200, {
        id: 5,
        why: `why: ${COOKIE} crumb ${CRUMB} Waiting for next available executor`
      })
    await client.trigger(plain, job, {})
    // Each once, the session first: its cookie came with the crumb's answer.
    expect(told).toEqual([sessionId, CRUMB])
    const item = await client.getQueueItem(5)
    expect(item.why).toBe(
      `why: ${COOKIE.slice(0, COOKIE.indexOf('=') + 1)}*** crumb *** Waiting for next available executor`
    )
  })

  it('takes the header name from the server (Jenkins-Crumb on current Jenkins)', async () => {
    const { client } = makeClient()
    crumbIssuer('Jenkins-Crumb')
    nock(ORIGIN).post('/jenkins/job/deploy/disable').matchHeader('jenkins-crumb', CRUMB).reply(302)
    await client.disableJob(job)
  })

  it('sends no crumb when the crumb issuer answers 404, and does not ask again', async () => {
    const { client, logger } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/crumbIssuer/api/json')
      .once()
      .reply(...JENKINS_404)
    nock(ORIGIN, { badheaders: ['automation-crumb', 'jenkins-crumb'] })
      .post('/jenkins/job/deploy/disable')
      .twice()
      .reply(302)
    await client.disableJob(job)
    await client.disableJob(job)
    expect(client.http.requestCounts['crumb']).toBe(1)
    expect(logger.lines.some(l => /CSRF protection is off/.test(l.message))).toBe(true)
  })

  it('a crumb issuer answering a JSON null is refused, not read as CSRF protection off: no POST goes out', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/crumbIssuer/api/json')
      .reply(200, 'null', { 'Content-Type': 'application/json' })
    const post = nock(ORIGIN).post('/jenkins/job/deploy/disable').reply(302)
    const error = await client.disableJob(job).then(
      () => undefined,
      (e: unknown) => e
    )
    expect(error).toBeInstanceOf(Error)
    expect(post.isDone()).toBe(false)
    // The POST's interceptor is left unused on purpose.
    nock.cleanAll()
    expect((error as Error).message).toBe(
      `Jenkins at ${BASE} answered the crumb request without crumb and crumbRequestField`
    )
  })

  it('a crumb fetch that failed is not kept: the next POST asks again', async () => {
    const { client } = makeClient()
    nock(ORIGIN).get('/jenkins/crumbIssuer/api/json').once().reply(401, 'Unauthorized')
    await jenkinsError(client.disableJob(job), 'bad-credentials')
    crumbIssuer()
    nock(ORIGIN)
      .post('/jenkins/job/deploy/disable')
      .matchHeader('automation-crumb', CRUMB)
      .reply(302)
    await client.disableJob(job)
    expect(client.http.requestCounts['crumb']).toBe(2)
  })

  it('on 403 "No valid crumb" drops the cookies, gets a new session and crumb, and retries the POST once', async () => {
    const { client } = makeClient()
    crumbIssuer('Jenkins-Crumb', CRUMB, COOKIE)
    nock(ORIGIN)
      .post('/jenkins/job/deploy/build')
      .query(true)
      .matchHeader('jenkins-crumb', CRUMB)
      .reply(403, 'No valid crumb was included in the request')
    // The refetch must not carry the dead session (else Jenkins would bind the crumb to it).
    nock(ORIGIN, { badheaders: ['cookie', 'jenkins-crumb'] })
      .get('/jenkins/crumbIssuer/api/json')
      .reply(
        200,
        { crumb: CRUMB2, crumbRequestField: 'Jenkins-Crumb' },
        { 'Set-Cookie': `${COOKIE2}; Path=/jenkins; HttpOnly` }
      )
    nock(ORIGIN)
      .post('/jenkins/job/deploy/build')
      .query(true)
      .matchHeader('jenkins-crumb', CRUMB2)
      .matchHeader('cookie', COOKIE2)
      .reply(201, '', { Location: `${ORIGIN}/jenkins/queue/item/9/` })

    const result = await client.trigger(plain, job, {})
    expect(result.queueId).toBe(9)
    expect(client.http.requestCounts['trigger']).toBe(2)
  })

  it('refreshes only once: a second crumb rejection is a crumb error', async () => {
    const { client } = makeClient()
    crumbIssuer()
    crumbIssuer()
    nock(ORIGIN)
      .post('/jenkins/job/deploy/disable')
      .twice()
      .reply(
        403,
        '<html><title>Error 403 No valid crumb was included in the request</title></html>',
        {
          'Content-Type': 'text/html'
        }
      )
    const error = await jenkinsError(client.disableJob(job), 'crumb')
    expect(error.message).toMatch(/crumb/i)
    expect(error.status).toBe(403)
  })

  it('survives a Jenkins restart: sessions lost, the crumb refetch gives a new session', async () => {
    const { client } = makeClient()
    crumbIssuer('Jenkins-Crumb', CRUMB, COOKIE)
    nock(ORIGIN).post('/jenkins/job/deploy/7/stop').matchHeader('cookie', COOKIE).reply(302)
    await client.stopBuild(build, 'stop')
    // Restart: the old session and crumb are now invalid.
    nock(ORIGIN)
      .post('/jenkins/job/deploy/7/kill')
      .matchHeader('cookie', COOKIE)
      .reply(403, 'No valid crumb was included in the request')
    crumbIssuer('Jenkins-Crumb', CRUMB2, 'JSESSIONID.99ff88ee=node0afterrestart')
    nock(ORIGIN)
      .post('/jenkins/job/deploy/7/kill')
      .matchHeader('cookie', 'JSESSIONID.99ff88ee=node0afterrestart')
      .matchHeader('jenkins-crumb', CRUMB2)
      .reply(302)
    await client.stopBuild(build, 'kill')
  })

  describe("a client that continues another's session (the abort's client)", () => {
    it('sends its stop at once with the session cookie and crumb, asking for no crumb, and redacts both', async () => {
      const { client: step } = makeClient()
      crumbIssuer('Automation-Crumb', CRUMB, COOKIE)
      nock(ORIGIN)
        .post('/jenkins/job/deploy/build')
        .query(true)
        .reply(201, '', { Location: `${ORIGIN}/jenkins/queue/item/5/` })
      await step.trigger(plain, job, {})
      const told: string[] = []
      const { client: abort } = makeClient({
        session: step.http.session(),
        onSecret: v => told.push(v)
      })
      nock(ORIGIN)
        .post('/jenkins/job/deploy/7/stop')
        .matchHeader('automation-crumb', CRUMB)
        .matchHeader('cookie', COOKIE)
        .reply(302, '', { Location: `${ORIGIN}/jenkins/job/deploy/7/` })
        .get('/jenkins/queue/item/5/api/json')
        .reply(200, { id: 5, why: `echo ${COOKIE} ${CRUMB}` })
      await abort.stopBuild(build, 'stop')
      expect(abort.http.requestCounts['crumb']).toBeUndefined()
      expect(abort.http.requestCounts['total']).toBe(1)
      // Told before anything could print them, and redacted from what it reads.
      expect(told).toEqual([COOKIE.slice(COOKIE.indexOf('=') + 1), CRUMB])
      expect((await abort.getQueueItem(5)).why).toBe(
        `echo ${COOKIE.slice(0, COOKIE.indexOf('=') + 1)}*** ***`
      )
    })

    it('a stale session (Jenkins restarted) is rejected once, then a new session and crumb are fetched', async () => {
      const { client: step } = makeClient()
      crumbIssuer('Jenkins-Crumb', CRUMB, COOKIE)
      nock(ORIGIN).post('/jenkins/job/deploy/disable').reply(302)
      await step.disableJob(job)
      const { client: abort } = makeClient({ session: step.http.session() })
      nock(ORIGIN)
        .post('/jenkins/job/deploy/7/stop')
        .matchHeader('cookie', COOKIE)
        .matchHeader('jenkins-crumb', CRUMB)
        .reply(403, 'No valid crumb was included in the request')
      nock(ORIGIN, { badheaders: ['cookie'] })
        .get('/jenkins/crumbIssuer/api/json')
        .reply(
          200,
          { crumb: CRUMB2, crumbRequestField: 'Jenkins-Crumb' },
          { 'Set-Cookie': `${COOKIE2}; Path=/jenkins; HttpOnly` }
        )
      nock(ORIGIN)
        .post('/jenkins/job/deploy/7/stop')
        .matchHeader('cookie', COOKIE2)
        .matchHeader('jenkins-crumb', CRUMB2)
        .reply(302)
      await abort.stopBuild(build, 'stop')
      expect(abort.http.requestCounts['crumb']).toBe(1)
    })

    it('knows a Jenkins without a crumb issuer: sends no crumb and asks for none', async () => {
      const { client: step } = makeClient()
      nock(ORIGIN)
        .get('/jenkins/crumbIssuer/api/json')
        .reply(...JENKINS_404)
      nock(ORIGIN).post('/jenkins/job/deploy/disable').reply(302)
      await step.disableJob(job)
      const { client: abort } = makeClient({ session: step.http.session() })
      nock(ORIGIN, { badheaders: ['automation-crumb', 'jenkins-crumb'] })
        .post('/jenkins/job/deploy/7/stop')
        .reply(302)
      await abort.stopBuild(build, 'stop')
      expect(abort.http.requestCounts['total']).toBe(1)
    })

    it('a crumb not yet known is fetched as usual, with the session cookie it has', async () => {
      const { client: step } = makeClient()
      nock(ORIGIN)
        .get('/jenkins/job/deploy/api/json')
        .query(true)
        .reply(
          200,
          { name: 'deploy', url: `${BASE}/job/deploy/` },
          { 'Set-Cookie': `${COOKIE}; Path=/jenkins` }
        )
      await step.getJob(job).catch(() => undefined)
      expect(step.http.session()?.crumb).toBeUndefined()
      const { client: abort } = makeClient({ session: step.http.session() })
      nock(ORIGIN)
        .get('/jenkins/crumbIssuer/api/json')
        .matchHeader('cookie', COOKIE)
        .reply(200, { crumb: CRUMB, crumbRequestField: 'Jenkins-Crumb' })
        .post('/jenkins/job/deploy/7/stop')
        .matchHeader('cookie', COOKIE)
        .matchHeader('jenkins-crumb', CRUMB)
        .reply(302)
      await abort.stopBuild(build, 'stop')
      expect(abort.http.requestCounts['crumb']).toBe(1)
    })
  })

  it('fetches the crumb alongside the job GET so the trigger needs no extra round trip', async () => {
    const { client } = makeClient()
    let crumbAsked!: () => void
    const crumbSeen = new Promise<void>(resolve => (crumbAsked = resolve))
    nock(ORIGIN)
      .get('/jenkins/crumbIssuer/api/json')
      .reply(() => {
        crumbAsked()
        return [200, { crumb: CRUMB, crumbRequestField: 'Automation-Crumb' }]
      })
    let parallel = false
    nock(ORIGIN)
      .get('/jenkins/job/deploy/api/json')
      .query(true)
      // The job answers only once the crumb was asked for (or after 3 s without it).
      .reply(async () => {
        parallel = await Promise.race([
          crumbSeen.then(() => true),
          new Promise<boolean>(resolve => setTimeout(() => resolve(false), 3000))
        ])
        return [200, { _class: 'hudson.model.FreeStyleProject', name: 'deploy', buildable: true }]
      })
      .post('/jenkins/job/deploy/build')
      .query(true)
      .matchHeader('automation-crumb', CRUMB)
      .reply(201, '', { Location: `${ORIGIN}/jenkins/queue/item/3/` })
    const info = await client.getJob(job)
    await client.trigger(info, job, {})
    expect(parallel).toBe(true)
    expect(client.http.requestCounts).toMatchObject({ crumb: 1, job: 1, trigger: 1, total: 3 })
  })

  it('sends Authorization preemptively on every request', async () => {
    const { client } = makeClient()
    crumbIssuer()
    nock(ORIGIN)
      .get('/jenkins/queue/item/1/api/json')
      .matchHeader('authorization', AUTH)
      .reply(200, { id: 1 })
      .post('/jenkins/queue/cancelItem')
      .query({ id: '1' })
      .matchHeader('authorization', AUTH)
      .reply(204)
    await client.getQueueItem(1)
    expect(await client.cancelQueueItem(1)).toBe('cancelled')
  })

  it('sends no Authorization when no user is configured', async () => {
    const { client } = makeClient({ user: undefined, token: undefined })
    nock(ORIGIN, { badheaders: ['authorization'] })
      .get('/jenkins/queue/item/1/api/json')
      .reply(200, { id: 1 })
    await client.getQueueItem(1)
  })
})
