/**
 * End to end: what the step says when it cannot do its work. Each message
 * must tell the user what to fix, and never carry the token.
 */
import { createServer } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorAnnotation, type ActionRun } from '../../scripts/action-runner.js'
import { startJenkins, type TestJenkins } from '../../test-server/index.js'
import {
  ADMIN_TOKEN,
  auth,
  describeRun,
  run,
  RUNTIMES,
  startLocalServer,
  type LocalServer
} from './helpers.js'

const READER_TOKEN = '11aa22bb33cc44dd55ee66ff77889900aa'

/** A failed run: exit 1, one annotation, no stack trace, no token anywhere. */
function failure(r: ActionRun, ...secrets: string[]): string {
  expect(r.code, describeRun(r)).toBe(1)
  const message = errorAnnotation(r)
  expect(message).not.toBe('')
  expect(r.stdout + r.stderr).not.toMatch(/^\s+at .*:\d+:\d+\)?$/m)
  for (const secret of secrets) {
    const leaks = r.stdout
      .split('\n')
      .filter(l => l.includes(secret) && !l.startsWith('::add-mask::'))
    expect(leaks).toEqual([])
    expect(r.stderr).not.toContain(secret)
  }
  return message
}

/** A port nothing listens on: bound, read, released. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise(resolve => server.close(resolve))
  return port
}

describe.each(RUNTIMES)('failures ($name)', ({ path: node }) => {
  let jenkins: TestJenkins
  /** A Jenkins served at the root of its server (no context path). */
  let rooted: TestJenkins
  let sso: LocalServer
  beforeAll(async () => {
    rooted = await startJenkins({
      quietPeriodSec: 0,
      users: [{ name: 'admin', apiToken: ADMIN_TOKEN, permissions: ['admin'] }],
      jobs: { hello: { script: { durationMs: 100 } } }
    })
    jenkins = await startJenkins({
      contextPath: '/jenkins',
      quietPeriodSec: 0,
      users: [
        { name: 'admin', password: 'admin', apiToken: ADMIN_TOKEN, permissions: ['admin'] },
        { name: 'reader', apiToken: READER_TOKEN, permissions: ['read'] }
      ],
      jobs: {
        team: {
          type: 'folder',
          jobs: {
            service: {
              type: 'folder',
              jobs: { deploy: { script: { durationMs: 100 } } }
            }
          }
        },
        hello: { script: { durationMs: 100 } },
        disabled: { disabled: true, script: { durationMs: 100 } }
      }
    })
    // An SSO proxy in front of Jenkins: every URL answers 200 with its login page.
    sso = await startLocalServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      res.end(
        '<!DOCTYPE html><html><head><title>Sign in - Corporate SSO</title></head>' +
          '<body><form method="post" action="/sso/login"><input name="username"></form></body></html>'
      )
    })
  })
  afterAll(async () => {
    await jenkins.close()
    await rooted.close()
    await sso.close()
  })

  describe.concurrent('messages', () => {
    it('401: a wrong token names the user and says to check user and token', async () => {
      const wrong = 'wrong-token-0000111122223333'
      const r = await run(node, { url: jenkins.url, user: 'admin', token: wrong, job: 'hello' })
      const message = failure(r, wrong)
      expect(message).toMatch(/401/)
      // The server is named by the configured url, context path included.
      expect(message).toContain(`Jenkins at ${jenkins.url} rejected`)
      expect(message).toContain("'admin'")
      expect(message).toMatch(/check the user and API token/)
      expect(jenkins.triggerCount()).toBe(0)
    })

    it('431: a token too large for any header limit names the user and token inputs', async () => {
      // Node's HTTP server, like most proxies, refuses more than 16 KiB of headers.
      const huge = 'x'.repeat(20_000)
      const r = await run(node, { url: jenkins.url, user: 'admin', token: huge, job: 'hello' })
      const message = failure(r)
      expect(message).toMatch(/too large \(431\).*'user' and 'token' inputs/)
      expect(message).not.toMatch(/unexpected status/)
    })

    it('403 login page: anonymous access is told to set user and token', async () => {
      const r = await run(node, { url: jenkins.url, job: 'hello' })
      const message = failure(r)
      expect(message).toMatch(/requires authentication: set user and token/)
      expect(message).toContain('403')
    })

    it('403 missing permission names the user and the permission', async () => {
      const r = await run(node, {
        url: jenkins.url,
        user: 'reader',
        token: READER_TOKEN,
        job: 'team/service/deploy'
      })
      const message = failure(r, READER_TOKEN)
      expect(message).toContain("'reader'")
      expect(message).toContain('Job/Build')
      expect(jenkins.builds('team/service/deploy')).toHaveLength(0)
    })

    it('404 suggests the closest job name', async () => {
      const r = await run(node, { ...auth(jenkins), job: 'team/service/deplyo' })
      const message = failure(r, ADMIN_TOKEN)
      expect(message).toContain(
        `Job 'team/service/deplyo' was not found on Jenkins at ${jenkins.url} (404)`
      )
      expect(message).toMatch(/\(404\)\. Did you mean: team\/service\/deploy\?$/)
    })

    it('409: a disabled job says to enable it', async () => {
      const r = await run(node, { ...auth(jenkins, 'password'), job: 'disabled' })
      const message = failure(r)
      expect(message).toMatch(/'disabled'.* is disabled/)
      expect(message).toMatch(/enable it/)
      expect(jenkins.builds('disabled')).toHaveLength(0)
    })

    it('a folder given as the job says to name a job inside it', async () => {
      const r = await run(node, { ...auth(jenkins), job: 'team/service' })
      const message = failure(r, ADMIN_TOKEN)
      expect(message).toMatch(/team\/service is a folder, not a job/)
      expect(message).toMatch(/list-jobs/)
      expect(jenkins.requests.filter(q => q.job === 'team/service' && q.method === 'POST')).toEqual(
        []
      )
    })

    it('an HTML page where JSON was expected points at a login page or SSO proxy', async () => {
      const r = await run(node, { url: sso.url, user: 'admin', token: ADMIN_TOKEN, job: 'hello' })
      const message = failure(r, ADMIN_TOKEN)
      expect(message).toMatch(/HTML page where JSON was expected/)
      expect(message).toMatch(/login page or SSO proxy/)
      expect(message).toContain(sso.url.replace(/^http:\/\//, ''))
      // It stopped at the first page: no POST was sent to the proxy.
      expect(sso.requests.filter(q => q.method === 'POST')).toEqual([])
    })

    it('a failure ends the step at once, though a crumb request is still being retried', async () => {
      // The crumb issuer is briefly unavailable (503: retried in the
      // background) while the job GET is refused outright (401).
      const flaky = await startLocalServer((req, res) => {
        res.writeHead(req.url?.startsWith('/crumbIssuer/') ? 503 : 401, {
          'www-authenticate': 'Basic realm="Jenkins"'
        })
        res.end()
      })
      try {
        const r = await run(node, {
          url: flaky.url,
          user: 'admin',
          token: ADMIN_TOKEN,
          job: 'hello'
        })
        const message = failure(r, ADMIN_TOKEN)
        expect(message).toMatch(/401/)
        expect(flaky.requests.some(q => q.url.startsWith('/crumbIssuer/'))).toBe(true)
        expect(r.stdout.trimEnd().split('\n').at(-1)).toMatch(/^::error::/)
      } finally {
        await flaky.close()
      }
    })

    it('connection refused on the first request: a configuration error, said within seconds', async () => {
      const port = await closedPort()
      const url = `http://127.0.0.1:${port}/jenkins`
      // No timeout input: the step's own default (an hour) must not be what ends it.
      const r = await run(node, { url, user: 'admin', token: ADMIN_TOKEN, job: 'hello' })
      const message = failure(r, ADMIN_TOKEN)
      expect(message).toMatch(
        `Could not connect to Jenkins at ${url}: 127.0.0.1:${port} refused the connection. That was the first request, and nothing has answered at that address yet: check the 'url' input (its host and port) and that Jenkins is running and reachable from this runner (after 3 attempts in `
      )
      // A few seconds, not the 42 s of retries a mid-build refusal gets: a
      // generous bound for a busy machine.
      expect(r.durationMs, describeRun(r)).toBeLessThan(20_000)
      // The step ends with its outcome: the crumb prefetch, still retrying
      // in the background, neither holds the process open nor logs after it.
      expect(r.stdout.trimEnd().split('\n').at(-1)).toMatch(/^::error::Could not connect/)
    })

    it('a url without the context path Jenkins runs under says where Jenkins answers', async () => {
      const origin = new URL(jenkins.url).origin
      const r = await run(node, { url: origin, user: 'admin', token: ADMIN_TOKEN, job: 'hello' })
      const message = failure(r, ADMIN_TOKEN)
      expect(message).toBe(
        `The server at ${origin} answered job 'hello' with a 404 that is not Jenkins' (no X-Jenkins header), and ${origin}/login is no Jenkins page either: 'url' is not the address of Jenkins. Jenkins answers at ${jenkins.url}: set 'url' to ${jenkins.url}.`
      )
      // Only this run asks outside the context path: it looked, and posted nothing.
      const outside = jenkins.requests.filter(q => !q.path.startsWith('/jenkins'))
      expect(outside.filter(q => q.method !== 'GET')).toEqual([])
      expect(outside.map(q => q.path)).toEqual(
        expect.arrayContaining(['/job/hello/api/json', '/login', '/'])
      )
    })

    it("a url with a context path Jenkins at the root does not have: 'url' is wrong, and what it should be", async () => {
      const url = `${rooted.url}/jenkins`
      const r = await run(node, { url, user: 'admin', token: ADMIN_TOKEN, job: 'hello' })
      const message = failure(r, ADMIN_TOKEN)
      expect(message).toBe(
        `'url' is not the address of Jenkins: Jenkins answers at ${rooted.url}, and at ${url} it has neither job 'hello' nor its login page. Set 'url' to ${rooted.url}.`
      )
      // Jenkins answered every request of this run under /jenkins (its own 404s), and nothing was posted.
      const mine = rooted.requests.filter(q => q.path.startsWith('/jenkins/'))
      expect(mine.length).toBeGreaterThan(0)
      expect(mine.filter(q => q.method !== 'GET')).toEqual([])
    })

    it("a job's page pasted into url: 'url' is wrong, the job's path goes in 'job'", async () => {
      const page = `${rooted.url}/job/hello`
      const r = await run(node, {
        url: `${page}/`,
        user: 'admin',
        token: ADMIN_TOKEN,
        job: 'hello'
      })
      const message = failure(r, ADMIN_TOKEN)
      expect(message).toBe(
        `'url' is not the address of Jenkins: Jenkins answers at ${rooted.url}, and at ${page} it has neither job 'hello' nor its login page. Set 'url' to ${rooted.url}; ${page} is the page of 'hello', whose path goes in 'job'.`
      )
      const posts = rooted.requests.filter(q => q.method !== 'GET' && q.path.startsWith('/job/'))
      expect(posts).toEqual([])
    })

    it('an unresolvable host is named', async () => {
      const r = await run(node, {
        url: 'http://jenkins.invalid:8080/',
        user: 'admin',
        token: ADMIN_TOKEN,
        job: 'hello',
        timeout: '10s'
      })
      const message = failure(r, ADMIN_TOKEN)
      expect(message).toContain('jenkins.invalid')
      expect(message).toMatch(/resolve|not found|DNS|ENOTFOUND|EAI_AGAIN/i)
    })
  })
})
