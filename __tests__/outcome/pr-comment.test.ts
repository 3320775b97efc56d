import nock from 'nock'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { githubClient, redactor } from '../../src/outcome/github-client.js'
import { lastPage, PullRequestComment } from '../../src/outcome/pr-comment.js'
import type { Logger } from '../../src/util/logger.js'

const API = 'https://api.github.com'
const TOKEN = 'ghs_commentToken0123456789'
const MARKER = '<!-- jenkins-build-action report 0123456789abcdef -->'
const COMMENTS = '/repos/o/r/issues/7/comments'

beforeAll(() => nock.disableNetConnect())
afterAll(() => nock.enableNetConnect())
afterEach(() => nock.cleanAll())

function setup() {
  const warnings: string[] = []
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warning: message => void warnings.push(message)
  }
  const comment = new PullRequestComment({
    client: githubClient({ token: TOKEN, logger, fetch }),
    owner: 'o',
    repo: 'r',
    number: 7,
    marker: MARKER,
    logger,
    redact: redactor(TOKEN)
  })
  return { comment, warnings }
}

function page(n: number, ids: number[], bodies: Record<number, string> = {}) {
  return ids.map(id => ({ id, body: bodies[id] ?? `comment ${id} of page ${n}` }))
}

function link(last: number): string {
  return [
    `<${API}${COMMENTS}?per_page=100&page=2>; rel="next"`,
    `<${API}${COMMENTS}?per_page=100&page=${last}>; rel="last"`
  ].join(', ')
}

describe('PullRequestComment', () => {
  it('creates the comment when none has the marker, then updates that one', async () => {
    const { comment, warnings } = setup()
    const scope = nock(API)
      .get(COMMENTS)
      .query({ per_page: 100, page: 1 })
      .reply(200, page(1, [1, 2], { 2: `not ours\n${MARKER}` }))
      .post(COMMENTS, { body: `${MARKER}\nqueued` })
      .reply(201, { id: 50 })
      .patch('/repos/o/r/issues/comments/50', { body: `${MARKER}\ndone` })
      .reply(200, { id: 50 })
    await comment.write(`${MARKER}\nqueued`)
    await comment.write(`${MARKER}\ndone`)
    expect(scope.isDone()).toBe(true)
    expect(warnings).toEqual([])
  })

  it('searches from the last page the Link header names backwards, and updates the newest match', async () => {
    const { comment } = setup()
    const read: number[] = []
    const scope = nock(API)
      .get(COMMENTS)
      .query(q => {
        read.push(Number(q.page))
        return true
      })
      .times(3)
      .reply(function (uri) {
        const n = Number(new URL(uri, API).searchParams.get('page'))
        const ids = Array.from({ length: n === 5 ? 30 : 100 }, (_, i) => n * 1000 + i)
        const bodies: Record<number, string> =
          n === 4 ? { 4010: `${MARKER}\nold`, 4020: `${MARKER}\nnewer` } : {}
        return [200, page(n, ids, bodies), { link: link(5) }]
      })
      .patch('/repos/o/r/issues/comments/4020')
      .reply(200, { id: 4020 })
    await comment.write(`${MARKER}\nnow`)
    expect(scope.isDone()).toBe(true)
    expect(read).toEqual([1, 5, 4])
  })

  it('reads at most the newest 1,000 comments, then writes a new one', async () => {
    const { comment } = setup()
    const read: number[] = []
    nock(API)
      .get(COMMENTS)
      .query(q => {
        read.push(Number(q.page))
        return true
      })
      .times(11)
      .reply(function (uri) {
        const n = Number(new URL(uri, API).searchParams.get('page'))
        // Ours is on page 3: older than the newest 1,000.
        const bodies: Record<number, string> = n === 3 ? { 3000: MARKER } : {}
        return [
          200,
          page(
            n,
            Array.from({ length: 100 }, (_, i) => n * 1000 + i),
            bodies
          ),
          { link: link(20) }
        ]
      })
    const created = nock(API).post(COMMENTS).reply(201, { id: 9 })
    await comment.write(`${MARKER}\nnow`)
    expect(created.isDone()).toBe(true)
    expect(read).toEqual([1, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11])
  })

  it('a 403 warns once, naming pull-requests: write and forks, and sends nothing more', async () => {
    const { comment, warnings } = setup()
    const scope = nock(API)
      .get(COMMENTS)
      .query(true)
      .reply(200, [])
      .post(COMMENTS)
      .reply(403, { message: `Resource not accessible by integration ${TOKEN}` })
    await comment.write(`${MARKER}\nqueued`)
    await comment.write(`${MARKER}\ndone`)
    expect(scope.isDone()).toBe(true)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain('`pull-requests: write`')
    expect(warnings[0]).toContain('fork')
    expect(warnings[0]).toContain('HTTP 403')
    expect(warnings[0]).not.toContain(TOKEN)
  })

  it('another failure warns and the next write tries again', async () => {
    const { comment, warnings } = setup()
    nock(API)
      .get(COMMENTS)
      .query(true)
      .reply(502, { message: 'Bad gateway' })
      .get(COMMENTS)
      .query(true)
      .reply(200, [])
      .post(COMMENTS)
      .reply(201, { id: 3 })
    await comment.write(`${MARKER}\nqueued`)
    await comment.write(`${MARKER}\ndone`)
    expect(nock.pendingMocks()).toEqual([])
    expect(warnings).toEqual([
      expect.stringMatching(/^Could not write the comment on pull request #7/)
    ])
  })

  it('sends the body through the redaction it is given (the step passes its own)', async () => {
    const { comment } = setup()
    const scope = nock(API)
      .get(COMMENTS)
      .query(true)
      .reply(200, [])
      .post(COMMENTS, { body: `${MARKER}\nfailed test \`echo *** x\`` })
      .reply(201, { id: 9 })
    await comment.write(`${MARKER}\nfailed test \`echo ${TOKEN} x\``)
    expect(scope.isDone()).toBe(true)
  })
})

describe('lastPage', () => {
  it.each([
    [link(5), 5],
    [`<${API}/x?page=3>; rel="prev last"`, 3],
    [`<${API}/x?page=2>; rel="next"`, undefined],
    ['', undefined],
    [undefined, undefined],
    ['<not a url>; rel="last"', undefined]
  ])('%j → %j', (header, expected) => {
    expect(lastPage(header)).toBe(expected)
  })
})
