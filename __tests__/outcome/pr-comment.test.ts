import nock from 'nock'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { GithubSession } from '../../src/outcome/github-client.js'
import { TokenIdentity } from '../../src/outcome/github-identity.js'
import { lastPage, PullRequestComment } from '../../src/outcome/pr-comment.js'
import type { Logger } from '../../src/util/logger.js'
import { useGithubFetch } from '../fixtures/github-fetch.js'

const API = 'https://api.github.com'
const TOKEN = 'ghs_commentToken0123456789'
const MARKER = '<!-- jenkins-build-action report 0123456789abcdef -->'
const COMMENTS = '/repos/o/r/issues/7/comments'
/** Who an installation token (GITHUB_TOKEN) writes as. */
const BOT = 'github-actions[bot]'
const STRANGER = 'mallory'

beforeEach(() => useGithubFetch())
beforeAll(() => nock.disableNetConnect())
afterAll(() => nock.enableNetConnect())
afterEach(() => nock.cleanAll())

/** A comment as GitHub lists it. */
interface Listed {
  id: number
  body: string
  user: { login: string } | null
}

function setup() {
  const warnings: string[] = []
  const debug: string[] = []
  const logger: Logger = {
    debug: message => void debug.push(message),
    info: () => undefined,
    warning: message => void warnings.push(message)
  }
  const session = new GithubSession({ token: TOKEN, logger })
  const comment = new PullRequestComment({
    session,
    identity: new TokenIdentity({ session }),
    owner: 'o',
    repo: 'r',
    number: 7,
    marker: MARKER,
    redact: session.redact
  })
  return { comment, warnings, debug }
}

/** GitHub refusing GET /user to an installation token, as it does GITHUB_TOKEN. */
function installationToken(scope: nock.Scope): nock.Scope {
  return scope.get('/user').reply(403, {
    message: 'Resource not accessible by integration',
    documentation_url: 'https://docs.github.com/rest/users/users#get-the-authenticated-user'
  })
}

function byAuthor(login: string, ids: number[], bodies: Record<number, string> = {}): Listed[] {
  return ids.map(id => ({ id, body: bodies[id] ?? `comment ${id}`, user: { login } }))
}

function link(last: number): string {
  return [
    `<${API}${COMMENTS}?per_page=100&page=2>; rel="next"`,
    `<${API}${COMMENTS}?per_page=100&page=${last}>; rel="last"`
  ].join(', ')
}

/** The requests nock answered, as `METHOD path` (query left out), in order. */
function sentBy(scope: nock.Scope): string[] {
  const sent: string[] = []
  scope.on('request', (req: { method: string; path: string }) =>
    sent.push(`${req.method} ${req.path.replace(/\?.*$/, '')}`)
  )
  return sent
}

describe('PullRequestComment', () => {
  it('creates the comment when none is its own, then updates that one', async () => {
    const { comment, warnings } = setup()
    const scope = installationToken(nock(API))
      .get(COMMENTS)
      .query({ per_page: 100, page: 1 })
      .reply(200, byAuthor(STRANGER, [1, 2], { 2: `${MARKER}\nnot ours` }))
      .post(COMMENTS, { body: `${MARKER}\nqueued` })
      .reply(201, { id: 50, body: `${MARKER}\nqueued`, user: { login: BOT } })
      .patch('/repos/o/r/issues/comments/50', { body: `${MARKER}\ndone` })
      .reply(200, { id: 50 })
    const sent = sentBy(scope)
    await comment.write(`${MARKER}\nqueued`)
    await comment.write(`${MARKER}\ndone`)
    expect(scope.isDone()).toBe(true)
    expect(sent).toEqual([
      `GET ${COMMENTS}`,
      'GET /user',
      `POST ${COMMENTS}`,
      'PATCH /repos/o/r/issues/comments/50'
    ])
    expect(warnings).toEqual([])
  })

  it('a forged marker by another user, newer than its own: passed over, its own comment updated', async () => {
    const { comment, warnings } = setup()
    const scope = installationToken(nock(API))
      .get(COMMENTS)
      .query(true)
      .reply(200, [
        ...byAuthor(BOT, [10], { 10: `${MARKER}\nours` }),
        ...byAuthor(STRANGER, [11], { 11: `${MARKER}\nLGTM` })
      ])
      .patch('/repos/o/r/issues/comments/10', { body: `${MARKER}\nnow` })
      .reply(200, { id: 10 })
    const sent = sentBy(scope)
    await comment.write(`${MARKER}\nnow`)
    expect(scope.isDone()).toBe(true)
    expect(sent).toEqual([`GET ${COMMENTS}`, 'GET /user', 'PATCH /repos/o/r/issues/comments/10'])
    expect(warnings).toEqual([])
  })

  it('a forged marker by another user, older than its own: its own comment updated', async () => {
    const { comment } = setup()
    const scope = installationToken(nock(API))
      .get(COMMENTS)
      .query(true)
      .reply(200, [
        ...byAuthor(STRANGER, [11], { 11: `${MARKER}\nLGTM` }),
        ...byAuthor(BOT, [12], { 12: `${MARKER}\nours` })
      ])
      .patch('/repos/o/r/issues/comments/12')
      .reply(200, { id: 12 })
    const sent = sentBy(scope)
    await comment.write(`${MARKER}\nnow`)
    expect(sent).toEqual([`GET ${COMMENTS}`, 'GET /user', 'PATCH /repos/o/r/issues/comments/12'])
  })

  it("only others' comments carry the marker (one in a code block, one quoting it first): a new comment, theirs untouched", async () => {
    const { comment, warnings } = setup()
    const scope = installationToken(nock(API))
      .get(COMMENTS)
      .query(true)
      .reply(200, [
        ...byAuthor(STRANGER, [20], { 20: `Look:\n\`\`\`\n${MARKER}\n\`\`\`` }),
        ...byAuthor(STRANGER, [21], { 21: `${MARKER}\n\`\`\`\n✅ SUCCESS\n\`\`\`` }),
        { id: 22, body: `${MARKER}\nghost`, user: null }
      ])
      .post(COMMENTS)
      .reply(201, { id: 23, user: { login: BOT } })
    const sent = sentBy(scope)
    await comment.write(`${MARKER}\nnow`)
    expect(sent).toEqual([`GET ${COMMENTS}`, 'GET /user', `POST ${COMMENTS}`])
    expect(warnings).toEqual([])
  })

  it('a personal token: its login from GET /user owns the comments; github-actions[bot] does not', async () => {
    const { comment } = setup()
    const scope = nock(API)
      .get('/user')
      .reply(200, { login: 'alice', id: 1, type: 'User' })
      .get(COMMENTS)
      .query(true)
      .reply(200, [
        ...byAuthor('Alice', [30], { 30: `${MARKER}\nalice's` }),
        ...byAuthor(BOT, [31], { 31: `${MARKER}\nthe bot's` })
      ])
      .patch('/repos/o/r/issues/comments/30')
      .reply(200, { id: 30 })
    const sent = sentBy(scope)
    await comment.write(`${MARKER}\nnow`)
    // Logins ignore case on GitHub.
    expect(sent).toEqual([`GET ${COMMENTS}`, 'GET /user', 'PATCH /repos/o/r/issues/comments/30'])
  })

  it('who the token is cannot be told: nothing is edited, a new comment is written and then kept up to date', async () => {
    const { comment, warnings } = setup()
    const scope = nock(API)
      .get('/user')
      .reply(502, { message: 'Bad gateway' })
      .get(COMMENTS)
      .query(true)
      .reply(200, byAuthor(BOT, [40], { 40: `${MARKER}\nperhaps ours` }))
      .post(COMMENTS)
      .reply(201, { id: 41, user: { login: BOT } })
      .patch('/repos/o/r/issues/comments/41')
      .reply(200, { id: 41 })
    const sent = sentBy(scope)
    await comment.write(`${MARKER}\nqueued`)
    await comment.write(`${MARKER}\ndone`)
    expect(sent).toEqual([
      `GET ${COMMENTS}`,
      'GET /user',
      `POST ${COMMENTS}`,
      'PATCH /repos/o/r/issues/comments/41'
    ])
    expect(warnings).toEqual([])
  })

  it('its own comment deleted since it was found: written anew', async () => {
    const { comment, warnings, debug } = setup()
    const scope = installationToken(nock(API))
      .get(COMMENTS)
      .query(true)
      .reply(200, byAuthor(BOT, [50], { 50: `${MARKER}\nold` }))
      .patch('/repos/o/r/issues/comments/50')
      .reply(404, { message: 'Not Found' })
      .post(COMMENTS)
      .reply(201, { id: 51, user: { login: BOT } })
    const sent = sentBy(scope)
    await comment.write(`${MARKER}\nnow`)
    expect(sent).toEqual([
      `GET ${COMMENTS}`,
      'GET /user',
      'PATCH /repos/o/r/issues/comments/50',
      `POST ${COMMENTS}`
    ])
    expect(warnings).toEqual([])
    expect(debug).toContain('Comment 50 on pull request #7 is gone: writing a new one.')
  })

  it('GitHub refuses to edit its comment: a new one, and no blame on pull-requests: write', async () => {
    const { comment, warnings, debug } = setup()
    const scope = installationToken(nock(API))
      .get(COMMENTS)
      .query(true)
      .reply(200, byAuthor(BOT, [60], { 60: `${MARKER}\nold` }))
      .patch('/repos/o/r/issues/comments/60')
      .reply(403, { message: 'Resource not accessible by integration' })
      .post(COMMENTS)
      .reply(201, { id: 61, user: { login: 'other-app[bot]' } })
      .patch('/repos/o/r/issues/comments/61')
      .reply(200, { id: 61 })
    const sent = sentBy(scope)
    await comment.write(`${MARKER}\nqueued`)
    await comment.write(`${MARKER}\ndone`)
    expect(sent).toEqual([
      `GET ${COMMENTS}`,
      'GET /user',
      'PATCH /repos/o/r/issues/comments/60',
      `POST ${COMMENTS}`,
      'PATCH /repos/o/r/issues/comments/61'
    ])
    expect(warnings).toEqual([])
    expect(debug).toContainEqual(
      expect.stringMatching(
        /^GitHub refused to update comment 60 on pull request #7 \(HTTP 403: .*Resource not accessible by integration.*\): writing a new one\.$/
      )
    )
  })

  it('searches from the last page the Link header names backwards, and updates the newest of its own', async () => {
    const { comment } = setup()
    const read: number[] = []
    const scope = installationToken(nock(API))
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
        return [200, byAuthor(BOT, ids, bodies), { link: link(5) }]
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
        const ids = Array.from({ length: 100 }, (_, i) => n * 1000 + i)
        return [200, byAuthor(BOT, ids, bodies), { link: link(20) }]
      })
    const created = nock(API).post(COMMENTS).reply(201, { id: 9 })
    await comment.write(`${MARKER}\nnow`)
    expect(created.isDone()).toBe(true)
    expect(read).toEqual([1, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11])
  })

  it('a 403 on creating warns once, naming pull-requests: write and forks, and sends nothing more', async () => {
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

  it('a rate-limited comment is not blamed on a permission', async () => {
    const { comment, warnings } = setup()
    nock(API)
      .get(COMMENTS)
      .query(true)
      .reply(200, [])
      .post(COMMENTS)
      .reply(
        403,
        { message: 'You have exceeded a secondary rate limit.' },
        { 'retry-after': '3600' }
      )
    await comment.write(`${MARKER}\nqueued`)
    // Not sent again while GitHub holds it back for longer than the action waits.
    await comment.write(`${MARKER}\ndone`)
    expect(nock.pendingMocks()).toEqual([])
    expect(warnings).toEqual([expect.stringMatching(/rate limit/)])
    expect(warnings[0]).not.toContain('pull-requests: write')
    expect(warnings[0]).toContain('not a missing permission')
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

describe('what a write does after each answer', () => {
  it('an edit that fails otherwise (HTTP 500): a warning, no new comment, and the next write edits the same one', async () => {
    const { comment, warnings } = setup()
    const scope = installationToken(nock(API))
      .get(COMMENTS)
      .query(true)
      .reply(200, byAuthor(BOT, [70], { 70: `${MARKER}\nold` }))
      .patch('/repos/o/r/issues/comments/70')
      .reply(500, { message: 'Server Error' })
      .patch('/repos/o/r/issues/comments/70')
      .reply(200, { id: 70 })
    const sent = sentBy(scope)
    await comment.write(`${MARKER}\nqueued`)
    await comment.write(`${MARKER}\ndone`)
    expect(sent).toEqual([
      `GET ${COMMENTS}`,
      'GET /user',
      'PATCH /repos/o/r/issues/comments/70',
      'PATCH /repos/o/r/issues/comments/70'
    ])
    expect(warnings).toEqual([
      expect.stringMatching(/^Could not write the comment on pull request #7: .*Server Error/)
    ])
  })

  it('a new comment GitHub names no id for: no warning, and the next write searches again', async () => {
    const { comment, warnings, debug } = setup()
    const scope = nock(API)
      .get(COMMENTS)
      .query(true)
      .reply(200, [])
      .post(COMMENTS)
      .reply(201, {})
      .get(COMMENTS)
      .query(true)
      .reply(200, [])
      .post(COMMENTS)
      .reply(201, { id: 81, user: { login: BOT } })
    const sent = sentBy(scope)
    await comment.write(`${MARKER}\nqueued`)
    await comment.write(`${MARKER}\ndone`)
    expect(sent).toEqual([
      `GET ${COMMENTS}`,
      `POST ${COMMENTS}`,
      `GET ${COMMENTS}`,
      `POST ${COMMENTS}`
    ])
    expect(warnings).toEqual([])
    expect(debug).toContain('Created a comment on pull request #7; GitHub named no id.')
  })

  it('a 404 on listing (no access to the repository): one warning naming the permission, nothing more sent', async () => {
    const { comment, warnings } = setup()
    const scope = nock(API).get(COMMENTS).query(true).reply(404, { message: 'Not Found' })
    await comment.write(`${MARKER}\nqueued`)
    await comment.write(`${MARKER}\ndone`)
    expect(scope.isDone()).toBe(true)
    expect(warnings).toEqual([
      expect.stringMatching(
        /^Could not comment on pull request #7 of o\/r \(HTTP 404\): the github-token needs the `pull-requests: write` permission/
      )
    ])
  })
})

describe('what a listed comment must be to count', () => {
  it('entries GitHub would never send are passed over, none edited: a new comment', async () => {
    const { comment, warnings } = setup()
    const marked = (id: unknown, extra: Record<string, unknown> = {}) => ({
      id,
      body: `${MARKER}\nhers?`,
      user: { login: BOT },
      ...extra
    })
    const scope = installationToken(nock(API))
      .get(COMMENTS)
      .query(true)
      .reply(200, [
        marked(90),
        null,
        'comment',
        7,
        marked('91'),
        marked(92.5),
        marked(2 ** 53),
        marked(0),
        marked(-93),
        marked(94, { body: null }),
        marked(95, { user: { login: 7 } }),
        marked(96, { user: { login: '' } })
      ])
      .patch('/repos/o/r/issues/comments/90')
      .reply(200, { id: 90 })
    const sent = sentBy(scope)
    await comment.write(`${MARKER}\nnow`)
    expect(sent).toEqual([`GET ${COMMENTS}`, 'GET /user', 'PATCH /repos/o/r/issues/comments/90'])
    expect(warnings).toEqual([])
  })

  it('a page that is no list holds no comment', async () => {
    const { comment, warnings } = setup()
    const scope = nock(API)
      .get(COMMENTS)
      .query(true)
      .reply(200, { id: 1, body: MARKER, user: { login: BOT } })
      .post(COMMENTS)
      .reply(201, { id: 2, user: { login: BOT } })
    const sent = sentBy(scope)
    await comment.write(`${MARKER}\nnow`)
    expect(sent).toEqual([`GET ${COMMENTS}`, `POST ${COMMENTS}`])
    expect(warnings).toEqual([])
  })

  it('says how many comments with the marker it passed over, and whose they were not', async () => {
    const known = setup()
    installationToken(nock(API))
      .get(COMMENTS)
      .query(true)
      .reply(200, [
        ...byAuthor(STRANGER, [1, 2], { 1: `${MARKER}\na`, 2: `${MARKER}\nb` }),
        ...byAuthor(STRANGER, [3])
      ])
      .post(COMMENTS)
      .reply(201, { id: 4, user: { login: BOT } })
    await known.comment.write(`${MARKER}\nnow`)
    expect(known.debug).toContain(
      'Passed over 2 comment(s) on #7 with the marker that github-actions[bot] did not write.'
    )

    const unknown = setup()
    nock(API)
      .get('/user')
      .reply(401, { message: 'Bad credentials' })
      .get(COMMENTS)
      .query(true)
      .reply(200, byAuthor(STRANGER, [1], { 1: `${MARKER}\na` }))
      .post(COMMENTS)
      .reply(201, { id: 4, user: { login: BOT } })
    await unknown.comment.write(`${MARKER}\nnow`)
    expect(unknown.debug).toContain(
      'Passed over 1 comment(s) on #7 with the marker that an unknown identity did not write.'
    )

    const none = setup()
    nock(API)
      .get(COMMENTS)
      .query(true)
      .reply(200, byAuthor(STRANGER, [1]))
      .post(COMMENTS)
      .reply(201, { id: 4, user: { login: BOT } })
    await none.comment.write(`${MARKER}\nnow`)
    expect(none.debug.filter(line => line.startsWith('Passed over'))).toEqual([])
  })
})

describe('lastPage', () => {
  it.each([
    [link(5), 5],
    [`<${API}/x?page=3>; rel="prev last"`, 3],
    [`<${API}/x?page=2>; rel="next"`, undefined],
    ['', undefined],
    [undefined, undefined],
    ['<not a url>; rel="last"', undefined],
    // The forms RFC 8288 allows: no space, an unquoted relation, several relations.
    [`<${API}/x?page=4>;rel="last"`, 4],
    [`<${API}/x?page=4>; rel=last`, 4],
    [`<${API}/x?page=4>; rel="next  last"`, 4],
    // A link without a relation, junk before the target, a page that is no page number.
    [`<${API}/x?page=4>; title="last"`, undefined],
    [`junk <${API}/x?page=4>; rel="last"`, undefined],
    [`<${API}/x?page=1>; rel="last"`, 1],
    [`<${API}/x?page=0>; rel="last"`, undefined],
    [`<${API}/x?page=2.5>; rel="last"`, undefined],
    [`<${API}/x?page=two>; rel="last"`, undefined],
    [`<${API}/x?page=2>; rel="next", <${API}/x?page=6>; rel="last"`, 6]
  ])('%j → %j', (header, expected) => {
    expect(lastPage(header)).toBe(expected)
  })
})
