/**
 * `headers`: sent with every request to the Jenkins origin, never to
 * another origin, and their values redacted from every message.
 */
import nock from 'nock'
import { describe, expect, it } from 'vitest'
import type { JobInfo } from '../../../src/jenkins/model/types.js'
import { AUTH, BASE, JENKINS_404, ORIGIN, jenkinsError, makeClient, useNock } from '../helpers.js'

useNock()

const ID = 'cf-id-4f1c2e.access'
const SECRET = 'cf-secret-9a8b7c6d5e4f'
const headers = [
  ['CF-Access-Client-Id', ID],
  ['CF-Access-Client-Secret', SECRET]
] as const

const job = ['team', 'deploy']
const plain: JobInfo = {
  name: 'deploy',
  url: `${BASE}/job/team/job/deploy/`,
  parameterDefinitions: [],
  isFolder: false
}

describe('extra headers', () => {
  it('go with every request to the origin: reads, the crumb and the trigger, beside Authorization', async () => {
    const { client } = makeClient({ headers })
    const withHeaders = (scope: nock.Interceptor) =>
      scope
        .matchHeader('cf-access-client-id', ID)
        .matchHeader('cf-access-client-secret', SECRET)
        .matchHeader('authorization', AUTH)
    withHeaders(nock(ORIGIN).get('/jenkins/crumbIssuer/api/json')).reply(...JENKINS_404)
    withHeaders(nock(ORIGIN).get('/jenkins/job/team/job/deploy/api/json').query(true)).reply(200, {
      _class: 'hudson.model.FreeStyleProject',
      name: 'deploy'
    })
    withHeaders(nock(ORIGIN).post('/jenkins/job/team/job/deploy/build').query(true)).reply(
      201,
      '',
      {
        Location: `${ORIGIN}/jenkins/queue/item/9/`
      }
    )
    await client.getJob(job)
    expect((await client.trigger(plain, job, {})).queueId).toBe(9)
  })

  it('follow a same-origin redirect, and are never sent to another origin (the redirect is not followed)', async () => {
    const { client } = makeClient({ headers })
    nock(ORIGIN)
      .get('/jenkins/queue/item/1/api/json')
      .matchHeader('cf-access-client-id', ID)
      .reply(302, '', { Location: `${ORIGIN}/jenkins/queue/item/1/api/json?moved` })
    nock(ORIGIN)
      .get('/jenkins/queue/item/1/api/json')
      .query({ moved: '' })
      .matchHeader('cf-access-client-id', ID)
      .reply(200, { id: 1 })
    expect((await client.getQueueItem(1)).id).toBe(1)

    nock(ORIGIN)
      .get('/jenkins/queue/item/2/api/json')
      .reply(302, '', { Location: 'https://sso.example.net/login?rd=/jenkins/queue/item/2/' })
    const elsewhere = nock('https://sso.example.net').get('/login').query(true).reply(200, 'no')
    const error = await jenkinsError(client.getQueueItem(2), 'redirect')
    expect(error.message).toMatch(/to another server \(https:\/\/sso\.example\.net\)/)
    expect(elsewhere.isDone()).toBe(false)
    nock.cleanAll()
  })

  it('have their values, and a bearer credential alone, redacted from messages', async () => {
    const { client } = makeClient({
      user: undefined,
      token: undefined,
      headers: [
        ['Authorization', 'Bearer iap-token-77aa88bb'],
        ['X-Client', SECRET]
      ]
    })
    nock(ORIGIN)
      .get('/jenkins/job/team/job/deploy/api/json')
      .query(true)
      .matchHeader('authorization', 'Bearer iap-token-77aa88bb')
      .reply(400, `token iap-token-77aa88bb refused; client ${SECRET}`, {
        'Content-Type': 'text/plain'
      })
    const error = await jenkinsError(client.getJob(job), 'bad-request')
    expect(error.message).toContain('token *** refused; client ***')
  })

  it("a proxy's sign-in page, or a 401 without Jenkins' Basic challenge, points at headers", async () => {
    const { client } = makeClient()
    // A page on every try (the client retries one, an SSO proxy's blip).
    nock(ORIGIN)
      .get('/jenkins/queue/item/3/api/json')
      .times(3)
      .reply(200, '<!DOCTYPE html><html><body>Sign in to continue</body></html>', {
        'Content-Type': 'text/html'
      })
    const page = await jenkinsError(client.getQueueItem(3), 'html')
    expect(page.message).toMatch(/give it the headers it expects in 'headers'\./)
    nock(ORIGIN)
      .get('/jenkins/queue/item/4/api/json')
      .reply(401, '<html>Unauthorized</html>', { 'Content-Type': 'text/html' })
    const proxy = await jenkinsError(client.getQueueItem(4), 'bad-credentials')
    expect(proxy.message).toMatch(
      /answered queue item 4 with 401 without Jenkins' Basic challenge: an authenticating proxy in front of Jenkins\? Give it the headers it expects in 'headers'\.$/
    )
    nock(ORIGIN)
      .get('/jenkins/queue/item/5/api/json')
      .reply(401, '', { 'WWW-Authenticate': 'Basic realm="Jenkins"' })
    const jenkins = await jenkinsError(client.getQueueItem(5), 'bad-credentials')
    expect(jenkins.message).toMatch(/rejected the credentials for user 'alice' \(401\)/)
  })
})
