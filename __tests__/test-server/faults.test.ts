import { mkdtempSync, rmSync } from 'node:fs'
import https from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  startJenkins,
  type FaultSpec,
  type ServerOptions,
  type TestJenkins
} from '../../test-server/index.js'
import { ADMIN, get, post, TOKEN, waitFor } from './helpers.js'
import { selfSigned } from '../fixtures/self-signed.js'

const servers: TestJenkins[] = []

async function start(options: ServerOptions = {}): Promise<TestJenkins> {
  const j = await startJenkins({
    users: [{ ...ADMIN, permissions: ['admin'] }],
    quietPeriodSec: 0,
    jobs: { app: { script: { durationMs: 100 } }, long: { script: { durationMs: 600 } } },
    ...options
  })
  servers.push(j)
  return j
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map(s => s.close()))
})

/** Status of each of `n` sequential reads; 0 for a dropped connection. */
async function statuses(j: TestJenkins, n: number): Promise<number[]> {
  const out: number[] = []
  for (let i = 0; i < n; i++) {
    try {
      out.push((await get(j, '/job/app/api/json')).status)
    } catch {
      out.push(0)
    }
  }
  return out
}

describe('fault injection', () => {
  const spec: FaultSpec = { seed: 42, errorRate: 0.3, dropRate: 0.1, retryAfterSec: 2 }

  it('is reproducible with a seed and differs with another seed', async () => {
    const a = await start({ faults: spec })
    const b = await start({ faults: spec })
    const c = await start({ faults: { ...spec, seed: 7 } })
    const [sa, sb, sc] = [await statuses(a, 40), await statuses(b, 40), await statuses(c, 40)]
    expect(sa).toEqual(sb)
    expect(sa).not.toEqual(sc)
    expect(sa.filter(s => s === 200).length).toBeGreaterThan(10)
    expect(sa.some(s => s === 502 || s === 503)).toBe(true)
    expect(sa).toContain(0)
    // The log records what happened, faults included.
    expect(a.requests.map(r => r.status)).toEqual(sa)
    expect(a.requests.filter(r => r.fault === 'drop').length).toBe(sa.filter(s => s === 0).length)
    // setFaults re-seeds: the same sequence again.
    a.setFaults(spec)
    expect(await statuses(a, 40)).toEqual(sa)
    a.setFaults(undefined)
    expect(new Set(await statuses(a, 10))).toEqual(new Set([200]))
  })

  it('sends Retry-After on injected 503s and never acts on a faulted trigger', async () => {
    const j = await start({
      faults: { seed: 3, errorRate: 1, errorStatuses: [503], retryAfterSec: 2, kinds: ['trigger'] }
    })
    const res = await post(j, '/job/app/build')
    expect(res.status).toBe(503)
    expect(res.headers.get('retry-after')).toBe('2')
    expect(j.state.queue).toHaveLength(0)
    expect(j.triggerCount('app')).toBe(0)
    // Other kinds are untouched.
    expect((await get(j, '/job/app/api/json')).status).toBe(200)
  })

  it('can spare some kinds', async () => {
    const j = await start({ faults: { errorRate: 1, excludeKinds: ['trigger', 'crumb'] } })
    expect((await post(j, '/job/app/build')).status).toBe(201)
    expect((await get(j, '/crumbIssuer/api/json')).status).toBe(200)
    expect([502, 503]).toContain((await get(j, '/job/app/api/json')).status)
    expect(j.triggerCount('app')).toBe(1)
    expect(j.triggerCount()).toBe(1)
  })

  it('adds latency', async () => {
    const j = await start({ faults: { latencyMs: 150 } })
    const t0 = Date.now()
    await get(j, '/api/json')
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140)
  })

  it('restarts mid-build on request; the build still ends', async () => {
    const j = await start({
      restartDowntimeMs: 150,
      faults: { restartDuringBuild: { afterMs: 100 } }
    })
    const cookie = j.cookieName
    await post(j, '/job/long/build')
    await waitFor(() => (j.cookieName !== cookie ? true : undefined), 'restart')
    await waitFor(async () => {
      try {
        return (await get(j, '/api/json')).status === 200 ? true : undefined
      } catch {
        return undefined
      }
    }, 'server back')
    await waitFor(() => (j.builds('long')[0]?.building === false ? true : undefined))
    expect(j.builds('long')[0]?.result).toBe('SUCCESS')
  })
})

describe('request log', () => {
  it('records method, path, query, status, user, kind and job', async () => {
    const j = await start({ quietPeriodSec: 0 })
    await post(j, '/job/app/build?delay=0sec')
    await get(j, '/queue/item/1/api/json')
    await get(j, '/job/app/1/logText/progressiveText?start=0')
    await get(j, '/job/app/lastBuild/api/json', null)
    expect(j.requests.map(r => [r.method, r.kind, r.status, r.user, r.job])).toEqual([
      ['POST', 'trigger', 201, 'admin', 'app'],
      ['GET', 'queue', 200, 'admin', 'app'],
      ['GET', 'log', 200, 'admin', 'app'],
      ['GET', 'build', 403, 'anonymous', undefined]
    ])
    expect(j.requests[0]).toMatchObject({ path: '/job/app/build', query: 'delay=0sec' })
    expect(j.triggerCount('app')).toBe(1)
  })
})

describe('TLS', () => {
  it('serves https with the given key and certificate', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jenkins-tls-'))
    try {
      const { key, cert } = selfSigned(dir, '127.0.0.1', 'IP:127.0.0.1')
      const j = await start({ tls: { key, cert } })
      expect(j.url.startsWith('https://127.0.0.1:')).toBe(true)
      const status = await new Promise<number>((resolve, reject) => {
        https
          .get(`${j.url}/api/json`, { ca: cert, headers: { authorization: TOKEN } }, res => {
            res.resume()
            resolve(res.statusCode ?? 0)
          })
          .on('error', reject)
      })
      expect(status).toBe(200)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
