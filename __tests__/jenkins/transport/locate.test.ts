import nock from 'nock'
import { describe, expect, it } from 'vitest'
import { JenkinsClient } from '../../../src/jenkins/client.js'
import {
  AUTH,
  JENKINS_404,
  TOKEN,
  USER,
  jenkinsError,
  recordingLogger,
  useNock
} from '../helpers.js'

useNock()

/**
 * A `url` without the context path Jenkins runs under: Winstone serves
 * Jenkins in its --prefix context only, so every other path gets Jetty's
 * plain 404, without X-Jenkins (locate.ts). The server here is
 * http://ci.example.com:8080 and Jenkins, unless a test says otherwise,
 * answers under /jenkins.
 */
const HOST = 'http://ci.example.com:8080'
/** Jetty's 404 for a path outside the webapp: no Jenkins header. */
const JETTY_404 = [
  404,
  '<html><head><title>Error 404 Not Found</title></head><body><h2>HTTP ERROR 404 Not Found</h2></body></html>',
  { 'Content-Type': 'text/html;charset=iso-8859-1' }
] as const
const JENKINS_LOGIN = [
  200,
  '<!DOCTYPE html><html><head><title>Sign in - Jenkins</title></head></html>',
  { 'Content-Type': 'text/html;charset=UTF-8', 'X-Jenkins': '2.541.1' }
] as const

function client(url = HOST) {
  return new JenkinsClient({
    url,
    user: USER,
    token: TOKEN,
    logger: recordingLogger(),
    requestTimeoutMs: 2000,
    retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 2 }
  })
}

/** The job and crumb requests of getJob, both answered by Jetty outside the context. */
function outsideTheContext(path = '') {
  nock(HOST)
    .get(`${path}/job/a/api/json`)
    .query(true)
    .reply(...JETTY_404)
  nock(HOST)
    .get(`${path}/crumbIssuer/api/json`)
    .reply(...JETTY_404)
}

const NOT_HERE = (url: string) =>
  `The server at ${url} answered job 'a' with a 404 that is not Jenkins' (no X-Jenkins header), and ${url}/login is no Jenkins page either: 'url' is not the address of Jenkins.`

describe("a 404 that is not Jenkins' own before Jenkins ever answered", () => {
  it('Winstone with --prefix=/jenkins: nothing at the root, Jenkins found at the usual /jenkins', async () => {
    const api = client()
    outsideTheContext()
    nock(HOST)
      .get('/login')
      .reply(...JETTY_404)
    nock(HOST)
      .get('/')
      .reply(...JETTY_404)
    nock(HOST)
      .get('/jenkins/login')
      .matchHeader('authorization', AUTH)
      .reply(...JENKINS_LOGIN)
    const error = await jenkinsError(api.getJob(['a']), 'not-jenkins')
    expect(error.message).toBe(
      `${NOT_HERE(HOST)} Jenkins answers at ${HOST}/jenkins: set 'url' to ${HOST}/jenkins.`
    )
    expect(error.status).toBe(404)
    // Looked once, though the crumb's 404 came too.
    expect(api.http.requestCounts['probe']).toBe(3)
  })

  it('a server that redirects / to where Jenkins is: named, with the redirect', async () => {
    const api = client()
    outsideTheContext()
    nock(HOST)
      .get('/login')
      .reply(...JETTY_404)
    nock(HOST)
      .get('/')
      .reply(302, '', { Location: `${HOST}/ci/` })
    nock(HOST)
      .get('/ci/login')
      .reply(...JENKINS_LOGIN)
    const error = await jenkinsError(api.getJob(['a']), 'not-jenkins')
    expect(error.message).toBe(
      `${NOT_HERE(HOST)} Jenkins answers at ${HOST}/ci (the server redirects / there): set 'url' to ${HOST}/ci.`
    )
  })

  it('a url with a context path Jenkins does not use: the root redirect is followed to where it answers', async () => {
    const api = client(`${HOST}/jenkins`)
    outsideTheContext('/jenkins')
    nock(HOST)
      .get('/jenkins/login')
      .reply(...JETTY_404)
    nock(HOST).get('/').reply(301, '', { Location: '/ci/' })
    nock(HOST)
      .get('/ci/login')
      .reply(...JENKINS_LOGIN)
    const error = await jenkinsError(api.getJob(['a']), 'not-jenkins')
    expect(error.message).toContain(`set 'url' to ${HOST}/ci.`)
  })

  it('no Jenkins found: says what url must hold; a redirect to another server is not followed', async () => {
    const api = client()
    outsideTheContext()
    nock(HOST)
      .get('/login')
      .reply(...JETTY_404)
    nock(HOST).get('/').reply(302, '', { Location: 'https://sso.example.com/' })
    nock(HOST)
      .get('/jenkins/login')
      .reply(...JETTY_404)
    const error = await jenkinsError(api.getJob(['a']), 'not-jenkins')
    expect(error.message).toBe(
      `${NOT_HERE(HOST)} If Jenkins runs under a context path (its --prefix option), 'url' must end with it, as in ${HOST}/jenkins.`
    )
    expect(api.http.requestCounts['probe']).toBe(3)
  })

  it('Jenkins answers at url after all (the header was lost on the way): the 404 is taken as it is', async () => {
    const api = client()
    outsideTheContext()
    nock(HOST)
      .get('/login')
      .reply(...JENKINS_LOGIN)
    const error = await jenkinsError(api.getJob(['a']), 'not-found')
    expect(error.message).toBe(`Job 'a' was not found on Jenkins at ${HOST} (404)`)
    expect(api.http.requestCounts['probe']).toBe(1)
  })

  it('once Jenkins answered, a 404 without the header is not looked into', async () => {
    const api = client()
    nock(HOST)
      .get('/job/a/7/api/json')
      .reply(200, { number: 7, building: false, result: 'SUCCESS' }, { 'X-Jenkins': '2.541.1' })
      .get('/job/a/8/api/json')
      .reply(...JETTY_404)
    await api.getBuild(['a'], 7)
    const error = await jenkinsError(api.getBuild(['a'], 8), 'not-found')
    expect(error.message).toBe(`Build #8 of job 'a' was not found on Jenkins at ${HOST} (404)`)
    expect(api.http.requestCounts['probe']).toBeUndefined()
  })

  it("Jenkins' own 404 needs no look: a job that does not exist", async () => {
    const api = client()
    nock(HOST)
      .get('/job/a/api/json')
      .query(true)
      .reply(...JENKINS_404)
    nock(HOST)
      .get('/crumbIssuer/api/json')
      .reply(...JENKINS_404)
    await jenkinsError(api.getJob(['a']), 'not-found')
    expect(api.http.requestCounts['probe']).toBeUndefined()
  })

  it("a POST first (disable): the crumb issuer's foreign 404 is not 'CSRF off', and nothing is posted", async () => {
    const api = client()
    nock(HOST)
      .get('/crumbIssuer/api/json')
      .reply(...JETTY_404)
    nock(HOST)
      .get('/login')
      .reply(...JETTY_404)
    nock(HOST)
      .get('/')
      .reply(...JETTY_404)
    nock(HOST)
      .get('/jenkins/login')
      .reply(...JENKINS_LOGIN)
    const error = await jenkinsError(api.disableJob(['a']), 'not-jenkins')
    expect(error.message).toContain("answered the CSRF crumb with a 404 that is not Jenkins'")
    expect(error.message).toContain(`set 'url' to ${HOST}/jenkins.`)
    expect(api.http.requestCounts['disable']).toBeUndefined()
  })
})

/**
 * A `url` below Jenkins' root (an extra context path, a job's page): Jenkins
 * answers there, with its own 404s, so only a look at the login page tells
 * (locateRoot, asked once the job and the job list were both not found).
 */
describe('locateRoot: a url that is a path below Jenkins', () => {
  const ROOT_HERE = [200, '<html>Sign in</html>', { 'X-Jenkins': '2.541.1' }] as const

  it('an extra context path: Jenkins at the root, named', async () => {
    const api = client(`${HOST}/jenkins`)
    nock(HOST)
      .get('/jenkins/login')
      .matchHeader('authorization', AUTH)
      .reply(...JENKINS_404)
    nock(HOST)
      .get('/login')
      .reply(...ROOT_HERE)
    expect(await api.locateRoot("job 'a'")).toBe(
      `'url' is not the address of Jenkins: Jenkins answers at ${HOST}, and at ${HOST}/jenkins it has neither job 'a' nor its login page. Set 'url' to ${HOST}.`
    )
    expect(api.http.requestCounts['probe']).toBe(2)
  })

  it("a job's page: the path before /job/ first, and the job named", async () => {
    const api = client(`${HOST}/ci/job/team/job/my%20app/`)
    nock(HOST)
      .get('/ci/job/team/job/my%20app/login')
      .reply(...JENKINS_404)
    nock(HOST)
      .get('/ci/login')
      .reply(...ROOT_HERE)
    expect(await api.locateRoot("job 'app'")).toBe(
      `'url' is not the address of Jenkins: Jenkins answers at ${HOST}/ci, and at ${HOST}/ci/job/team/job/my%20app it has neither job 'app' nor its login page. Set 'url' to ${HOST}/ci; ${HOST}/ci/job/team/job/my%20app is the page of 'team/my app', whose path goes in 'job'.`
    )
  })

  it('url is the root after all, or no root is found within three looks: nothing to say', async () => {
    const root = client()
    nock(HOST)
      .get('/login')
      .reply(...ROOT_HERE)
    expect(await root.locateRoot("job 'a'")).toBeUndefined()
    expect(root.http.requestCounts['probe']).toBe(1)

    const deep = client(`${HOST}/a/b/c/d`)
    for (const path of ['/a/b/c/d', '/a/b/c', '/a/b']) {
      nock(HOST)
        .get(`${path}/login`)
        .reply(...JENKINS_404)
    }
    expect(await deep.locateRoot("job 'a'")).toBeUndefined()
    expect(deep.http.requestCounts['probe']).toBe(3)
  })

  it('a 404 page with X-Jenkins is not a login page: below the root, Jenkins answers /login with it', async () => {
    const api = client(`${HOST}/jenkins`)
    nock(HOST)
      .get('/jenkins/login')
      .reply(...JENKINS_404)
    nock(HOST)
      .get('/login')
      .reply(...JENKINS_404)
    expect(await api.locateRoot("job 'a'")).toBeUndefined()
  })
})
