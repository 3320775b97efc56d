import nock from 'nock'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { statusReporter } from './status-reporter.js'
import type { Logger } from '../../src/util/logger.js'
import { Redaction } from '../../src/util/redaction.js'
import { useGithubFetch } from '../fixtures/github-fetch.js'

const TOKEN = 'ghs_supersecrettoken123'
const API = 'https://api.github.com'

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

const pushContext = { sha: 'e0'.repeat(20) }

/** Records every POST body for /repos/o/r/statuses/<sha>. */
function expectStatuses(sha: string, times: number, reply = 201) {
  const bodies: unknown[] = []
  const headers: Record<string, string | string[]>[] = []
  const scope = nock(API)
    .post(`/repos/o/r/statuses/${sha}`, body => {
      bodies.push(body)
      return true
    })
    .times(times)
    .reply(function () {
      headers.push(this.req.headers)
      return reply === 201
        ? [201, { id: 1, state: 'pending' }]
        : [reply, { message: 'Resource not accessible by integration' }]
    })
  return { scope, bodies, headers }
}

beforeEach(() => useGithubFetch())
beforeAll(() => nock.disableNetConnect())
afterAll(() => nock.enableNetConnect())
afterEach(() => nock.cleanAll())

describe('CommitStatusReporter', () => {
  it("sends the description without the step's secrets, redacted before it is cut to 140 characters", async () => {
    const { logger } = recorder()
    const { scope, bodies } = expectStatuses(pushContext.sha, 1)
    const secrets = new Redaction()
    secrets.add('jt-0123456789abcdef')
    const reporter = statusReporter(
      {
        token: TOKEN,
        context: 'jenkins/deploy',
        logger,
        redact: text => secrets.redact(text)
      },
      pushContext.sha
    )
    // The job token at characters 130-148: cut first, 9 of its characters would stay.
    await reporter.finish('error', `${'x'.repeat(130)}jt-0123456789abcdef and more`)
    expect(scope.isDone()).toBe(true)
    const description = (bodies[0] as { description: string }).description
    expect(description).toBe(`${'x'.repeat(130)}*** and m…`)
  })

  it('posts pending then success to the pushed commit, with context, target URL and description', async () => {
    const { logger, warnings } = recorder()
    const { scope, bodies, headers } = expectStatuses(pushContext.sha, 2)
    const reporter = statusReporter(
      { token: TOKEN, context: 'jenkins/team/deploy', logger },
      pushContext.sha
    )
    await reporter.pending('Queued in Jenkins', 'http://127.0.0.1:8080/queue/item/3/')
    await reporter.finish('SUCCESS', 'Jenkins #12: SUCCESS', {
      url: 'http://127.0.0.1:8080/job/team/job/deploy/12/'
    })
    expect(scope.isDone()).toBe(true)
    expect(bodies).toEqual([
      {
        state: 'pending',
        context: 'jenkins/team/deploy',
        description: 'Queued in Jenkins',
        target_url: 'http://127.0.0.1:8080/queue/item/3/'
      },
      {
        state: 'success',
        context: 'jenkins/team/deploy',
        description: 'Jenkins #12: SUCCESS',
        target_url: 'http://127.0.0.1:8080/job/team/job/deploy/12/'
      }
    ])
    expect(headers[0]?.authorization).toBe(`token ${TOKEN}`)
    expect(warnings()).toEqual([])
  })

  it.each([
    ['FAILURE', undefined, 'failure'],
    ['UNSTABLE', undefined, 'failure'],
    ['ABORTED', undefined, 'failure'],
    ['NOT_BUILT', undefined, 'failure'],
    ['error', undefined, 'error'],
    ['UNSTABLE', true, 'success'],
    ['SUCCESS', false, 'failure'],
    ['error', true, 'error']
  ] as const)('finish(%s, accepted %s) posts %s', async (result, accepted, state) => {
    const { logger } = recorder()
    const { scope, bodies } = expectStatuses(pushContext.sha, 1)
    const reporter = statusReporter({ token: TOKEN, context: 'jenkins/x', logger }, pushContext.sha)
    await reporter.finish(result, `Jenkins #1: ${result}`, { accepted })
    expect(scope.isDone()).toBe(true)
    expect(bodies).toEqual([{ state, context: 'jenkins/x', description: `Jenkins #1: ${result}` }])
  })

  it('cuts the description to 140 characters and drops a non-http target URL', async () => {
    const { logger } = recorder()
    const { bodies } = expectStatuses(pushContext.sha, 1)
    const reporter = statusReporter({ token: TOKEN, context: 'jenkins/x', logger }, pushContext.sha)
    await reporter.pending('é'.repeat(100) + '😀'.repeat(100), 'javascript:alert(1)')
    const body = bodies[0] as { description: string; target_url?: string }
    expect(Array.from(body.description)).toHaveLength(140)
    expect(body.description.endsWith('😀…')).toBe(true)
    expect(body).not.toHaveProperty('target_url')
  })

  it('warns once, naming statuses: write, on 403, never throws, and stops trying', async () => {
    const { logger, warnings, lines } = recorder()
    const { scope } = expectStatuses(pushContext.sha, 1, 403)
    const reporter = statusReporter({ token: TOKEN, context: 'jenkins/x', logger }, pushContext.sha)
    await expect(reporter.pending('Queued')).resolves.toBeUndefined()
    await expect(reporter.finish('FAILURE', 'Jenkins #1: FAILURE')).resolves.toBeUndefined()
    expect(scope.isDone()).toBe(true)
    expect(warnings()).toHaveLength(1)
    expect(warnings()[0]).toContain('`statuses: write`')
    expect(warnings()[0]).toContain('HTTP 403')
    expect(warnings()[0]).toContain('Resource not accessible by integration')
    expect(JSON.stringify(lines)).not.toContain(TOKEN)
  })

  it('reporters sharing a gate (one per build with jobs) stop together after one 403, with one warning', async () => {
    const { logger, warnings } = recorder()
    const { scope } = expectStatuses(pushContext.sha, 1, 403)
    const gate = { closed: false }
    const make = (context: string) =>
      statusReporter({ token: TOKEN, context, logger, gate }, pushContext.sha)
    const [a, b] = [make('jenkins/a'), make('jenkins/b')]
    await a.pending('Queued')
    await b.pending('Queued')
    await b.finish('SUCCESS', 'ok')
    expect(scope.isDone()).toBe(true)
    expect(gate.closed).toBe(true)
    expect(warnings()).toHaveLength(1)
  })

  it('warns on 404 (no access to the repository) the same way', async () => {
    const { logger, warnings } = recorder()
    expectStatuses(pushContext.sha, 1, 404)
    const reporter = statusReporter({ token: TOKEN, context: 'jenkins/x', logger }, pushContext.sha)
    await reporter.pending('Queued')
    expect(warnings()[0]).toMatch(/HTTP 404.*statuses: write/)
  })

  it('only warns on other errors, and keeps trying', async () => {
    const { logger, warnings } = recorder()
    const scope = nock(API)
      .post(`/repos/o/r/statuses/${pushContext.sha}`)
      .reply(422, { message: 'Validation Failed' })
      .post(`/repos/o/r/statuses/${pushContext.sha}`)
      .replyWithError('connection reset')
    const reporter = statusReporter({ token: TOKEN, context: 'jenkins/x', logger }, pushContext.sha)
    await expect(reporter.pending('Queued')).resolves.toBeUndefined()
    await expect(reporter.finish('SUCCESS', 'ok')).resolves.toBeUndefined()
    expect(scope.isDone()).toBe(true)
    expect(warnings()).toHaveLength(2)
    expect(warnings()[0]).toMatch(
      /Could not set commit status 'jenkins\/x' \(pending\): .*Validation Failed/
    )
    expect(warnings()[1]).toMatch(/\(success\)/)
    expect(warnings().join('\n')).not.toContain(TOKEN)
  })

  it('never logs the token, even when an error message carries it', async () => {
    const { logger, lines } = recorder()
    nock(API)
      .post(`/repos/o/r/statuses/${pushContext.sha}`)
      .reply(500, { message: `bad credentials token ${TOKEN}` })
    const reporter = statusReporter({ token: TOKEN, context: 'jenkins/x', logger }, pushContext.sha)
    await reporter.pending('Queued')
    expect(lines.some(l => l.level === 'warning' && l.message.includes('***'))).toBe(true)
    expect(JSON.stringify(lines)).not.toContain(TOKEN)
  })
})
