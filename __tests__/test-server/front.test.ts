/**
 * What sits in front of Jenkins: Jetty's ForwardedRequestCustomizer (the
 * Location of a trigger), an authenticating proxy, and TLS with a test CA.
 */
import http from 'node:http'
import https from 'node:https'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { startJenkins, type ServerOptions, type TestJenkins } from '../../test-server/index.js'
import { testCertificates, type TestCertificates } from '../../test-server/http/tls.js'
import { ADMIN, get, TOKEN } from './helpers.js'

let jenkins: TestJenkins | undefined

async function start(options: ServerOptions = {}): Promise<TestJenkins> {
  jenkins = await startJenkins({
    users: [{ ...ADMIN, permissions: ['admin'] }],
    quietPeriodSec: 60,
    jobs: { plain: {} },
    ...options
  })
  return jenkins
}

afterEach(async () => {
  await jenkins?.close()
  jenkins = undefined
})

/** POST /job/plain/build with raw headers (Host included); resolves to status and Location. */
function trigger(
  j: TestJenkins,
  headers: Array<[string, string]>
): Promise<{ status: number; location: string | undefined }> {
  const url = new URL(`${j.url}/job/plain/build`)
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', setHost: false },
      res => {
        res.resume()
        resolve({ status: res.statusCode ?? 0, location: res.headers.location })
      }
    )
    req.setHeader('authorization', TOKEN)
    for (const [name, value] of headers) req.setHeader(name, value)
    req.on('error', reject)
    req.end()
  })
}

describe('listening address', () => {
  it('an IPv6 address is bracketed in the URL', async () => {
    const j = await start({ host: '::1' })
    expect(j.url).toMatch(/^http:\/\/\[::1\]:\d+$/)
    expect((await get(j, '/api/json')).status).toBe(200)
  })
})

describe('Location behind a proxy (Jetty ForwardedRequestCustomizer)', () => {
  it('follows Host, then X-Forwarded-Proto/-Host/-Port, Forwarded over them, default ports left out', async () => {
    const j = await start({ contextPath: '/ci' })
    const cases: Array<[Array<[string, string]>, string]> = [
      [[['host', 'jenkins.internal:8080']], 'http://jenkins.internal:8080/ci/queue/item/1/'],
      [
        [
          ['host', 'jenkins.internal:8080'],
          ['x-forwarded-proto', 'https'],
          ['x-forwarded-host', 'ci.example.com']
        ],
        'https://ci.example.com/ci/queue/item/1/'
      ],
      [
        [
          ['host', 'jenkins.internal:8080'],
          ['x-forwarded-proto', 'https'],
          ['x-forwarded-host', 'ci.example.com'],
          ['x-forwarded-port', '8443']
        ],
        'https://ci.example.com:8443/ci/queue/item/1/'
      ],
      // Only the port forwarded: the Host's name stays.
      [
        [
          ['host', 'jenkins.internal:8080'],
          ['x-forwarded-port', '9000']
        ],
        'http://jenkins.internal:9000/ci/queue/item/1/'
      ],
      // The leftmost value of a list counts.
      [
        [
          ['host', 'jenkins.internal'],
          ['x-forwarded-host', 'a.example, b.example'],
          ['x-forwarded-proto', 'https, http']
        ],
        'https://a.example/ci/queue/item/1/'
      ],
      // Forwarded wins over X-Forwarded-*, and a host= without a port drops X-Forwarded-Port.
      [
        [
          ['host', 'jenkins.internal:8080'],
          ['x-forwarded-host', 'xf.example'],
          ['x-forwarded-port', '8443'],
          ['forwarded', 'for=192.0.2.60;proto=https;host=rfc.example']
        ],
        'https://rfc.example/ci/queue/item/1/'
      ],
      [
        [
          ['host', 'jenkins.internal:8080'],
          ['forwarded', 'proto=https;host="rfc.example:8443", for=198.51.100.1']
        ],
        'https://rfc.example:8443/ci/queue/item/1/'
      ],
      [
        [
          ['host', 'jenkins.internal:443'],
          ['x-forwarded-proto', 'https']
        ],
        'https://jenkins.internal/ci/queue/item/1/'
      ]
    ]
    for (const [headers, location] of cases) {
      const answer = await trigger(j, headers)
      expect(answer, JSON.stringify(headers)).toEqual({ status: 201, location })
    }
  })

  it('a bad X-Forwarded-Port is a bad message (400) before anything else', async () => {
    const j = await start()
    const answer = await trigger(j, [
      ['host', '127.0.0.1'],
      ['x-forwarded-port', 'eighty']
    ])
    expect(answer.status).toBe(400)
    expect(j.state.queue).toEqual([])
  })
})

describe('auth proxy mode', () => {
  it('refuses a request without the headers with a 302 to its sign-in page (200 HTML); Jenkins never sees it', async () => {
    const j = await start({
      authProxy: { headers: { 'CF-Access-Client-Id': 'id-1', 'CF-Access-Client-Secret': 's-2' } }
    })
    const refused = await get(j, '/api/json')
    expect(refused.status).toBe(302)
    const location = refused.headers.get('location') ?? ''
    expect(location).toBe(`${new URL(j.url).origin}/.auth-proxy/sign_in?rd=%2Fapi%2Fjson`)
    const page = await fetch(location)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toContain('text/html')
    expect(page.headers.get('x-jenkins')).toBeNull()
    expect(await page.text()).toContain('Sign in')
    // One header of two is not enough; a wrong value neither.
    expect((await get(j, '/api/json', TOKEN, { 'cf-access-client-id': 'id-1' })).status).toBe(302)
    const both = { 'cf-access-client-id': 'id-1', 'cf-access-client-secret': 's-2' }
    expect(
      (await get(j, '/api/json', TOKEN, { ...both, 'cf-access-client-secret': 'x' })).status
    ).toBe(302)
    const passed = await get(j, '/api/json', TOKEN, both)
    expect(passed.status).toBe(200)
    expect(passed.headers.get('x-jenkins')).not.toBeNull()
    // Three refusals and the sign-in page: all answered by the proxy.
    expect(j.requests.filter(r => r.fault === 'auth-proxy').map(r => r.status)).toEqual([
      302, 200, 302, 302
    ])
  })

  it('can answer with the page itself and another status', async () => {
    const j = await start({ authProxy: { headers: { 'X-Auth': 'k' }, status: 401 } })
    const refused = await get(j, '/job/plain/api/json')
    expect(refused.status).toBe(401)
    expect(await refused.text()).toContain('<h1>Sign in to continue</h1>')
    expect(j.requests[0]).toMatchObject({ fault: 'auth-proxy', kind: 'job' })
  })
})

describe('TLS with a test CA', () => {
  let dir: string
  let certs: TestCertificates
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'test-ca-'))
    certs = testCertificates(dir)
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('is trusted with the CA and refused without it', async () => {
    const j = await start({ tls: { key: certs.key, cert: certs.cert }, anonymousRead: true })
    expect(j.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/)
    const fetchWith = (ca?: string): Promise<number | string> =>
      new Promise(resolve => {
        https
          .get(`${j.url}/api/json`, ca === undefined ? {} : { ca }, res => {
            res.resume()
            resolve(res.statusCode ?? 0)
          })
          .on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'))
      })
    expect(await fetchWith(certs.ca)).toBe(200)
    expect(await fetchWith()).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE')
    expect(certs.ca).toMatch(/^-----BEGIN CERTIFICATE-----/)
    expect(certs.caPath).toBe(join(dir, 'ca.pem'))
  })
})
