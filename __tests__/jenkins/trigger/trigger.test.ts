import nock from 'nock'
import { describe, expect, it } from 'vitest'
import type { JobInfo } from '../../../src/jenkins/model/types.js'
import {
  BASE,
  JENKINS_404,
  ORIGIN,
  jenkinsError,
  makeClient,
  netError,
  useNock
} from '../helpers.js'

useNock()

const job = ['team', 'deploy']
const plain: JobInfo = {
  name: 'deploy',
  url: `${BASE}/job/team/job/deploy/`,
  parameterDefinitions: [],
  isFolder: false
}
const parameterized: JobInfo = {
  ...plain,
  parameterDefinitions: [
    { name: 'ENV', type: 'ChoiceParameterDefinition', choices: ['dev', 'prod'] },
    // Extended Choice's multi-select: several values, one field each.
    { name: 'TAGS', type: 'PT_MULTI_SELECT' },
    { name: 'DRY', type: 'BooleanParameterDefinition', defaultValue: false }
  ]
}

/** CSRF off, so each test only describes the trigger itself. */
function noCrumb() {
  nock(ORIGIN)
    .get('/jenkins/crumbIssuer/api/json')
    .reply(...JENKINS_404)
}

describe('trigger', () => {
  it('POSTs /build?delay=0sec with no body for a job without parameters and rebases the 201 Location', async () => {
    const { client } = makeClient()
    noCrumb()
    let body: unknown
    nock(ORIGIN)
      .post('/jenkins/job/team/job/deploy/build')
      .query({ delay: '0sec' })
      // Jenkins builds Location from the request's host; behind a proxy that is another host.
      .reply((_uri, requestBody) => {
        body = requestBody
        return [201, '', { Location: 'http://jenkins-internal:8080/queue/item/42/' }]
      })
    const result = await client.trigger(plain, job, {})
    expect(result).toEqual({
      queueId: 42,
      queueUrl: `${BASE}/queue/item/42/`,
      merged: false,
      unknownParameters: []
    })
    expect(body).toBe('')
  })

  it('POSTs /buildWithParameters with a form body (never the URL), repeated fields for arrays', async () => {
    const { client } = makeClient()
    noCrumb()
    let raw = ''
    let path = ''
    nock(ORIGIN)
      .post('/jenkins/job/team/job/deploy/buildWithParameters')
      .query(q => {
        path = JSON.stringify(q)
        return true
      })
      .matchHeader('content-type', /^application\/x-www-form-urlencoded/)
      .reply((_uri, requestBody) => {
        raw = String(requestBody)
        return [201, '', { Location: `${ORIGIN}/jenkins/queue/item/7/` }]
      })
    const result = await client.trigger(parameterized, job, {
      ENV: 'prod',
      TAGS: ['a b', 'c&d'],
      TYPO: 'x'
    })
    expect(path).toBe(JSON.stringify({ delay: '0sec' }))
    expect(raw).toBe('ENV=prod&TAGS=a+b&TAGS=c%26d')
    expect(result.unknownParameters).toEqual(['TYPO'])
    expect(result.queueId).toBe(7)
  })

  it('uses /buildWithParameters (defaults filled in) even when no value is given', async () => {
    const { client } = makeClient()
    noCrumb()
    nock(ORIGIN)
      .post('/jenkins/job/team/job/deploy/buildWithParameters')
      .query({ delay: '0sec' })
      .reply(201, '', { Location: `${ORIGIN}/jenkins/queue/item/8/` })
    expect((await client.trigger(parameterized, job, {})).queueId).toBe(8)
  })

  it('reports all names as unknown for a job without parameters and sends none', async () => {
    const { client } = makeClient()
    noCrumb()
    nock(ORIGIN)
      .post('/jenkins/job/team/job/deploy/build', '')
      .query({ delay: '0sec' })
      .reply(201, '', { Location: `${ORIGIN}/jenkins/queue/item/8/` })
    const result = await client.trigger(plain, job, { ENV: 'prod' })
    expect(result.unknownParameters).toEqual(['ENV'])
  })

  it('reads a 303 (merged into an identical queued item) without following it', async () => {
    const { client } = makeClient()
    noCrumb()
    nock(ORIGIN)
      .post('/jenkins/job/team/job/deploy/buildWithParameters')
      .query(true)
      .reply(303, '', { Location: 'https://other.example.net/ci/queue/item/77/' })
    const result = await client.trigger(parameterized, job, { ENV: 'dev' })
    expect(result).toMatchObject({ queueId: 77, queueUrl: `${BASE}/queue/item/77/`, merged: true })
  })

  it('fails clearly on a 302 to the job page (vetoed, or a folder scan)', async () => {
    const { client } = makeClient()
    noCrumb()
    nock(ORIGIN)
      .post('/jenkins/job/team/job/deploy/build')
      .query(true)
      .reply(302, '', { Location: `${ORIGIN}/jenkins/job/team/job/deploy/` })
    const error = await jenkinsError(client.trigger(plain, job, {}), 'protocol')
    expect(error.message).toContain('did not queue a build')
    expect(error.message).toContain('/jenkins/job/team/job/deploy/')
  })

  it('fails clearly on a 201 without a queue Location', async () => {
    const { client } = makeClient()
    noCrumb()
    nock(ORIGIN)
      .post('/jenkins/job/team/job/deploy/build')
      .query(true)
      .reply(201, '', { Location: `${ORIGIN}/jenkins/job/team/job/deploy/` })
    await jenkinsError(client.trigger(plain, job, {}), 'protocol')
  })

  it('does not resend after a reset when Jenkins cannot be asked what it did (reconcile.test.ts covers the rest)', async () => {
    const { client } = makeClient()
    noCrumb()
    nock(ORIGIN)
      .post('/jenkins/job/team/job/deploy/build')
      .query(true)
      .replyWithError(netError('ECONNRESET'))
    const error = await jenkinsError(client.trigger(plain, job, {}), 'network')
    expect(error.message).toContain('may or may not have been queued')
    expect(error.message).toContain(`${BASE}/job/team/job/deploy/`)
    expect(client.http.requestCounts['trigger']).toBe(1)
  })

  it('does not resend after a socket hang up when Jenkins cannot be asked what it did', async () => {
    const { client } = makeClient()
    noCrumb()
    nock(ORIGIN)
      .post('/jenkins/job/team/job/deploy/build')
      .query(true)
      .replyWithError(new Error('socket hang up'))
    const error = await jenkinsError(client.trigger(plain, job, {}), 'network')
    expect(error.message).toContain('may or may not have been queued')
    expect(client.http.requestCounts['trigger']).toBe(1)
  })

  it('sends a trigger again after connection refused (it never left)', async () => {
    const { client } = makeClient()
    noCrumb()
    nock(ORIGIN)
      .post('/jenkins/job/team/job/deploy/build')
      .query(true)
      .replyWithError(netError('ECONNREFUSED'))
      .post('/jenkins/job/team/job/deploy/build')
      .query(true)
      .reply(201, '', { Location: `${ORIGIN}/jenkins/queue/item/5/` })
    expect((await client.trigger(plain, job, {})).queueId).toBe(5)
    expect(client.http.requestCounts['trigger']).toBe(2)
  })

  it('sends a trigger again after 503 (refused without acting), honouring Retry-After', async () => {
    const { client, logger } = makeClient()
    noCrumb()
    nock(ORIGIN)
      .post('/jenkins/job/team/job/deploy/build')
      .query(true)
      .reply(503, 'Jenkins is restarting', { 'Retry-After': '0' })
      .post('/jenkins/job/team/job/deploy/build')
      .query(true)
      .reply(201, '', { Location: `${ORIGIN}/jenkins/queue/item/6/` })
    expect((await client.trigger(plain, job, {})).queueId).toBe(6)
    expect(
      logger.lines.some(l => l.level === 'debug' && /503, Retry-After 0 s; retry 1/.test(l.message))
    ).toBe(true)
  })

  it('does not resend after a 500 when Jenkins cannot be asked what it did', async () => {
    const { client } = makeClient()
    noCrumb()
    nock(ORIGIN)
      .post('/jenkins/job/team/job/deploy/buildWithParameters')
      .query(true)
      .reply(500, '<html>oops</html>', { 'Content-Type': 'text/html' })
    const error = await jenkinsError(client.trigger(parameterized, job, { ENV: 'prod' }), 'server')
    expect(error.message).toContain("several values for a plugin's parameter that takes one")
    expect(client.http.requestCounts['trigger']).toBe(1)
  })

  it('says a proxy 502 leaves the outcome unknown when Jenkins cannot be asked, and does not resend', async () => {
    const { client } = makeClient()
    noCrumb()
    nock(ORIGIN).post('/jenkins/job/team/job/deploy/build').query(true).reply(502, 'Bad Gateway')
    const error = await jenkinsError(client.trigger(plain, job, {}), 'server')
    expect(error.message).toContain('may or may not have been queued')
    expect(client.http.requestCounts['trigger']).toBe(1)
  })

  it('maps 409 to a conflict naming the job as disabled', async () => {
    const { client } = makeClient()
    noCrumb()
    nock(ORIGIN)
      .post('/jenkins/job/team/job/deploy/build')
      .query(true)
      .reply(409, 'team/deploy is not buildable')
    const error = await jenkinsError(client.trigger(plain, job, {}), 'conflict')
    expect(error.message).toMatch(/Job 'team\/deploy' .*is disabled \(not buildable\)/)
  })

  it('refuses a job it already knows is disabled, without a request', async () => {
    const { client } = makeClient()
    await jenkinsError(
      client.trigger({ ...plain, disabled: true, buildable: false }, job, {}),
      'conflict'
    )
    expect(client.http.requestCounts['total']).toBe(0)
  })

  it('refuses a folder (its build would be a scan), without a request', async () => {
    const { client } = makeClient()
    const error = await jenkinsError(
      client.trigger(
        { ...plain, isFolder: true, _class: 'jenkins.branch.OrganizationFolder' },
        job,
        {}
      ),
      'bad-request'
    )
    expect(error.message).toContain('is a folder')
    expect(client.http.requestCounts['total']).toBe(0)
  })

  it('maps 400 to bad-request with the short message', async () => {
    const { client } = makeClient()
    noCrumb()
    nock(ORIGIN)
      .post('/jenkins/job/team/job/deploy/build')
      .query(true)
      .reply(400, 'Nothing is submitted', { 'Content-Type': 'text/plain' })
    const error = await jenkinsError(client.trigger(plain, job, {}), 'bad-request')
    expect(error.message).toContain('Nothing is submitted')
  })

  it('maps 404 to not-found naming the job and the server', async () => {
    const { client } = makeClient()
    noCrumb()
    nock(ORIGIN)
      .post('/jenkins/job/team/job/deploy/build')
      .query(true)
      .reply(...JENKINS_404)
    const error = await jenkinsError(client.trigger(plain, job, {}), 'not-found')
    expect(error.message).toContain(
      "Job 'team/deploy' was not found on Jenkins at https://ci.example.com"
    )
  })
})
