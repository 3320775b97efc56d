/**
 * GitHub's rate limits (docs.github.com, Rate limits for the REST API):
 * waited out within the deadline as GitHub documents, or one failure that
 * says so, never taken for a missing permission.
 */
import nock from 'nock'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { statusReporter } from './status-reporter.js'
import { GithubSession, rateLimitOf, type GithubClient } from '../../src/outcome/github-client.js'
import { githubFailure } from '../../src/outcome/github-transport.js'
import type { Logger } from '../../src/util/logger.js'
import { recordingLogger } from '../fixtures/recording-logger.js'
import type { RequestBounds } from '../../src/outcome/github-transport.js'
import { useGithubFetch } from '../fixtures/github-fetch.js'

const API = 'https://api.github.com'
const TOKEN = 'ghs_rateLimitToken0123456789'
const SHA = 'a'.repeat(40)
const STATUSES = `/repos/o/r/statuses/${SHA}`
const SECONDARY =
  'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.'

beforeEach(() => useGithubFetch())
beforeAll(() => nock.disableNetConnect())
afterAll(() => nock.enableNetConnect())
afterEach(() => {
  nock.cleanAll()
  vi.useRealTimers()
})

function recorder() {
  const { logger, at } = recordingLogger()
  return { logger, warnings: () => at('warning'), infos: () => at('info') }
}

function client(logger: Logger, bounds: RequestBounds = {}) {
  return new GithubSession({ token: TOKEN, logger, bounds: () => bounds }).client
}

const setStatus = (c: ReturnType<typeof client>) =>
  c.rest.repos.createCommitStatus({ owner: 'o', repo: 'r', sha: SHA, state: 'pending' })

async function failure(work: Promise<unknown>) {
  return githubFailure(
    await work.then(
      () => new Error('no failure'),
      (e: unknown) => e
    )
  )
}

describe('rate limits, waited out', () => {
  it('a primary limit (403, x-ratelimit-remaining: 0): waits until x-ratelimit-reset, then sends again', async () => {
    const { logger, infos } = recorder()
    const now = Date.now()
    const scope = nock(API)
      .post(STATUSES)
      .reply(
        403,
        { message: 'API rate limit exceeded for installation ID 1.' },
        {
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': String(Math.floor(now / 1000)),
          date: new Date(now).toUTCString()
        }
      )
      .post(STATUSES)
      .reply(201, { id: 1 })
    const answer = await setStatus(client(logger, { deadline: now + 30_000 }))
    expect(answer.status).toBe(201)
    expect(scope.isDone()).toBe(true)
    expect(infos()).toEqual([
      expect.stringMatching(
        /^GitHub's rate limit holds requests back \(HTTP 403, x-ratelimit-remaining: 0\): waiting (\d+ ms|\d+(\.\d)? s) before POST \/repos\/o\/r\/statuses\/a+, as GitHub asks\.$/
      )
    ])
  })

  it('a 429 with retry-after: waits that long, then sends again', async () => {
    const { logger } = recorder()
    const scope = nock(API)
      .post(STATUSES)
      .reply(429, { message: SECONDARY }, { 'retry-after': '1' })
      .post(STATUSES)
      .reply(201, { id: 1 })
    expect((await setStatus(client(logger))).status).toBe(201)
    expect(scope.isDone()).toBe(true)
  })

  it('every request of the step waits while one is held back: none is sent before the time GitHub names', async () => {
    const { logger, infos } = recorder()
    let heldAt = 0
    /** Per later request: whether it came no sooner than GitHub asked (a lower bound: a slow machine only makes it later). */
    const waited: boolean[] = []
    nock(API)
      .post(STATUSES)
      .reply(() => {
        heldAt = Date.now()
        return [403, { message: SECONDARY }, { 'retry-after': '1' }]
      })
      .post(STATUSES)
      .times(2)
      .reply(() => {
        waited.push(Date.now() - heldAt >= 990)
        return [201, { id: 1 }]
      })
    const c = client(logger)
    const first = setStatus(c)
    // The second goes once the first was held back.
    while (infos().length === 0) await new Promise(resolve => setTimeout(resolve, 5))
    await Promise.all([first, setStatus(c)])
    expect(waited).toEqual([true, true])
    // Both waited for the one limit: said once.
    expect(infos()).toHaveLength(1)
  })
})

describe('rate limits that are not waited out', () => {
  it('a secondary limit naming no time past the deadline: one try, rate-limited, nothing sent until it passes', async () => {
    const { logger } = recorder()
    const scope = nock(API).post(STATUSES).reply(403, { message: SECONDARY })
    const c = client(logger, { deadline: Date.now() + 10_000 })
    const first = await failure(setStatus(c))
    expect(first.kind).toBe('rate-limited')
    expect(first.message).toMatch(
      /^GitHub's secondary rate limit held back POST \/repos\/o\/r\/statuses\/a+ \(HTTP 403, the secondary rate limit\) for 1 min more, past the step's deadline$/
    )
    // Held back: not sent, not even asked.
    const second = await failure(setStatus(c))
    expect(second.kind).toBe('rate-limited')
    expect(scope.isDone()).toBe(true)
  })

  it('a retry-after longer than the action waits: rate-limited at once', async () => {
    const { logger } = recorder()
    nock(API).post(STATUSES).reply(403, { message: SECONDARY }, { 'retry-after': '3600' })
    const result = await failure(setStatus(client(logger)))
    expect(result.kind).toBe('rate-limited')
    expect(result.message).toMatch(/ for 1 h more, longer than the 2 min this action waits$/)
  })

  it('held back on every try: rate-limited after 3 tries', async () => {
    const { logger } = recorder()
    const scope = nock(API)
      .post(STATUSES)
      .times(3)
      .reply(429, { message: SECONDARY }, { 'retry-after': '0' })
    const result = await failure(setStatus(client(logger)))
    expect(scope.isDone()).toBe(true)
    expect(result.kind).toBe('rate-limited')
    expect(result.message).toMatch(/, after 3 tries$/)
  })

  it("the step's signal during the wait: stopped", async () => {
    const { logger } = recorder()
    nock(API).post(STATUSES).reply(429, { message: SECONDARY }, { 'retry-after': '30' })
    const controller = new AbortController()
    const work = setStatus(client(logger, { signal: controller.signal }))
    setTimeout(() => controller.abort(), 200)
    const result = await failure(work)
    expect(result).toEqual({
      kind: 'stopped',
      message: `Stopped waiting for GitHub's rate limit before POST ${STATUSES}: the step was stopped`
    })
  })

  it('a 403 without the signs is a refusal, not a limit', async () => {
    const { logger } = recorder()
    nock(API)
      .post(STATUSES)
      .reply(
        403,
        { message: 'Resource not accessible by integration' },
        { 'x-ratelimit-remaining': '4321', 'x-ratelimit-reset': '1' }
      )
    expect(await failure(setStatus(client(logger)))).toMatchObject({
      kind: 'answered',
      status: 403
    })
  })
})

describe('rateLimitOf', () => {
  const answer = (status: number, headers: Record<string, string>, body = '{}') =>
    new Response(body, { status, headers })
  const now = Date.parse('2026-01-01T00:00:00Z')
  // The runner's clock at `now` (only Date: the answers' bodies are read on real timers).
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'], now })
  })

  it.each([
    ['retry-after in seconds', answer(403, { 'retry-after': '7' }), 7000, 'retry-after'],
    [
      'retry-after as an HTTP date',
      answer(429, { 'retry-after': new Date(now + 5000).toUTCString() }),
      5000,
      'retry-after'
    ],
    [
      "x-ratelimit-reset, by GitHub's clock",
      answer(403, {
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(now / 1000 + 60),
        date: new Date(now + 30_000).toUTCString()
      }),
      31_000,
      'x-ratelimit-remaining: 0'
    ],
    ['a 429 without signs', answer(429, {}), undefined, 'the secondary rate limit'],
    [
      'the secondary message alone',
      answer(403, {}, JSON.stringify({ message: SECONDARY })),
      undefined,
      'the secondary rate limit'
    ],
    [
      'x-ratelimit-remaining: 0 without a reset: a time not named',
      answer(403, { 'x-ratelimit-remaining': '0' }),
      undefined,
      'x-ratelimit-remaining: 0'
    ],
    [
      'x-ratelimit-remaining: 0 with a reset of 0: a time not named',
      answer(403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '0' }),
      undefined,
      'x-ratelimit-remaining: 0'
    ],
    [
      'x-ratelimit-remaining: 0 with a reset that is no number: a time not named',
      answer(403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': 'soon' }),
      undefined,
      'x-ratelimit-remaining: 0'
    ]
  ])('%s', async (_, response, waitMs, sign) => {
    expect(await rateLimitOf(response)).toMatchObject({ waitMs, sign })
  })

  it.each([
    ['a 403 refusal', answer(403, { 'x-ratelimit-remaining': '10' })],
    ['a 403 whose retry-after is no number of seconds (x5)', answer(403, { 'retry-after': 'x5' })],
    ['a 403 whose retry-after is no number of seconds (5x)', answer(403, { 'retry-after': '5x' })],
    ['a 200 with remaining 0', answer(200, { 'x-ratelimit-remaining': '0' })],
    ['a 404', answer(404, {})]
  ])('%s: none', async (_, response) => {
    expect(await rateLimitOf(response)).toBeUndefined()
  })
})

describe('commit statuses under a rate limit', () => {
  it('a rate-limited 403 does not close the statuses: one warning that says so, none about statuses: write', async () => {
    const { logger, warnings } = recorder()
    const scope = nock(API)
      .post(STATUSES)
      .reply(403, { message: SECONDARY }, { 'retry-after': '3600' })
    const gate = { closed: false }
    const session = new GithubSession({ token: TOKEN, logger })
    const one = statusReporter({ token: TOKEN, context: 'ci/a', logger, gate, session }, SHA)
    const two = statusReporter({ token: TOKEN, context: 'ci/b', logger, gate, session }, SHA)
    await one.pending('Queued in Jenkins')
    await two.pending('Queued in Jenkins')
    expect(scope.isDone()).toBe(true)
    expect(gate.closed).toBe(false)
    expect(warnings()).toEqual([
      expect.stringMatching(
        /^GitHub's secondary rate limit held back POST .* longer than the 2 min this action waits: Commit status 'ci\/a' \(pending\) is not sent\. That is GitHub's rate limit for the github-token, not a missing permission/
      )
    ])
  })
})

/**
 * The session's rate limits on a virtual clock (Date faked, timers real): the times compared are exact,
 * and a wait the test does not want to sit through is ended by the step's
 * signal once it is said.
 */
describe('rate limits: the boundaries of waiting', () => {
  // The virtual clock's start: the requests' own bounds read it too.
  const T0 = Date.parse('2026-01-01T00:00:00Z')

  function limits(bounds: () => RequestBounds = () => ({})) {
    const { logger, infos } = recorder()
    vi.useFakeTimers({ toFake: ['Date'], now: T0 })
    const { client } = new GithubSession({
      token: TOKEN,
      logger,
      bounds
    })
    return { infos, send: client }
  }

  /** `value`, and whether it has settled yet. */
  function settled<T>(value: Promise<T>): { value: Promise<T>; done: boolean } {
    const state = { value, done: false }
    void value.finally(() => (state.done = true))
    return state
  }

  const post = (send: GithubClient) =>
    send.rest.repos.createCommitStatus({ owner: 'o', repo: 'r', sha: SHA, state: 'pending' }).then(
      response => ({ kind: 'answered', status: response.status }),
      (error: unknown) => githubFailure(error)
    )

  it('retry-after 0: sent again at once, and no wait is said', async () => {
    const { infos, send } = limits()
    nock(API)
      .post(STATUSES)
      .reply(429, { message: SECONDARY }, { 'retry-after': '0' })
      .post(STATUSES)
      .reply(201, { id: 1 })
    expect(await post(send)).toEqual({ kind: 'answered', status: 201 })
    expect(infos()).toEqual([])
  })

  it.each([
    ['the longest it waits (120 s): waited', '120', 'stopped'],
    ['a second longer: not waited', '121', 'rate-limited']
  ])('retry-after %s', async (_, seconds, kind) => {
    const controller = new AbortController()
    const { infos, send } = limits(() => ({ signal: controller.signal }))
    nock(API).post(STATUSES).reply(429, { message: SECONDARY }, { 'retry-after': seconds })
    const result = settled(post(send))
    // A wait is said before it starts: the step stops it there.
    while (infos().length === 0 && !result.done) await new Promise(setImmediate)
    controller.abort()
    expect((await result.value).kind).toBe(kind)
  })

  it.each([
    ['a limit that ends at the deadline: waited', 5000, 'stopped'],
    ['a limit that ends a millisecond after it: not waited', 4999, 'rate-limited']
  ])('%s', async (_, deadlineIn, kind) => {
    const controller = new AbortController()
    const { infos, send } = limits(() => ({ signal: controller.signal, deadline: T0 + deadlineIn }))
    nock(API).post(STATUSES).reply(429, { message: SECONDARY }, { 'retry-after': '5' })
    const result = settled(post(send))
    while (infos().length === 0 && !result.done) await new Promise(setImmediate)
    controller.abort()
    const failed = await result.value
    expect(failed.kind).toBe(kind)
    if (kind === 'rate-limited')
      expect((failed as { message: string }).message).toMatch(/past the step's deadline$/)
  })

  it('a secondary limit naming no time: 1 min, then 2 min while it lasts', async () => {
    const { send } = limits(() => ({ deadline: Date.now() + 30_000 }))
    nock(API).post(STATUSES).times(2).reply(403, { message: SECONDARY })
    const first = await post(send)
    expect(first).toMatchObject({ kind: 'rate-limited' })
    expect((first as { message: string }).message).toMatch(
      / for 1 min more, past the step's deadline$/
    )
    // Once that minute has passed, GitHub holds it back again: twice as long.
    vi.setSystemTime(Date.now() + 60_000)
    const second = await post(send)
    expect((second as { message: string }).message).toMatch(
      / for 2 min more, past the step's deadline$/
    )
  })
})
