import { mkdtempSync, rmSync } from 'node:fs'
import http from 'node:http'
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
import { ADMIN, get, post, queueId, TOKEN, waitFor } from './helpers.js'
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

/** One raw GET: status (0: no answer), the body as it came, and how it ended ('end', 'error', or still 'open' after `waitMs`). */
function rawGet(
  j: TestJenkins,
  path: string,
  waitMs = 400
): Promise<{ status: number; body: string; chunks: number; ended: 'end' | 'error' | 'open' }> {
  return new Promise(resolve => {
    let status = 0
    let body = ''
    let chunks = 0
    const done = (ended: 'end' | 'error' | 'open'): void => {
      clearTimeout(timer)
      resolve({ status, body, chunks, ended })
    }
    const timer = setTimeout(() => {
      done('open')
      req.destroy()
    }, waitMs)
    const req = http.get(`${j.url}${path}`, { headers: { authorization: TOKEN } }, res => {
      status = res.statusCode ?? 0
      res.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8')
        chunks++
      })
      res.on('end', () => done('end'))
      res.on('error', () => done('error'))
    })
    req.on('error', () => done('error'))
  })
}

describe('aimed faults (by kind and job, so one server serves several tests)', () => {
  async function withBuild(): Promise<TestJenkins> {
    const j = await start({ quietPeriodSec: 0 })
    await post(j, '/job/app/build?delay=0sec')
    await waitFor(() => j.builds('app')[0])
    return j
  }

  it('drip: the whole answer, a few bytes at a time', async () => {
    const j = await withBuild()
    j.aim({ kind: 'build', job: 'app', effect: { type: 'drip', bytesPerSecond: 400 } })
    const r = await rawGet(j, '/job/app/1/api/json?tree=number,building', 10_000)
    expect(r.status).toBe(200)
    expect(r.ended).toBe('end')
    expect(JSON.parse(r.body)).toMatchObject({ number: 1 })
    expect(r.chunks).toBeGreaterThan(3)
    expect(j.requests.at(-1)).toMatchObject({
      kind: 'build',
      job: 'app',
      fault: 'drip',
      status: 200
    })
  })

  it('chunked: the artifact as Jenkins serves it, without Content-Length; a reader that stops is seen', async () => {
    const j = await start({
      jobs: {
        files: {
          script: { durationMs: 0, artifacts: [{ path: 'big.txt', size: 64 * 1024 * 1024 }] }
        }
      }
    })
    await post(j, '/job/files/build?delay=0sec')
    await waitFor(() => j.builds('files').find(b => !b.building))
    j.aim({ kind: 'artifact', job: 'files', effect: { type: 'chunked' } })
    const path = '/job/files/1/artifact/big.txt'
    const head = await new Promise<http.IncomingMessage>(resolve => {
      const req = http.get(`${j.url}${path}`, { headers: { authorization: TOKEN } }, res => {
        resolve(res)
        // One chunk read, then the reader goes away.
        res.once('data', () => req.destroy())
      })
    })
    expect(head.statusCode).toBe(200)
    expect(head.headers['content-length']).toBeUndefined()
    expect(head.headers['transfer-encoding']).toBe('chunked')
    const entry = await waitFor(() => j.requests.find(q => q.path === path))
    // 64 MiB cannot all sit in the socket buffers: the answer never finished
    // (status 0: the connection was dropped).
    expect(entry).toMatchObject({ kind: 'artifact', fault: 'chunked', status: 0 })
    expect(entry.finished).toBeUndefined()
    expect(entry.bytes ?? 0).toBeLessThan(64 * 1024 * 1024)
  })

  it('silence: the headers, then nothing, the connection open', async () => {
    const j = await withBuild()
    j.aim({ kind: 'build', job: 'app', effect: { type: 'silence' } })
    const r = await rawGet(j, '/job/app/1/api/json')
    expect(r).toMatchObject({ status: 200, body: '', ended: 'open' })
  })

  it('half-open: part of the body, then nothing, the connection open', async () => {
    const j = await withBuild()
    const whole = await rawGet(j, '/job/app/1/api/json')
    j.aim({ kind: 'build', job: 'app', effect: { type: 'half-open', afterBytes: 10 } })
    const r = await rawGet(j, '/job/app/1/api/json')
    expect(r.ended).toBe('open')
    expect(r.body).toBe(whole.body.slice(0, 10))
  })

  it('reset: part of the body, then the connection is reset', async () => {
    const j = await withBuild()
    j.aim({ kind: 'log', job: 'app', effect: { type: 'reset', afterBytes: 5 } })
    const r = await rawGet(j, '/job/app/1/logText/progressiveText?start=0', 5000)
    expect(r).toMatchObject({ status: 200, ended: 'error' })
    expect(r.body.length).toBeLessThanOrEqual(5)
  })

  it('hang: no answer at all, and the request is logged as such once the client gives up', async () => {
    const j = await withBuild()
    const fault = j.aim({ kind: 'queue', job: 'app', effect: { type: 'hang' } })
    const r = await rawGet(j, '/queue/item/1/api/json', 300)
    expect(r).toMatchObject({ status: 0, ended: 'open' })
    await fault.hit
    expect(fault.hits).toBe(1)
    await waitFor(() => j.requests.find(q => q.fault === 'hang'))
  })

  it('hang without a kind: a Jenkins that accepts connections and answers nothing at all', async () => {
    const j = await withBuild()
    const fault = j.aim({ effect: { type: 'hang' } })
    const paths = ['/api/json', '/crumbIssuer/api/json', '/job/app/api/json', '/login']
    const answers = await Promise.all(paths.map(path => rawGet(j, path, 300)))
    for (const r of answers) expect(r).toMatchObject({ status: 0, ended: 'open' })
    expect(fault.hits).toBe(paths.length)
    fault.remove()
    expect((await get(j, '/job/app/api/json')).status).toBe(200)
  })

  it('the Nth request only: a single SSO page, a single invalid JSON, then Jenkins again', async () => {
    const j = await withBuild()
    j.aim({ kind: 'job', job: 'app', from: 2, times: 1, effect: { type: 'html-page' } })
    j.aim({ kind: 'job', job: 'app', from: 3, times: 1, effect: { type: 'invalid-json' } })
    const answers = []
    for (let i = 0; i < 4; i++) answers.push(await get(j, '/job/app/api/json'))
    expect(answers.map(a => a.headers.get('content-type'))).toEqual([
      'application/json;charset=UTF-8',
      'text/html;charset=utf-8',
      'application/json;charset=UTF-8',
      'application/json;charset=UTF-8'
    ])
    const bodies = await Promise.all(answers.map(a => a.text()))
    expect(() => JSON.parse(bodies[2] ?? '')).toThrow()
    expect(JSON.parse(bodies[3] ?? '')).toMatchObject({ name: 'app' })
  })

  it('deep-json: Jenkins answers, with an action nested that deep; a query filter aims at one tree only', async () => {
    const j = await withBuild()
    j.aim({
      kind: 'build',
      job: 'app',
      query: 'tree=artifacts',
      effect: { type: 'deep-json', depth: 1000 }
    })
    j.aim({
      kind: 'build',
      job: 'app',
      query: 'tree=actions',
      effect: { type: 'deep-json', depth: 3 }
    })
    const poll = await (await get(j, '/job/app/1/api/json?tree=number')).text()
    expect(JSON.parse(poll)).toEqual({ _class: 'hudson.model.FreeStyleBuild', number: 1 })
    const list = await (await get(j, '/job/app/1/api/json?tree=artifacts%5BrelativePath%5D')).text()
    expect(list.startsWith(`{"nested":${'['.repeat(1000)}]`)).toBe(true)
    expect(JSON.parse(list)).toMatchObject({ artifacts: [] })
    const actions = await (await get(j, '/job/app/1/api/json?tree=actions%5B_class%5D')).text()
    expect(JSON.parse(actions).actions[0]).toEqual({
      _class: 'hudson.model.DeepAction',
      nested: [[[]]]
    })
    expect(j.requests.map(q => q.fault)).toEqual([undefined, undefined, 'deep-json', 'deep-json'])
  })

  it('a status with Retry-After, without Jenkins acting', async () => {
    const j = await start()
    j.aim({
      kind: 'trigger',
      job: 'app',
      effect: { type: 'status', status: 503, retryAfterSec: 50 }
    })
    const res = await post(j, '/job/app/build')
    expect(res.status).toBe(503)
    expect(res.headers.get('retry-after')).toBe('50')
    expect(j.state.queue).toHaveLength(0)
  })

  it('aims by job: another job, and a queue item of another job, are untouched; remove() ends it', async () => {
    const j = await start({ quietPeriodSec: 60 })
    const app = queueId((await post(j, '/job/app/build')).headers.get('location'))
    const long = queueId((await post(j, '/job/long/build')).headers.get('location'))
    const fault = j.aim({ kind: 'queue', job: 'app', effect: { type: 'status', status: 502 } })
    expect((await get(j, `/queue/item/${long}/api/json`)).status).toBe(200)
    expect((await get(j, `/queue/item/${app}/api/json`)).status).toBe(502)
    expect((await get(j, '/job/app/api/json')).status).toBe(200)
    fault.remove()
    expect((await get(j, `/queue/item/${app}/api/json`)).status).toBe(200)
    expect(fault.hits).toBe(1)
  })
})
