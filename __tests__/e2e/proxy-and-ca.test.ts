/**
 * End to end: `headers` through the test server's auth-proxy mode, and
 * `ca-cert` against its TLS mode with a test CA, directly and through
 * HTTPS_PROXY, beside NODE_EXTRA_CA_CERTS.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorAnnotation, type ActionRun } from '../../scripts/action-runner.js'
import { startJenkins, type TestJenkins } from '../../test-server/index.js'
import { testCertificates, type TestCertificates } from '../../test-server/http/tls.js'
import { fakeHostPreload, startForwardProxy } from './forward-proxy.js'
import { auth, describeRun, run, RUNTIMES, startLocalServer, type LocalServer } from './helpers.js'

const NODE24 = RUNTIMES[1]?.path ?? process.execPath
const CLIENT_ID = 'cf-id-0a1b2c3d.access'
const CLIENT_SECRET = 'cf-secret-5e6f7a8b9c0d1e2f'
const FAKE_HOST = 'jenkins.proxied.test'
const jobs = () => ({
  ok: { script: { durationMs: 150, consoleLines: ['behind the proxy'] } },
  tls: { script: { durationMs: 150, consoleLines: ['over TLS'] } }
})

/** A line of the run that shows `secret` (the runner's ::add-mask:: lines aside). */
function shows(r: ActionRun, secret: string): string[] {
  const text = [r.stdout, r.stderr, JSON.stringify(r.outputs), r.summary].join('\n')
  return text.split('\n').filter(l => l.includes(secret) && !l.startsWith('::add-mask::'))
}

describe('headers through an authenticating proxy', () => {
  let jenkins: TestJenkins
  beforeAll(async () => {
    jenkins = await startJenkins({
      quietPeriodSec: 0,
      jobs: jobs(),
      authProxy: {
        headers: { 'CF-Access-Client-Id': CLIENT_ID, 'CF-Access-Client-Secret': CLIENT_SECRET }
      }
    })
  })
  afterAll(() => jenkins.close())

  it('with the headers: every request gets through, the build is followed, the values masked', async () => {
    const before = jenkins.requests.length
    const r = await run(NODE24, {
      ...auth(jenkins, 'password'),
      job: 'ok',
      headers: `CF-Access-Client-Id: ${CLIENT_ID}\nCF-Access-Client-Secret: ${CLIENT_SECRET}`
    })
    expect(r.code, describeRun(r)).toBe(0)
    expect(r.outputs.result).toBe('SUCCESS')
    const mine = jenkins.requests.slice(before)
    expect(mine.filter(q => q.fault === 'auth-proxy')).toEqual([])
    expect(mine.filter(q => q.kind === 'trigger' && q.job === 'ok').map(q => q.status)).toEqual([
      201
    ])
    // The password login needed the crumb: the session went through the proxy too.
    expect(mine.some(q => q.kind === 'crumb' && q.status === 200)).toBe(true)
    expect(r.stdout).toContain(`::add-mask::${CLIENT_SECRET}`)
    expect(shows(r, CLIENT_SECRET)).toEqual([])
    expect(shows(r, CLIENT_ID)).toEqual([])
  })

  it('without them: the proxy sign-in page, an error that points at headers, nothing reaches Jenkins', async () => {
    const before = jenkins.requests.length
    const builds = jenkins.builds('ok').length
    const r = await run(process.execPath, { ...auth(jenkins), job: 'ok' })
    expect(r.code, describeRun(r)).toBe(1)
    expect(errorAnnotation(r)).toMatch(
      /HTML page where JSON was expected .*give it the headers it expects in 'headers'\./
    )
    const mine = jenkins.requests.slice(before)
    expect(mine.length).toBeGreaterThan(0)
    expect(mine.every(q => q.fault === 'auth-proxy')).toBe(true)
    expect(jenkins.builds('ok')).toHaveLength(builds)
  })
})

describe('ca-cert', () => {
  let dir: string
  let certs: TestCertificates
  let other: TestCertificates
  let jenkins: TestJenkins
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'e2e-ca-'))
    certs = testCertificates(join(dir, 'ca'), ['127.0.0.1', FAKE_HOST])
    other = testCertificates(join(dir, 'other'), ['127.0.0.1'], 'Unrelated CA')
    jenkins = await startJenkins({
      quietPeriodSec: 0,
      jobs: jobs(),
      tls: { key: certs.key, cert: certs.cert }
    })
  })
  afterAll(async () => {
    await jenkins.close()
    rmSync(dir, { recursive: true, force: true })
  })

  describe.concurrent('', () => {
    it('with the CA as PEM text: trusted, the build followed', async () => {
      const r = await run(NODE24, { ...auth(jenkins), job: 'tls', 'ca-cert': certs.ca })
      expect(r.code, describeRun(r)).toBe(0)
      expect(r.outputs.result).toBe('SUCCESS')
      expect(r.outputs['build-url']).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/job\/tls\/\d+\/$/)
    })

    it('without it: a certificate error that names ca-cert', async () => {
      const r = await run(process.execPath, { ...auth(jenkins), job: 'tls' })
      expect(r.code, describeRun(r)).toBe(1)
      expect(errorAnnotation(r)).toMatch(
        /^TLS error talking to Jenkins at https:\/\/127\.0\.0\.1:\d+: .*give its certificate in 'ca-cert'/
      )
    })

    it('with an unrelated CA: says the certificates in ca-cert do not verify it', async () => {
      const r = await run(NODE24, { ...auth(jenkins), job: 'tls', 'ca-cert': other.ca })
      expect(r.code, describeRun(r)).toBe(1)
      expect(errorAnnotation(r)).toMatch(/The certificates in 'ca-cert' do not verify it/)
    })

    it.each(RUNTIMES)(
      'NODE_EXTRA_CA_CERTS keeps working beside a ca-cert for something else ($name)',
      async ({ path }) => {
        const r = await run(
          path,
          { ...auth(jenkins), job: 'tls', 'ca-cert': other.ca },
          { env: { NODE_EXTRA_CA_CERTS: certs.caPath } }
        )
        expect(r.code, describeRun(r)).toBe(0)
      }
    )

    it('through HTTPS_PROXY: the CA holds inside the CONNECT tunnel', async () => {
      const proxy = await startForwardProxy()
      const port = new URL(jenkins.url).port
      try {
        const r = await run(
          NODE24,
          {
            url: `https://${FAKE_HOST}:${port}`,
            user: 'admin',
            token: auth(jenkins).token,
            job: 'tls',
            'ca-cert': certs.ca
          },
          {
            env: {
              HTTPS_PROXY: proxy.url,
              NODE_OPTIONS: `--require ${fakeHostPreload(dir, FAKE_HOST)}`
            }
          }
        )
        expect(r.code, describeRun(r)).toBe(0)
        expect(proxy.seen).toContain(`CONNECT ${FAKE_HOST}:${port}`)
        expect(proxy.seen.every(line => line.startsWith('CONNECT '))).toBe(true)
      } finally {
        await proxy.close()
      }
    })
  })
})

describe('GitHub requests through the runner proxy', () => {
  // GitHub's client loads undici (its fetch and ProxyAgent) on its first request, from a
  // chunk of its own (src/util/undici-on-demand.ts): this is the path a runner behind a
  // proxy takes.
  const FAKE_GITHUB = 'api.github.proxied.test'
  let jenkins: TestJenkins
  let github: LocalServer
  let dir: string
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'github-proxy-'))
    jenkins = await startJenkins({ quietPeriodSec: 0, jobs: jobs() })
    github = await startLocalServer((_req, res) => {
      res.writeHead(201, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ id: 1 }))
    })
  })
  afterAll(async () => {
    await jenkins.close()
    await github.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it.each(RUNTIMES)('the commit statuses go through HTTP_PROXY ($name)', async ({ path }) => {
    const proxy = await startForwardProxy()
    const port = new URL(github.url).port
    const before = github.requests.length
    try {
      const r = await run(
        path,
        {
          ...auth(jenkins),
          job: 'ok',
          'commit-status': 'true',
          'github-token': 'ghs_proxyTestToken0123456789abcdef'
        },
        {
          env: {
            GITHUB_API_URL: `http://${FAKE_GITHUB}:${port}`,
            HTTP_PROXY: proxy.url,
            HTTPS_PROXY: proxy.url,
            NODE_OPTIONS: `--require ${fakeHostPreload(dir, FAKE_GITHUB)}`
          }
        }
      )
      expect(r.code, describeRun(r)).toBe(0)
      const posted = github.requests
        .slice(before)
        .filter(q => q.method === 'POST')
        .map(q => q.url)
      expect(posted).toHaveLength(3)
      expect(posted.every(url => /^\/repos\/owner\/repo\/statuses\/[0-9a-f]{40}$/.test(url))).toBe(
        true
      )
      // Every GitHub request went through the proxy, and no Jenkins one (loopback).
      expect(proxy.seen.length).toBeGreaterThan(0)
      expect(proxy.seen.every(line => line.includes(`${FAKE_GITHUB}:${port}`))).toBe(true)
    } finally {
      await proxy.close()
    }
  })
})
