/**
 * The bounds of every GitHub request, against the GitHub stand-in over real
 * HTTP (undici's fetch, as the action sends): a GitHub that never sends its
 * headers, drips its body or sends too much ends within the silence bound,
 * the deadline or the step's signal, with an error that says which.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { statusReporter } from './status-reporter.js'
import { GithubSession } from '../../src/outcome/github-client.js'
import { TokenIdentity } from '../../src/outcome/github-identity.js'
import { PullRequestComment } from '../../src/outcome/pr-comment.js'
import type { Logger } from '../../src/util/logger.js'
import {
  boundedFetch,
  failureEnd,
  githubFailure,
  GithubTransportError,
  requestName
} from '../../src/outcome/github-transport.js'
import { silentLogger } from '../fixtures/recording-logger.js'
import type { RequestBounds } from '../../src/outcome/github-transport.js'
import { startGithub, type GithubStandIn } from '../../test-server/index.js'
import { recordingLogger } from '../fixtures/recording-logger.js'
import { useGithubFetch } from '../fixtures/github-fetch.js'

const TOKEN = 'ghs_transportToken0123456789'
/**
 * GitHub's silence bound (github-transport.ts), run out on fake timers once
 * the request is where the test wants it: the stand-in and the sockets stay
 * real, only boundedFetch's timer is virtual.
 */
const SILENCE_MS = 20_000
const TIMERS: Array<'setTimeout' | 'clearTimeout'> = ['setTimeout', 'clearTimeout']
const API = 'https://api.github.com'
/** The largest answer boundedFetch reads: 32 MiB. */
const CAP = 32 * 1024 * 1024
/** Octokit asks api.github.com (@actions/github's default): its requests go to the stand-in. */
const toStandIn: typeof fetch = (input, init) => fetch(String(input).replace(API, github.url), init)

let github: GithubStandIn
beforeAll(async () => {
  github = await startGithub()
  for (const n of [1, 2, 3, 4, 5, 6, 7, 8, 9]) github.heads.set(n, 'a'.repeat(40))
})
afterAll(() => github.close())
afterEach(() => vi.useRealTimers())
beforeEach(() => useGithubFetch(toStandIn))

/** Runs out the silence bound on the fake timers, once `ready` has come. */
async function runOut(ready: Promise<unknown>): Promise<void> {
  await ready
  await vi.advanceTimersByTimeAsync(SILENCE_MS)
}

/** The answer of the last request failureOf sent, its headers in. */
let lastAnswer: Promise<Response>

/** Reads pull request `n` through a bounded fetch; what it threw. */
async function failureOf(n: number, bounds: RequestBounds = {}) {
  const base: typeof fetch = (input, init) => (lastAnswer = fetch(input, init))
  const fetcher = boundedFetch(base, () => bounds)
  try {
    await (await fetcher(`${github.url}/repos/o/r/pulls/${n}`, {})).text()
  } catch (error) {
    return error as GithubTransportError
  }
  throw new Error('no failure')
}

const pull = (n: number) => ({
  route: 'pulls.get',
  match: (r: { params: Record<string, string> }) => r.params.number === String(n)
})

describe('boundedFetch', () => {
  it('headers never sent: a timeout naming the request and the bound', async () => {
    const fault = github.aim({ ...pull(1), effect: { type: 'stall' } })
    vi.useFakeTimers({ toFake: TIMERS })
    const failed = failureOf(1)
    await runOut(fault.hit)
    const error = await failed
    expect(error).toBeInstanceOf(GithubTransportError)
    expect(error.kind).toBe('timeout')
    expect(error.message).toBe(
      `No answer from GitHub at ${github.url} to GET /repos/o/r/pulls/1 within 20.0 s`
    )
  })

  it('a body that drips: a timeout saying how much came', async () => {
    const fault = github.aim({ ...pull(2), effect: { type: 'drip', bytesPerSecond: 2 } })
    vi.useFakeTimers({ toFake: TIMERS })
    const failed = failureOf(2)
    await runOut(fault.hit.then(() => lastAnswer))
    const error = await failed
    expect(error.kind).toBe('timeout')
    expect(error.message).toMatch(
      /^GitHub at http:\/\/127\.0\.0\.1:\d+ did not finish sending its answer to GET \/repos\/o\/r\/pulls\/2 within 20\.0 s \(\d+ bytes received\)$/
    )
  })

  it.each([
    [
      'with its length declared',
      true,
      /answered GET \/repos\/o\/r\/pulls\/3 with 34603008 bytes, more than the 32 MiB/
    ],
    [
      'chunked',
      false,
      /answered GET \/repos\/o\/r\/pulls\/3 with more than \d+ bytes, more than the 32 MiB/
    ]
  ])('a body too large (%s): refused at the cap', async (_, declared, message) => {
    const fault = github.aim({
      ...pull(3),
      effect: { type: 'huge', bytes: CAP + 1024 * 1024, declared },
      times: 1
    })
    const error = await failureOf(3)
    expect(fault.hits).toBe(1)
    expect(error.kind).toBe('too-large')
    expect(error.message).toMatch(message)
  })

  it("the step's signal, while the headers are awaited: stopped at once", async () => {
    const fault = github.aim({ ...pull(4), effect: { type: 'stall' } })
    const controller = new AbortController()
    void fault.hit.then(() => controller.abort())
    const error = await failureOf(4, { signal: controller.signal, deadline: Date.now() + 60_000 })
    expect(error.kind).toBe('stopped')
    expect(error.message).toMatch(
      /^Stopped waiting for GitHub at .*: no answer to GET \/repos\/o\/r\/pulls\/4 after/
    )
  })

  it("the step's signal, while the body drips: stopped, saying how much came", async () => {
    const fault = github.aim({ ...pull(5), effect: { type: 'drip', bytesPerSecond: 1 } })
    const controller = new AbortController()
    void fault.hit.then(() => setTimeout(() => controller.abort(), 100))
    const error = await failureOf(5, { signal: controller.signal })
    expect(error.kind).toBe('stopped')
    expect(error.message).toMatch(
      /it had sent \d+ bytes of its answer to GET \/repos\/o\/r\/pulls\/5 in/
    )
  })

  it('a deadline before the silence bound ends it', async () => {
    github.aim({ ...pull(6), effect: { type: 'stall' } })
    const error = await failureOf(6, { deadline: Date.now() + 50 })
    expect(error.kind).toBe('timeout')
    expect(error.message).toMatch(/to GET \/repos\/o\/r\/pulls\/6 before the deadline$/)
  })

  it('a signal that fired already: nothing is sent', async () => {
    const before = github.requests.length
    const error = await failureOf(7, { signal: AbortSignal.abort() })
    expect(error.kind).toBe('stopped')
    expect(error.message).toMatch(/^Did not send GET \/repos\/o\/r\/pulls\/7 to GitHub at/)
    expect(github.requests.length).toBe(before)
  })
})

describe('through Octokit', () => {
  it('an answer passes whole: status, headers, data', async () => {
    const client = new GithubSession({ token: TOKEN, logger: silentLogger }).client
    const answer = await client.rest.pulls.get({ owner: 'o', repo: 'r', pull_number: 8 })
    expect(answer.status).toBe(200)
    expect(answer.data.head.sha).toBe('a'.repeat(40))
    expect(answer.headers['x-ratelimit-limit']).toBe('5000')
  })

  it('a stall is decoded as no answer, not as an HTTP 500', async () => {
    const fault = github.aim({ ...pull(9), effect: { type: 'stall' } })
    const { client } = new GithubSession({ token: TOKEN, logger: silentLogger })
    vi.useFakeTimers({ toFake: TIMERS })
    const failed = client.rest.pulls.get({ owner: 'o', repo: 'r', pull_number: 9 }).then(
      () => undefined,
      (e: unknown) => e
    )
    await runOut(fault.hit)
    const error = await failed
    expect(githubFailure(error)).toEqual({
      kind: 'timeout',
      message: `No answer from GitHub at ${API} to GET /repos/o/r/pulls/9 within 20.0 s`
    })
    expect(failureEnd(error, text => text)).toBe(
      `: No answer from GitHub at ${API} to GET /repos/o/r/pulls/9 within 20.0 s`
    )
  })

  it("GitHub's own refusal keeps its status", async () => {
    const client = new GithubSession({ token: TOKEN, logger: silentLogger }).client
    const error = await client.rest.users.getAuthenticated().then(
      () => undefined,
      (e: unknown) => e
    )
    expect(githubFailure(error)).toMatchObject({ kind: 'answered', status: 403 })
    expect(failureEnd(error, text => text.replace('integration', '***'))).toMatch(
      /^ \(HTTP 403\): .*\*\*\*/
    )
  })
})

describe('GithubSession', () => {
  function reports(logger: Logger, sha: string, bounds: RequestBounds = {}) {
    const session = new GithubSession({
      token: TOKEN,
      logger,
      bounds: () => bounds
    })
    const status = statusReporter({ token: TOKEN, context: 'ci/stalled', logger, session }, sha)
    const comment = new PullRequestComment({
      session,
      identity: new TokenIdentity({ session }),
      owner: 'o',
      repo: 'r',
      number: 77,
      marker: '<!-- m -->',
      redact: text => text
    })
    return { status, comment }
  }

  it('GitHub leaves a status unanswered: one warning for the step, and no further report is sent', async () => {
    const { logger, at } = recordingLogger()
    const sha = 'e'.repeat(40)
    const { status, comment } = reports(logger, sha)
    const fault = github.aim({
      route: 'statuses.create',
      match: r => r.params.sha === sha,
      effect: { type: 'stall' }
    })
    vi.useFakeTimers({ toFake: TIMERS })
    const pending = status.pending('Queued in Jenkins')
    await runOut(fault.hit)
    await pending
    const before = github.requests.length
    await comment.write('<!-- m -->\nqueued')
    await status.finish('SUCCESS', 'done')
    expect(fault.hits).toBe(1)
    expect(github.requests.length).toBe(before)
    expect(at('warning')).toEqual([
      `No answer from GitHub at ${API} to POST /repos/o/r/statuses/${sha} within 20.0 s: no further commit status or pull request comment is sent in this step (one already set stays as it is). The build itself is not affected.`
    ])
  })

  it('GitHub leaves GET /user unanswered while the comment is searched: one warning, and no comment is written', async () => {
    const { logger, at } = recordingLogger()
    const { comment } = reports(logger, '9'.repeat(40))
    github.model.addComment(77, 'github-actions[bot]', '<!-- m -->\nold')
    const fault = github.aim({ route: 'user.get', effect: { type: 'stall' }, times: 1 })
    const from = github.requests.length
    vi.useFakeTimers({ toFake: TIMERS })
    const written = comment.write('<!-- m -->\nnew')
    await runOut(fault.hit)
    await written
    expect(fault.hits).toBe(1)
    expect(github.requests.slice(from).map(q => q.route)).toEqual(['comments.list', 'user.get'])
    expect(at('warning')).toEqual([
      expect.stringMatching(/^No answer from GitHub at .* to GET \/user within 20\.0 s: no further/)
    ])
  })

  it("a request the step's stop ends is said, not warned about, and reports still go after it", async () => {
    const { logger, at } = recordingLogger()
    const controller = new AbortController()
    const bounds: RequestBounds = { signal: controller.signal }
    const sha = 'f'.repeat(40)
    const { status } = reports(logger, sha, bounds)
    const fault = github.aim({
      route: 'statuses.create',
      match: r => r.params.sha === sha,
      effect: { type: 'stall' },
      times: 1
    })
    void fault.hit.then(() => controller.abort())
    await status.pending('Queued in Jenkins')
    // After the stop, the abort's budget: the final status goes.
    delete bounds.signal
    await status.finish('FAILURE', 'stopped')
    expect(at('warning')).toEqual([])
    expect(at('info')).toEqual([
      expect.stringMatching(
        /^Stopped waiting for GitHub at .*: no answer to POST \/repos\/o\/r\/statuses\/f+ after \d+\.\d s\.$/
      )
    ])
    expect(github.model.statuses.filter(s => s.sha === sha).map(s => s.state)).toEqual(['failure'])
  })
})

/**
 * Which bound an exchange names, and what it leaves behind, decided exactly:
 * Date frozen where a time is compared or said, and, where the exchange
 * itself must be controlled to the byte, a fetch written for the test in
 * place of the network (the `base` boundedFetch is given).
 */
describe('boundedFetch: which bound, exactly', () => {
  afterEach(() => vi.useRealTimers())

  it('a deadline exactly the silence bound away: the silence bound is named', async () => {
    vi.useFakeTimers({ toFake: ['Date', ...TIMERS] })
    const fault = github.aim({ ...pull(11), effect: { type: 'stall' } })
    const failed = failureOf(11, { deadline: Date.now() + SILENCE_MS })
    await runOut(fault.hit)
    expect((await failed).message).toMatch(/to GET \/repos\/o\/r\/pulls\/11 within 20\.0 s$/)
  })

  it('with a signal, the deadline is its backstop only: one 250 ms past it still leaves the silence bound first', async () => {
    vi.useFakeTimers({ toFake: ['Date', ...TIMERS] })
    const fault = github.aim({ ...pull(12), effect: { type: 'stall' } })
    const signal = new AbortController().signal
    const failed = failureOf(12, { signal, deadline: Date.now() + SILENCE_MS - 200 })
    await runOut(fault.hit)
    expect((await failed).message).toMatch(/to GET \/repos\/o\/r\/pulls\/12 within 20\.0 s$/)
  })

  it("the step's stop says how long it waited (Date frozen: no time passed)", async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const fault = github.aim({ ...pull(13), effect: { type: 'stall' } })
    const controller = new AbortController()
    void fault.hit.then(() => controller.abort())
    const error = await failureOf(13, { signal: controller.signal })
    expect(error.message).toBe(
      `Stopped waiting for GitHub at ${github.url}: no answer to GET /repos/o/r/pulls/13 after 0.0 s`
    )
  })

  it.each([204, 205, 304])('an answer %i, which has no body, passes as it came', async status => {
    const send = boundedFetch(
      () => Promise.resolve(new Response(null, { status, headers: { etag: '"e1"' } })),
      () => ({})
    )
    const answer = await send(`${API}/repos/o/r/issues/comments/1`, { method: 'DELETE' })
    expect([answer.status, answer.headers.get('etag'), await answer.text()]).toEqual([
      status,
      '"e1"',
      ''
    ])
  })

  it("the step's stop while the body stalls: says how many bytes had come", async () => {
    const controller = new AbortController()
    const send = boundedFetch(
      // Like fetch: 5 bytes of the body, then nothing until the exchange's signal errors it.
      async (_input, init) =>
        new Response(
          new ReadableStream<Uint8Array>({
            start(body) {
              body.enqueue(new Uint8Array(5))
              init?.signal?.addEventListener('abort', () => body.error(init.signal?.reason))
            },
            // Asked for more once the 5 bytes are taken: the stop comes when they have been counted.
            pull: () => {
              setImmediate(() => controller.abort())
              return new Promise(() => undefined)
            }
          })
        ),
      () => ({ signal: controller.signal })
    )
    const error = await send(`${API}/repos/o/r`).catch((e: unknown) => e)
    expect(githubFailure(error)).toEqual({
      kind: 'stopped',
      message: expect.stringMatching(
        /^Stopped waiting for GitHub at https:\/\/api\.github\.com: it had sent 5 bytes of its answer to GET \/repos\/o\/r in /
      )
    })
  })

  it('the first bound to end an exchange is the one reported, whatever fires after it', async () => {
    const controller = new AbortController()
    const send = boundedFetch(
      // The stop comes first; the deadline's timer (due at once) fires while the fetch is still settling.
      (_input, init) =>
        new Promise((_resolve, reject) => {
          controller.abort()
          setTimeout(() => reject(new DOMException('This operation was aborted', 'AbortError')), 20)
          void init
        }),
      () => ({ signal: controller.signal, deadline: Date.now() - 1000 })
    )
    const error = await send(`${API}/user`).catch((e: unknown) => e)
    expect(githubFailure(error).kind).toBe('stopped')
  })

  it("a fetch that rejects a cut exchange with its own AbortError: the cut's reason is reported", async () => {
    const send = boundedFetch(
      (_input, init) =>
        new Promise((_resolve, reject) =>
          init?.signal?.addEventListener('abort', () =>
            reject(new DOMException('This operation was aborted', 'AbortError'))
          )
        ),
      () => ({})
    )
    vi.useFakeTimers({ toFake: TIMERS })
    const failed = send(`${API}/user`).catch((e: unknown) => e)
    await runOut(Promise.resolve())
    const error = await failed
    expect(githubFailure(error)).toEqual({
      kind: 'timeout',
      message: 'No answer from GitHub at https://api.github.com to GET /user within 20.0 s'
    })
  })

  it('a connection that fails: a network failure naming the request and the cause', async () => {
    const send = boundedFetch(
      () =>
        Promise.reject(new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') })),
      () => ({})
    )
    const error = await send(`${API}/repos/o/r/pulls/1`, { method: 'post' }).catch(
      (e: unknown) => e
    )
    expect(error).toBeInstanceOf(GithubTransportError)
    expect(githubFailure(error)).toEqual({
      kind: 'network',
      message:
        'The connection to GitHub at https://api.github.com failed during POST /repos/o/r/pulls/1: fetch failed (connect ECONNREFUSED)'
    })
  })

  it('a failure without a cause is named as it is', async () => {
    const send = boundedFetch(
      () => Promise.reject(new Error('socket hang up')),
      () => ({})
    )
    const error = await send(`${API}/user`).catch((e: unknown) => e)
    expect(githubFailure(error).message).toBe(
      'The connection to GitHub at https://api.github.com failed during GET /user: socket hang up'
    )
  })

  it('an answer without a body (204) passes, and leaves no timer behind', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const send = boundedFetch(
      async () => new Response(null, { status: 204 }),
      () => ({})
    )
    const answer = await send(`${API}/repos/o/r/issues/comments/1`, { method: 'DELETE' })
    expect(answer.status).toBe(204)
    expect(await answer.text()).toBe('')
    expect(vi.getTimerCount()).toBe(0)
  })

  it.each([
    ['declared', true],
    ['chunked', false]
  ])('a body exactly at the cap (%s) is read whole', async (_, declared) => {
    const bytes = new Uint8Array(CAP).fill(97)
    const body = declared
      ? bytes
      : new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(bytes.subarray(0, CAP / 2))
            controller.enqueue(bytes.subarray(CAP / 2))
            controller.close()
          }
        })
    const send = boundedFetch(
      async () =>
        new Response(body, { headers: declared ? { 'content-length': String(CAP) } : {} }),
      () => ({})
    )
    expect(await (await send(`${API}/user`)).text()).toBe('a'.repeat(CAP))
  })
})

describe('githubFailure and requestName', () => {
  it.each<[string, unknown, ReturnType<typeof githubFailure>]>([
    ['nothing (a rejection with null)', null, { kind: 'network', message: 'null' }],
    ['nothing (undefined)', undefined, { kind: 'network', message: 'undefined' }],
    ['a plain error', new Error('boom'), { kind: 'network', message: 'boom' }],
    [
      "Octokit's wrapper of a fetch failure (status 500, no response)",
      Object.assign(new Error('fetch failed'), { status: 500 }),
      { kind: 'network', message: 'fetch failed' }
    ],
    [
      'a response without a status',
      Object.assign(new Error('odd'), { response: {} }),
      { kind: 'network', message: 'odd' }
    ],
    [
      "GitHub's answer",
      Object.assign(new Error('Not Found'), { status: 404, response: { status: 404 } }),
      { kind: 'answered', status: 404, message: 'Not Found' }
    ]
  ])('%s', (_, error, failure) => {
    expect(githubFailure(error)).toEqual(failure)
  })

  it('names a request by its method and path, GET when none is given', () => {
    expect(requestName(`${API}/repos/o/r?page=2`)).toEqual({
      what: 'GET /repos/o/r',
      server: API
    })
    expect(requestName(new Request(`${API}/user`, { method: 'PATCH' }))).toEqual({
      what: 'PATCH /user',
      server: API
    })
  })

  it("the answer keeps the URL it came from (Octokit's response.url)", async () => {
    const client = new GithubSession({ token: TOKEN, logger: silentLogger }).client
    const answer = await client.rest.pulls.get({ owner: 'o', repo: 'r', pull_number: 8 })
    expect(answer.url).toBe(`${github.url}/repos/o/r/pulls/8`)
  })
})
