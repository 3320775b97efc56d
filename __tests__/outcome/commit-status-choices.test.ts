import nock from 'nock'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { statusReporter } from './status-reporter.js'

type Reporter = ReturnType<typeof statusReporter>
import type { Logger } from '../../src/util/logger.js'
import { useGithubFetch } from '../fixtures/github-fetch.js'

/**
 * The reporter's decisions where answers compete: which target URLs are
 * kept, which commit is the one under test, when a final state was set (the
 * several-jobs path reads `finished` so that the end of a stopped run does
 * not overwrite a build's final status with `error`), and what one 403
 * does to reporters posting at the same moment.
 */

const TOKEN = 'ghs_choicesfixturetoken'
const API = 'https://api.github.com'
/** The pushed commit (GITHUB_SHA). */
const SHA = 'b0'.repeat(20)

function recorder() {
  const lines: { level: string; message: string }[] = []
  const logger: Logger = {
    debug: message => void lines.push({ level: 'debug', message }),
    info: message => void lines.push({ level: 'info', message }),
    warning: message => void lines.push({ level: 'warning', message })
  }
  return {
    logger,
    lines,
    warnings: () => lines.filter(l => l.level === 'warning').map(l => l.message)
  }
}

/** Records the bodies POSTed for `sha`, answering `reply`. */
function statuses(sha: string, times: number, reply = 201) {
  const bodies: unknown[] = []
  const scope = nock(API)
    .post(`/repos/o/r/statuses/${sha}`, body => (bodies.push(body), true))
    .times(times)
    .reply(reply, reply === 201 ? { id: 1 } : { message: 'Resource not accessible by integration' })
  return { scope, bodies }
}

beforeEach(() => useGithubFetch())
beforeAll(() => nock.disableNetConnect())
afterAll(() => nock.enableNetConnect())
afterEach(() => nock.cleanAll())

describe('target URLs', () => {
  it.each<[string | undefined, string | undefined]>([
    ['https://ci.example.com/job/deploy/12/', 'https://ci.example.com/job/deploy/12/'],
    ['http://127.0.0.1:8080/queue/item/3/', 'http://127.0.0.1:8080/queue/item/3/'],
    ['HTTPS://CI.example.com/job/x/', 'HTTPS://CI.example.com/job/x/'],
    ['ftp://ci.example.com/job/x/', undefined],
    ['file:///etc/passwd', undefined],
    ['not a url', undefined],
    ['', undefined],
    [undefined, undefined]
  ])('%s is sent as %s', async (given, sent) => {
    const { logger } = recorder()
    const { scope, bodies } = statuses(SHA, 1)
    const reporter = statusReporter({ token: TOKEN, context: 'jenkins/x', logger }, SHA)
    await reporter.pending('Queued', given)
    expect(scope.isDone()).toBe(true)
    expect(bodies).toEqual([
      {
        state: 'pending',
        context: 'jenkins/x',
        description: 'Queued',
        ...(sent ? { target_url: sent } : {})
      }
    ])
  })
})

describe('finished: whether a final state was set', () => {
  it('is false until finish, whatever pending did, and true once finish was attempted', async () => {
    const { logger } = recorder()
    statuses(SHA, 2)
    const reporter = statusReporter({ token: TOKEN, context: 'jenkins/x', logger }, SHA)
    expect(reporter.finished).toBe(false)
    await reporter.pending('Queued')
    expect(reporter.finished).toBe(false)
    await reporter.finish('SUCCESS', 'Jenkins #1: SUCCESS')
    expect(reporter.finished).toBe(true)
  })

  it('is true after a finish GitHub refused, so the end of the run does not post error over it', async () => {
    const { logger } = recorder()
    statuses(SHA, 1, 422)
    const reporter = statusReporter({ token: TOKEN, context: 'jenkins/x', logger }, SHA)
    await reporter.finish('FAILURE', 'Jenkins #1: FAILURE')
    expect(reporter.finished).toBe(true)
  })

  it('is true after a finish with statuses closed (nothing sent)', async () => {
    const { logger } = recorder()
    const gate = { closed: true }
    const reporter = statusReporter({ token: TOKEN, context: 'jenkins/x', logger, gate }, SHA)
    await reporter.finish('SUCCESS', 'ok')
    expect(reporter.finished).toBe(true)
  })
})

describe('descriptions', () => {
  it.each<[string, string]>([
    ['  Jenkins\n\tbuild   #3 \r\n running  ', 'Jenkins build #3 running'],
    ['x'.repeat(140), 'x'.repeat(140)],
    ['x'.repeat(141), 'x'.repeat(139) + '…']
  ])('%j is sent as %j', async (given, sent) => {
    const { logger } = recorder()
    const { bodies } = statuses(SHA, 1)
    const reporter = statusReporter({ token: TOKEN, context: 'jenkins/x', logger }, SHA)
    await reporter.pending(given)
    expect((bodies[0] as { description: string }).description).toBe(sent)
  })
})

// Until one status of the step has gone through, the first request is a
// probe the others wait for: a token that may not set statuses is refused
// once for the step, not once per build (README: "warns once for the step,
// with `jobs` too").
describe('reporters posting at the same moment', () => {
  const make = (logger: Logger, gate: { closed: boolean }, names: string[]) =>
    names.map(name => statusReporter({ token: TOKEN, context: name, logger, gate }, SHA)) as [
      Reporter,
      Reporter,
      Reporter
    ]

  it('on a 403, send one request, warn once, and none of them posts again', async () => {
    const { logger, warnings } = recorder()
    const { scope, bodies } = statuses(SHA, 1, 403)
    const gate = { closed: false }
    const [a, b] = make(logger, gate, ['jenkins/a', 'jenkins/b'])
    await Promise.all([a.pending('Queued'), b.pending('Queued')])
    expect(scope.isDone()).toBe(true)
    expect(bodies).toHaveLength(1)
    expect(gate.closed).toBe(true)
    expect(warnings()).toHaveLength(1)
    // Any further request would find no interceptor and warn.
    await a.finish('SUCCESS', 'ok')
    await b.finish('SUCCESS', 'ok')
    expect(warnings()).toHaveLength(1)
  })

  it('once the first goes through, all of them post', async () => {
    const { logger, warnings } = recorder()
    const { scope, bodies } = statuses(SHA, 3)
    const gate = { closed: false }
    const [a, b, c] = make(logger, gate, ['jenkins/a', 'jenkins/b', 'jenkins/c'])
    await Promise.all([a.pending('Queued'), b.pending('Queued'), c.pending('Queued')])
    expect(scope.isDone()).toBe(true)
    expect(bodies.map(body => (body as { context: string }).context).sort()).toEqual([
      'jenkins/a',
      'jenkins/b',
      'jenkins/c'
    ])
    expect(warnings()).toEqual([])
  })

  it('once a status went through, none waits for another: one held by GitHub does not hold the next', async () => {
    const { logger, warnings } = recorder()
    statuses(SHA, 1)
    const gate = { closed: false }
    const [a, b] = make(logger, gate, ['jenkins/a', 'jenkins/b'])
    await a.pending('Queued')
    // GitHub holds a's final status until b's arrives: b must not wait for a.
    let arrived!: () => void
    const bArrived = new Promise<void>(resolve => (arrived = resolve))
    const order: string[] = []
    nock(API)
      .post(
        `/repos/o/r/statuses/${SHA}`,
        body => (body as { context: string }).context === 'jenkins/a'
      )
      .reply(async () => {
        await bArrived
        return [201, { id: 2 }]
      })
    nock(API)
      .post(
        `/repos/o/r/statuses/${SHA}`,
        body => (body as { context: string }).context === 'jenkins/b'
      )
      .reply(() => {
        arrived()
        return [201, { id: 3 }]
      })
    await Promise.all([
      a.finish('SUCCESS', 'ok').then(() => order.push('a')),
      b.pending('Queued').then(() => order.push('b'))
    ])
    expect(order.sort()).toEqual(['a', 'b'])
    expect(warnings()).toEqual([])
  })

  it('once a status went through, two 403s at the same moment: both sent, one warning, all stop', async () => {
    const { logger, warnings } = recorder()
    statuses(SHA, 1)
    const gate = { closed: false }
    const [a, b, c] = make(logger, gate, ['jenkins/a', 'jenkins/b', 'jenkins/c'])
    await a.pending('Queued')
    const refused = statuses(SHA, 2, 403)
    await Promise.all([a.finish('SUCCESS', 'ok'), b.pending('Queued')])
    expect(refused.bodies).toHaveLength(2)
    expect(gate.closed).toBe(true)
    expect(warnings()).toHaveLength(1)
    // The gate is closed for every reporter of the step: nothing more is sent.
    await c.pending('Queued')
    await b.finish('SUCCESS', 'ok')
    expect(warnings()).toHaveLength(1)
  })

  it('after a first that failed otherwise (HTTP 500), the others still try', async () => {
    const { logger, warnings } = recorder()
    const failed = nock(API)
      .post(`/repos/o/r/statuses/${SHA}`)
      .reply(500, { message: 'Server Error' })
    const { scope, bodies } = statuses(SHA, 1)
    const gate = { closed: false }
    const [a, b] = make(logger, gate, ['jenkins/a', 'jenkins/b'])
    await Promise.all([a.pending('Queued'), b.pending('Queued')])
    expect(failed.isDone()).toBe(true)
    expect(scope.isDone()).toBe(true)
    expect(bodies).toHaveLength(1)
    expect(gate.closed).toBe(false)
    expect(warnings()).toHaveLength(1)
  })
})

describe('the transport, and the 403 warning', () => {
  it("without the step's session, GitHub's rate limit is still said once, as a rate limit", async () => {
    const { logger, warnings } = recorder()
    const scope = nock(API)
      .post(`/repos/o/r/statuses/${SHA}`)
      .reply(
        403,
        { message: 'API rate limit exceeded' },
        {
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600)
        }
      )
    const reporter = statusReporter({ token: TOKEN, context: 'jenkins/x', logger }, SHA)
    await reporter.pending('Queued')
    await reporter.finish('SUCCESS', 'ok')
    expect(scope.isDone()).toBe(true)
    expect(warnings()).toEqual([
      expect.stringMatching(
        /^GitHub's rate limit held back POST .*: Commit status 'jenkins\/x' \(pending\) is not sent\./
      )
    ])
  })

  it("posts through @actions/github's fetch (the runner's proxy-aware one)", async () => {
    const { logger } = recorder()
    statuses(SHA, 1)
    const seen: string[] = []
    useGithubFetch((input, init) => {
      seen.push(`${init?.method ?? 'GET'} ${String(input)}`)
      return fetch(input, init)
    })
    const reporter = statusReporter({ token: TOKEN, context: 'jenkins/x', logger }, SHA)
    await reporter.pending('Queued')
    expect(seen).toEqual([`POST ${API}/repos/o/r/statuses/${SHA}`])
  })

  it('names the repository and the first 12 characters of the commit in the 403 warning', async () => {
    const { logger, warnings } = recorder()
    statuses(SHA, 1, 403)
    const reporter = statusReporter({ token: TOKEN, context: 'jenkins/x', logger }, SHA)
    await reporter.pending('Queued')
    expect(warnings()).toEqual([
      "Could not set commit status 'jenkins/x' on o/r@b0b0b0b0b0b0 (HTTP 403): the github-token needs the `statuses: write` permission (pull requests from forks only get a read-only token). The build itself is not affected. GitHub said: Resource not accessible by integration"
    ])
  })
})

describe("one reporter's writes, in the order asked (GitHub keeps the last created per context)", () => {
  it('a final asked while a pending is in flight is sent only once GitHub answered the pending', async () => {
    const { logger } = recorder()
    const events: string[] = []
    let answerPending!: () => void
    const pendingHeld = new Promise<void>(resolve => (answerPending = resolve))
    nock(API)
      .post(`/repos/o/r/statuses/${SHA}`, body => {
        events.push(`sent ${(body as { state: string }).state}`)
        return true
      })
      .times(3)
      .reply(async (_uri, body) => {
        if ((body as { description: string }).description.endsWith('running')) {
          await pendingHeld
          events.push('pending answered')
        }
        return [201, { id: 1 }]
      })
    const reporter = statusReporter({ token: TOKEN, context: 'jenkins/x', logger }, SHA)
    // The first status proves the token (the gate): later ones no longer wait for it.
    await reporter.pending('Queued in Jenkins')
    const pending = reporter.pending('Jenkins build #1 running')
    const final = reporter.finish('SUCCESS', 'Jenkins #1: SUCCESS')
    // Time for a final that would not wait to reach GitHub first.
    await new Promise(resolve => setTimeout(resolve, 50))
    answerPending()
    await Promise.all([pending, final])
    expect(events).toEqual(['sent pending', 'sent pending', 'pending answered', 'sent success'])
    expect(reporter.written).toBe('success')
  })
})

describe('stillOurs: a settle run writes a final state only over its own hand-off', () => {
  function settling(stillOurs: boolean) {
    const asked: string[] = []
    const { logger } = recorder()
    const reporter = statusReporter(
      {
        token: TOKEN,
        context: 'jenkins/x',
        logger,
        stillOurs: () => {
          asked.push('asked')
          return Promise.resolve(stillOurs)
        }
      },
      SHA
    )
    return { reporter, asked }
  }

  it('still the latest: asked once, just before the final state, which is written', async () => {
    const { reporter, asked } = settling(true)
    const { scope, bodies } = statuses(SHA, 1)
    await reporter.finish('FAILURE', 'Jenkins #4: FAILURE')
    expect(scope.isDone()).toBe(true)
    expect(asked).toEqual(['asked'])
    expect(bodies).toEqual([
      { state: 'failure', context: 'jenkins/x', description: 'Jenkins #4: FAILURE' }
    ])
    expect(reporter.written).toBe('failure')
  })

  it('no longer the latest (another run handed off again): nothing written, nothing said to be', async () => {
    const { reporter, asked } = settling(false)
    const { scope } = statuses(SHA, 1)
    await reporter.finish('SUCCESS', 'Jenkins #4: SUCCESS')
    expect(asked).toEqual(['asked'])
    expect(scope.isDone()).toBe(false)
    expect(reporter.written).toBeUndefined()
  })

  it('a pending state is written without asking (a step that hands off writes its own)', async () => {
    const { reporter, asked } = settling(false)
    const { scope } = statuses(SHA, 1)
    await reporter.pending('Handed off to Jenkins: queue item 3')
    expect(scope.isDone()).toBe(true)
    expect(asked).toEqual([])
    expect(reporter.written).toBe('pending')
  })
})
