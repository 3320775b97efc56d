/**
 * The job token: in the trigger's form (never the URL), with a crumb when
 * anonymous, refusals that say what to do, and never the token in a message.
 */
import nock from 'nock'
import { describe, expect, it } from 'vitest'
import type { JobInfo } from '../../../src/jenkins/model/types.js'
import {
  AUTH,
  BASE,
  COOKIE,
  CRUMB,
  ORIGIN,
  JENKINS_404,
  crumbIssuer,
  jenkinsError,
  makeClient,
  useNock
} from '../helpers.js'

useNock()

const JOB_TOKEN = 'jt-SECRET-4e1f9a'
const job = ['team', 'deploy']
const plain: JobInfo = {
  name: 'deploy',
  url: `${BASE}/job/team/job/deploy/`,
  parameterDefinitions: [],
  isFolder: false
}

const LOGIN_PAGE =
  "<html><head><meta http-equiv='refresh' content='1;url=/jenkins/login?from=%2Fjenkins%2Fjob%2Fteam%2Fjob%2Fdeploy%2Fbuild'/></head><body>Authentication required</body></html>"

function anonymous() {
  return makeClient({
    user: undefined,
    token: undefined,
    jobToken: JOB_TOKEN,
    triggerCause: 'GitHub Actions https://github.com/o/r/actions/runs/1'
  })
}

describe('job token', () => {
  it('anonymous: fetches a crumb without credentials and POSTs token and cause in the form, not the URL', async () => {
    const { client } = anonymous()
    nock(ORIGIN)
      .get('/jenkins/crumbIssuer/api/json')
      .matchHeader('authorization', (value: string | undefined) => value === undefined)
      .reply(
        200,
        { crumb: CRUMB, crumbRequestField: 'Jenkins-Crumb' },
        { 'Set-Cookie': `${COOKIE}; Path=/jenkins; HttpOnly` }
      )
    let body = ''
    let query: Record<string, string> = {}
    nock(ORIGIN)
      .post('/jenkins/job/team/job/deploy/build')
      .query(q => {
        query = q as Record<string, string>
        return true
      })
      .matchHeader('authorization', (value: string | undefined) => value === undefined)
      .matchHeader('jenkins-crumb', CRUMB)
      .matchHeader('cookie', COOKIE)
      .reply((_uri, requestBody) => {
        body = String(requestBody)
        return [201, '', { Location: `${ORIGIN}/jenkins/queue/item/3/` }]
      })
    const result = await client.trigger(plain, job, {})
    expect(result.queueId).toBe(3)
    expect(query).toEqual({ delay: '0sec' })
    expect(new URLSearchParams(body).get('token')).toBe(JOB_TOKEN)
    expect(new URLSearchParams(body).get('cause')).toBe(
      'GitHub Actions https://github.com/o/r/actions/runs/1'
    )
  })

  it('with user and token: the API token spares the crumb... but the crumb is still asked for, and the form carries the job token', async () => {
    const { client } = makeClient({ jobToken: JOB_TOKEN })
    crumbIssuer()
    let body = ''
    nock(ORIGIN)
      .post('/jenkins/job/team/job/deploy/build')
      .query(true)
      .matchHeader('authorization', AUTH)
      .reply((_uri, requestBody) => {
        body = String(requestBody)
        return [201, '', { Location: `${ORIGIN}/jenkins/queue/item/4/` }]
      })
    await client.trigger(plain, job, {})
    expect(new URLSearchParams(body).get('token')).toBe(JOB_TOKEN)
    // No cause was given: none is sent.
    expect([...new URLSearchParams(body).keys()]).toEqual(['token'])
  })

  it('a wrong token, as a user: "Invalid token provided." named, the token never shown', async () => {
    const { client, logger } = makeClient({ jobToken: JOB_TOKEN })
    crumbIssuer()
    nock(ORIGIN)
      .post('/jenkins/job/team/job/deploy/build')
      .query(true)
      .reply(
        403,
        '<html><body><h1>Access Denied</h1><p class="error">Invalid token provided.</p></body></html>',
        { 'Content-Type': 'text/html;charset=UTF-8', 'X-Jenkins': '2.541.1' }
      )
    const error = await jenkinsError(client.trigger(plain, job, {}), 'forbidden')
    expect(error.message).toBe(
      `Jenkins at ${BASE} refused the job token for the trigger of job 'team/deploy' (403 "Invalid token provided."): it is not the job's "Trigger builds remotely" token. Check 'job-token' (its value is not shown).`
    )
    expect(JSON.stringify(logger.lines)).not.toContain(JOB_TOKEN)
  })

  it('a wrong token, anonymous: the login page; wrong token or no token and no Job/Build', async () => {
    const { client } = anonymous()
    nock(ORIGIN)
      .get('/jenkins/crumbIssuer/api/json')
      .reply(...JENKINS_404)
    nock(ORIGIN)
      .post('/jenkins/job/team/job/deploy/build')
      .query(true)
      .reply(403, LOGIN_PAGE, { 'Content-Type': 'text/html;charset=UTF-8' })
    const error = await jenkinsError(client.trigger(plain, job, {}), 'forbidden')
    expect(error.message).toMatch(
      /refused the job token .*: it is not the job's "Trigger builds remotely" token, or the job has no such token and anonymous users lack Job\/Build\. Check 'job-token'/
    )
    expect(error.message).not.toContain(JOB_TOKEN)
  })

  it('reading the job refused anonymously: a job token alone is not enough, give user/token', async () => {
    const { client } = anonymous()
    nock(ORIGIN)
      .get('/jenkins/job/team/job/deploy/api/json')
      .query(true)
      .reply(403, LOGIN_PAGE, { 'Content-Type': 'text/html;charset=UTF-8' })
    nock(ORIGIN).get('/jenkins/crumbIssuer/api/json').reply(403, LOGIN_PAGE, {
      'Content-Type': 'text/html;charset=UTF-8'
    })
    const error = await jenkinsError(client.getJob(job), 'auth-required')
    expect(error.message).toMatch(
      /refused anonymous read of job 'team\/deploy' \(403\): a job token alone is not enough here.*Give user\/token .*or grant anonymous read\.$/
    )
  })

  it('following the queued build refused anonymously: "give user/token, or use wait: false"', async () => {
    const { client } = anonymous()
    nock(ORIGIN)
      .get('/jenkins/queue/item/3/api/json')
      .reply(403, LOGIN_PAGE, { 'Content-Type': 'text/html;charset=UTF-8' })
    const error = await jenkinsError(client.getQueueItem(3), 'auth-required')
    expect(error.message).toBe(
      `Jenkins at ${BASE} refused anonymous read of queue item 3 (403): the job token let this step queue the build, but following it needs read access: give user/token, or use wait: false.`
    )
    nock(ORIGIN)
      .get('/jenkins/job/team/job/deploy/5/api/json')
      .reply(...JENKINS_404)
    const build = await jenkinsError(client.getBuild(job, 5), 'not-found')
    expect(build.message).toMatch(/\(404\)$/)
    nock(ORIGIN)
      .get('/jenkins/job/team/job/deploy/api/json')
      .query(true)
      .reply(...JENKINS_404)
    const builds = await jenkinsError(client.recentBuilds(job, 5), 'not-found')
    expect(builds.message).toMatch(
      /anonymous users may not read it: give user\/token, or use wait: false$/
    )
  })

  it('the job token joins the redaction list: a body echoing it is masked', async () => {
    const { client } = anonymous()
    nock(ORIGIN)
      .get('/jenkins/crumbIssuer/api/json')
      .reply(...JENKINS_404)
    nock(ORIGIN)
      .post('/jenkins/job/team/job/deploy/build')
      .query(true)
      .reply(400, `bad form: token=${JOB_TOKEN}`, { 'Content-Type': 'text/plain' })
    const error = await jenkinsError(client.trigger(plain, job, {}), 'bad-request')
    expect(error.message, error.message).toContain('token=***')
    expect(error.message).not.toContain(JOB_TOKEN)
  })
})
