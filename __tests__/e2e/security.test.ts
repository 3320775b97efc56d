/**
 * End to end: no secret in anything a step leaves behind (with debug logging
 * on), credentials never follow a redirect to another origin or from https to
 * http, private CAs through NODE_EXTRA_CA_CERTS, proxies through
 * HTTP_PROXY / HTTPS_PROXY / NO_PROXY.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorAnnotation, node24, type ActionRun } from '../../scripts/action-runner.js'
import { startJenkins, type TestJenkins } from '../../test-server/index.js'
import { fakeHostPreload, startForwardProxy } from './forward-proxy.js'
import { describeRun, run, startLocalServer, type LocalServer } from './helpers.js'
import { selfSigned } from '../fixtures/self-signed.js'

const USER = 'alice'
const PASSWORD = 'pw-Alice-S3cret-7d1f'
const TOKEN = '11aa22bb33cc44dd55ee66ff7788990011'
const WRONG_TOKEN = 'wrong-T0ken-zz-4471'
const NODE24 = node24()
/** A name only the proxy (or the test's resolver preload) knows: it maps to 127.0.0.1. */
const FAKE_HOST = 'jenkins.example.test'

const users = [{ name: USER, password: PASSWORD, apiToken: TOKEN, permissions: ['admin' as const] }]
const jobs = {
  ok: { script: { durationMs: 150, consoleLines: ['hello'] } },
  bad: { script: { durationMs: 150, result: 'FAILURE' as const, consoleLines: ['boom'] } }
}

/** Everything a run leaves for others to read; `::add-mask::` lines are consumed by the runner. */
function everything(r: ActionRun): string {
  const shown = r.stdout
    .split('\n')
    .filter(line => !line.startsWith('::add-mask::'))
    .join('\n')
  return [
    shown,
    r.stderr,
    JSON.stringify(r.outputs),
    r.summary,
    JSON.stringify(r.state),
    r.env
  ].join('\n')
}

let dir: string
let keyPem: string
let certPem: string
let certPath: string
/** A --require preload that resolves FAKE_HOST to 127.0.0.1 (no DNS query leaves the machine). */
let resolverPath: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'jenkins-action-security-'))
  ;({
    key: keyPem,
    cert: certPem,
    certPath
  } = selfSigned(dir, FAKE_HOST, `DNS:${FAKE_HOST},IP:127.0.0.1`))
  resolverPath = fakeHostPreload(dir, FAKE_HOST)
})

afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

describe('no secret in any output, with RUNNER_DEBUG=1', () => {
  let jenkins: TestJenkins
  let flaky: TestJenkins
  const runs: Array<{ name: string; run: ActionRun }> = []
  beforeAll(async () => {
    jenkins = await startJenkins({ quietPeriodSec: 0, users, jobs })
    flaky = await startJenkins({
      quietPeriodSec: 0,
      users,
      jobs,
      faults: { seed: 3, errorRate: 0.3, dropRate: 0.05, lostAnswerRate: 0.1, excludeKinds: [] }
    })
    const debug = { env: { RUNNER_DEBUG: '1' } }
    const base = (j: TestJenkins, token: string) => ({ url: j.url, user: USER, token })
    const list: Array<[string, Promise<ActionRun>]> = [
      ['password (crumb + session)', run(NODE24, { ...base(jenkins, PASSWORD), job: 'ok' }, debug)],
      ['token', run(process.execPath, { ...base(jenkins, TOKEN), job: 'ok' }, debug)],
      ['failing build', run(NODE24, { ...base(jenkins, PASSWORD), job: 'bad' }, debug)],
      ['401', run(process.execPath, { ...base(jenkins, WRONG_TOKEN), job: 'ok' }, debug)],
      ['faults', run(NODE24, { ...base(flaky, PASSWORD), job: 'ok' }, debug)],
      [
        'cancelled by timeout',
        run(NODE24, { ...base(jenkins, PASSWORD), job: 'ok', timeout: '1' }, debug)
      ]
    ]
    for (const [name, promise] of list) runs.push({ name, run: await promise })
  }, 120_000)
  afterAll(async () => {
    await jenkins.close()
    await flaky.close()
  })

  it('the runs did what they should, with debug output on', () => {
    const byName = Object.fromEntries(runs.map(r => [r.name, r.run]))
    const ok = byName['password (crumb + session)'] as ActionRun
    expect(ok.code, describeRun(ok)).toBe(0)
    expect(ok.stdout).toMatch(/^::debug::Got a CSRF crumb/m)
    expect(byName['token']?.code).toBe(0)
    expect(byName['failing build']?.code).toBe(1)
    expect(errorAnnotation(byName['401'] as ActionRun)).toMatch(/rejected the credentials.*401/)
    expect(byName['faults']?.code, describeRun(byName['faults'] as ActionRun)).toBe(0)
    expect(byName['faults']?.stdout).toMatch(/::debug::.*retry 1\//)
    expect(jenkins.issuedCrumbs.length + flaky.issuedCrumbs.length).toBeGreaterThanOrEqual(4)
  })

  it('none of token, password, Basic values or crumbs appears anywhere', () => {
    const secrets = [
      TOKEN,
      PASSWORD,
      WRONG_TOKEN,
      Buffer.from(`${USER}:${TOKEN}`).toString('base64'),
      Buffer.from(`${USER}:${PASSWORD}`).toString('base64'),
      Buffer.from(`${USER}:${WRONG_TOKEN}`).toString('base64'),
      'Basic ',
      ...jenkins.issuedCrumbs,
      ...flaky.issuedCrumbs
    ]
    for (const { name, run: r } of runs) {
      const text = everything(r)
      for (const secret of secrets) {
        expect(text.includes(secret), `${name} shows ${secret.slice(0, 6)}…`).toBe(false)
      }
    }
  })
})

describe('transport security', () => {
  let plain: TestJenkins
  let tls: TestJenkins
  let recorder: LocalServer
  beforeAll(async () => {
    plain = await startJenkins({ quietPeriodSec: 0, users, jobs })
    tls = await startJenkins({
      quietPeriodSec: 0,
      users,
      jobs,
      tls: { key: keyPem, cert: certPem }
    })
    recorder = await startLocalServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' })
      res.end('{}')
    })
  })
  afterAll(async () => {
    await Promise.all([plain.close(), tls.close(), recorder.close()])
  })

  describe.concurrent('', () => {
    it('a redirect to another origin is not followed: the other server receives nothing, no credentials', async () => {
      const redirector = await startLocalServer((req, res) => {
        res.writeHead(302, { Location: `${recorder.url}${req.url}` })
        res.end()
      })
      try {
        const r = await run(NODE24, { url: redirector.url, user: USER, token: TOKEN, job: 'ok' })
        expect(r.code, describeRun(r)).not.toBe(0)
        expect(errorAnnotation(r)).toMatch(/redirected .* to another server .*not following it/)
        expect(redirector.requests.length).toBeGreaterThan(0)
        expect(redirector.requests[0]?.headers.authorization).toBeDefined()
        expect(recorder.requests.filter(q => q.headers.authorization !== undefined)).toEqual([])
      } finally {
        await redirector.close()
      }
    })

    it('an https to http redirect is not followed (no downgrade)', async () => {
      const redirector = https.createServer({ key: keyPem, cert: certPem }, (req, res) => {
        res.writeHead(302, { Location: `${recorder.url}${req.url}` })
        res.end()
      })
      await new Promise<void>(resolve => redirector.listen(0, '127.0.0.1', resolve))
      const { port } = redirector.address() as AddressInfo
      try {
        const r = await run(
          NODE24,
          { url: `https://127.0.0.1:${port}`, user: USER, token: TOKEN, job: 'ok' },
          { env: { NODE_EXTRA_CA_CERTS: certPath } }
        )
        expect(r.code, describeRun(r)).not.toBe(0)
        expect(errorAnnotation(r)).toMatch(/from https to http:.*not following a downgrade/)
        expect(recorder.requests.filter(q => q.headers.authorization !== undefined)).toEqual([])
      } finally {
        redirector.closeAllConnections()
        await new Promise(resolve => redirector.close(resolve))
      }
    })

    it('a self-signed certificate passes with NODE_EXTRA_CA_CERTS', async () => {
      const r = await run(
        NODE24,
        { url: tls.url, user: USER, token: TOKEN, job: 'ok' },
        { env: { NODE_EXTRA_CA_CERTS: certPath } }
      )
      expect(r.code, describeRun(r)).toBe(0)
      expect(r.outputs['result']).toBe('SUCCESS')
    })

    it('a self-signed certificate fails without it, with a message naming NODE_EXTRA_CA_CERTS', async () => {
      const r = await run(process.execPath, { url: tls.url, user: USER, token: TOKEN, job: 'ok' })
      expect(r.code, describeRun(r)).not.toBe(0)
      expect(errorAnnotation(r)).toMatch(/TLS error .*NODE_EXTRA_CA_CERTS/)
    })

    // Node 24 ends a certificate error with "try running Node.js with
    // --use-system-ca", and a handshake error is OpenSSL's line with a line
    // break: neither is something a step's user can act on or read.
    it('TLS errors under Node 24 are one line in our words, without Node-only hints', async () => {
      const untrusted = await run(NODE24, { url: tls.url, user: USER, token: TOKEN, job: 'ok' })
      expect(untrusted.code, describeRun(untrusted)).not.toBe(0)
      expect(errorAnnotation(untrusted)).toBe(
        `TLS error talking to Jenkins at ${tls.url}: Jenkins' certificate is self-signed and not trusted. If Jenkins uses a private CA, give its certificate in 'ca-cert' (or point NODE_EXTRA_CA_CERTS at its file).`
      )
      const plainPort = new URL(plain.url).port
      const notTls = await run(NODE24, {
        url: `https://127.0.0.1:${plainPort}`,
        user: USER,
        token: TOKEN,
        job: 'ok'
      })
      expect(notTls.code, describeRun(notTls)).not.toBe(0)
      expect(errorAnnotation(notTls)).toBe(
        `TLS error talking to Jenkins at https://127.0.0.1:${plainPort}: the TLS handshake failed (wrong version number). Does 127.0.0.1:${plainPort} speak TLS (https) on that port?`
      )
      for (const r of [untrusted, notTls]) {
        expect(r.stdout + r.stderr).not.toMatch(/use-system-ca|Node\.js|SSL routines|deps\/openssl/)
      }
    })

    it('HTTP_PROXY carries http requests (as CONNECT tunnels), NO_PROXY bypasses it, loopback names always bypass it', async () => {
      const proxy = await startForwardProxy()
      const port = new URL(plain.url).port
      const env = { HTTP_PROXY: proxy.url, NODE_OPTIONS: `--require ${resolverPath}` }
      try {
        const via = await run(
          NODE24,
          { url: `http://${FAKE_HOST}:${port}`, user: USER, token: TOKEN, job: 'ok' },
          { env }
        )
        expect(via.code, describeRun(via)).toBe(0)
        // @actions/http-client tunnels plain http through CONNECT too.
        expect(proxy.seen).toContain(`CONNECT ${FAKE_HOST}:${port}`)

        proxy.seen.length = 0
        const bypassed = await run(
          NODE24,
          { url: `http://${FAKE_HOST}:${port}`, user: USER, token: TOKEN, job: 'ok' },
          { env: { ...env, NO_PROXY: `localhost,${FAKE_HOST}` } }
        )
        expect(bypassed.code, describeRun(bypassed)).toBe(0)
        expect(proxy.seen).toEqual([])

        // By design of @actions/http-client (proxy.js isLoopbackAddress):
        // localhost, 127.x and [::1] never go through a proxy.
        const loopback = await run(
          NODE24,
          { url: plain.url, user: USER, token: TOKEN, job: 'ok' },
          { env }
        )
        expect(loopback.code, describeRun(loopback)).toBe(0)
        expect(proxy.seen).toEqual([])
      } finally {
        await proxy.close()
      }
    })

    it('HTTPS_PROXY carries https requests through a CONNECT tunnel (the proxy sees no credentials)', async () => {
      const proxy = await startForwardProxy()
      const port = new URL(tls.url).port
      try {
        const r = await run(
          NODE24,
          { url: `https://${FAKE_HOST}:${port}`, user: USER, token: TOKEN, job: 'ok' },
          {
            env: {
              HTTPS_PROXY: proxy.url,
              NODE_EXTRA_CA_CERTS: certPath,
              NODE_OPTIONS: `--require ${resolverPath}`
            }
          }
        )
        expect(r.code, describeRun(r)).toBe(0)
        expect(proxy.seen).toEqual(expect.arrayContaining([`CONNECT ${FAKE_HOST}:${port}`]))
        expect(proxy.seen.every(line => line.startsWith('CONNECT '))).toBe(true)
      } finally {
        await proxy.close()
      }
    })
  })
})
