/**
 * Issue 32 §6, before anything is sent to Jenkins (settleCommit): a comment
 * command runs only for a commenter with `comment-permission` (read once),
 * and only for the pull request head GitHub shows was pushed before the
 * comment was written; `commit-parameter` gives Jenkins that commit. nock
 * stands in for GitHub; every request the step sends is one it answers.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import nock from 'nock'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { parseSettings, type Settings } from '../../src/inputs/inputs.js'
import { CommentCommandRefused, settleCommit } from '../../src/outcome/commit-gate.js'
import type { Logger } from '../../src/util/logger.js'
import { stubRunnerEnv } from '../fixtures/runner-env.js'
import { useGithubFetch } from '../fixtures/github-fetch.js'

const API = 'https://api.github.com'
const TOKEN = 'ghs_commentCommandToken0123456789'
const GITHUB_SHA = '0'.repeat(40)
/** The pull request's head: the commit the maintainer reviewed. */
const HEAD = 'a1'.repeat(20)
/** A commit pushed over it. */
const LATER = 'b2'.repeat(20)
const WRITTEN = '2026-03-01T12:00:10Z'

let dir: string
beforeAll(() => {
  nock.disableNetConnect()
  dir = mkdtempSync(join(tmpdir(), 'comment-command-'))
})
beforeEach(() => useGithubFetch())
afterAll(() => {
  nock.enableNetConnect()
  rmSync(dir, { recursive: true, force: true })
})
afterEach(() => {
  nock.cleanAll()
  vi.unstubAllEnvs()
})

function settings(inputs: Record<string, string> = {}): Settings {
  const all: Record<string, string> = {
    url: 'http://jenkins.example',
    job: 'pr-checks',
    'github-token': TOKEN,
    'commit-parameter': 'SHA',
    ...inputs
  }
  return parseSettings(name => all[name] ?? '', { workspace: dir, platform: 'linux' })
}

function commentEvent(overrides: { comment?: object; issue?: object } = {}) {
  return {
    action: 'created',
    issue: { number: 8, pull_request: { url: 'x' }, ...overrides.issue },
    comment: {
      body: '/jenkins build',
      user: { login: 'maintainer' },
      created_at: WRITTEN,
      ...overrides.comment
    },
    repository: { id: 99, name: 'r', owner: { login: 'o' } }
  }
}

let files = 0
async function settle(
  given: Settings,
  {
    event = 'issue_comment',
    payload = commentEvent() as object | string,
    signal = undefined as AbortSignal | undefined
  } = {}
) {
  const path = join(dir, `event-${files++}.json`)
  writeFileSync(path, typeof payload === 'string' ? payload : JSON.stringify(payload))
  const lines: string[] = []
  const logger: Logger = {
    debug: () => undefined,
    info: message => void lines.push(message),
    warning: message => void lines.push(`warning: ${message}`)
  }
  stubRunnerEnv({
    GITHUB_REPOSITORY: 'o/r',
    GITHUB_EVENT_NAME: event,
    GITHUB_EVENT_PATH: path,
    GITHUB_SHA
  })
  // As main.ts passes them: the signal decides "cancel, not refusal"; the bounds cut the request.
  const settled = await settleCommit(given, { logger, signal, bounds: () => ({ signal }) })
  return { settled, lines }
}

/** The commenter's role, as GitHub answers it. */
function role(answer: object, user = 'maintainer') {
  return nock(API).get(`/repos/o/r/collaborators/${user}/permission`).once().reply(200, answer)
}
const writer = () =>
  role({ permission: 'write', role_name: 'write', user: { login: 'maintainer' } })

/** The pull request's head, in the fork someone/fork's branch `feature`. */
function pull(sha = HEAD, status = 200) {
  return nock(API)
    .get('/repos/o/r/pulls/8')
    .reply(status, {
      number: 8,
      head: { sha, ref: 'feature', repo: { name: 'fork', owner: { login: 'someone' } } }
    })
}

/** GitHub's newest recorded change of someone/fork's `feature`. */
function lastChange(entries: object[], status = 200) {
  return nock(API)
    .get('/repos/someone/fork/activity')
    .query({ ref: 'refs/heads/feature', direction: 'desc', per_page: '1' })
    .reply(status, status === 200 ? entries : { message: 'Not Found' })
}
const pushed = (at: string, after = HEAD) => ({
  id: 1,
  ref: 'refs/heads/feature',
  before: 'c3'.repeat(20),
  after,
  timestamp: at,
  activity_type: 'push'
})

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e
  )
  expect(error).toBeInstanceOf(CommentCommandRefused)
  const message = (error as Error).message
  expect(message).toMatch(
    /^The comment command is refused: .*\. Nothing was sent to Jenkins: .+\.$/s
  )
  expect(message).not.toContain(TOKEN)
  return message
}

describe('the head when the comment was written', () => {
  it('unchanged since before the comment: built, as commit and as the SHA parameter', async () => {
    const scopes = [writer(), pull(), lastChange([pushed('2026-03-01T12:00:09Z')])]
    const { settled, lines } = await settle(settings())
    expect(settled.commit).toBe(HEAD)
    expect(settled.pullRequest).toBe(8)
    expect(settled.parameters).toEqual({ SHA: HEAD })
    expect(settled.hasParameters).toBe(true)
    for (const scope of scopes) expect(scope.isDone()).toBe(true)
    expect(lines).toEqual([
      'Comment command by maintainer (write on o/r, comment-permission: write).',
      `Pull request #8's head ${HEAD} was pushed at 2026-03-01T12:00:09Z, before the comment (${WRITTEN}): this run builds it.`,
      `Jenkins gets the commit under test, ${HEAD}, as parameter SHA.`
    ])
  })

  it('a push after the comment: refused, saying when each happened', async () => {
    writer()
    pull(LATER)
    lastChange([pushed('2026-03-01T12:00:30Z', LATER)])
    expect(await refusal(settle(settings()))).toBe(
      `The comment command is refused: pull request #8's head ${LATER} was pushed at 2026-03-01T12:00:30Z, not before the comment was written (${WRITTEN}), so it may not be what was reviewed. Nothing was sent to Jenkins: review the pull request as it is now and comment again.`
    )
  })

  it('a push in the same second as the comment: refused (GitHub counts in seconds)', async () => {
    writer()
    pull()
    lastChange([pushed(WRITTEN)])
    expect(await refusal(settle(settings()))).toContain('not before the comment was written')
  })

  it('a push GitHub has not listed yet (the newest listed change is another commit): refused', async () => {
    writer()
    pull(LATER)
    lastChange([pushed('2026-03-01T12:00:01Z', HEAD)])
    expect(await refusal(settle(settings()))).toContain(
      `the newest change GitHub lists of someone/fork's branch feature left it at ${HEAD}, not at pull request #8's head ${LATER}: the branch is moving`
    )
  })

  it('no change listed: refused', async () => {
    writer()
    pull()
    lastChange([])
    expect(await refusal(settle(settings()))).toContain(
      "GitHub lists no change of someone/fork's branch feature"
    )
  })

  it("another branch's change in the answer proves nothing: refused", async () => {
    writer()
    pull()
    lastChange([{ ...pushed('2026-03-01T12:00:01Z'), ref: 'refs/heads/main' }])
    expect(await refusal(settle(settings()))).toContain('[0].ref is not refs/heads/feature')
  })

  it('the changes cannot be read (a fork the token cannot see): refused, with the HTTP status', async () => {
    writer()
    pull()
    lastChange([], 404)
    expect(await refusal(settle(settings()))).toContain(
      "could not read when someone/fork's branch feature last changed (HTTP 404)"
    )
  })

  it('a head repository GitHub no longer has (a deleted fork): refused', async () => {
    writer()
    nock(API)
      .get('/repos/o/r/pulls/8')
      .reply(200, { number: 8, head: { sha: HEAD, ref: 'feature', repo: null } })
    expect(await refusal(settle(settings()))).toContain(
      "the repository of pull request #8's head is gone"
    )
  })
})

describe('the explicit form: the commit input', () => {
  it('not the head: refused, before the changes are read', async () => {
    writer()
    pull()
    const changes = lastChange([pushed('2026-03-01T12:00:01Z')])
    expect(await refusal(settle(settings({ commit: LATER })))).toBe(
      `The comment command is refused: input 'commit' (${LATER}) is not pull request #8's head (${HEAD}). Nothing was sent to Jenkins: review the pull request as it is now and comment again to build its head.`
    )
    expect(changes.isDone()).toBe(false)
  })

  it('the head, pushed before the comment: built', async () => {
    writer()
    pull()
    lastChange([pushed('2026-03-01T12:00:01Z')])
    const { settled } = await settle(settings({ commit: HEAD.toUpperCase() }))
    expect(settled.parameters).toEqual({ SHA: HEAD })
  })
})

describe('a pull request that cannot be read', () => {
  it('HTTP 404: refused', async () => {
    writer()
    nock(API).get('/repos/o/r/pulls/8').reply(404, { message: 'Not Found' })
    expect(await refusal(settle(settings()))).toBe(
      'The comment command is refused: could not read pull request #8 of o/r (HTTP 404): Not Found, so the commit to build is not known. Nothing was sent to Jenkins: comment again once GitHub answers.'
    )
  })

  it('an answer without head.sha: refused, naming it (never GITHUB_SHA)', async () => {
    writer()
    nock(API)
      .get('/repos/o/r/pulls/8')
      .reply(200, { number: 8, head: { ref: 'feature' } })
    expect(await refusal(settle(settings()))).toContain(
      "GitHub's answer for pull request #8 has no head.sha"
    )
  })

  it('github-token empty: refused', async () => {
    expect(await refusal(settle(settings({ 'github-token': '' })))).toContain(
      "'github-token' is empty, so maintainer's permission cannot be read"
    )
  })
})

describe('the commenter', () => {
  it('with read: refused, naming the user and the permission, the permission read once', async () => {
    const permission = role(
      { permission: 'read', role_name: 'read', user: { login: 'reader' } },
      'reader'
    )
    const pullRead = pull()
    const message = await refusal(
      settle(settings(), { payload: commentEvent({ comment: { user: { login: 'reader' } } }) })
    )
    expect(message).toBe(
      "The comment command is refused: reader's role on o/r is read, below comment-permission: write. Nothing was sent to Jenkins: only a user with the write role or higher can start a build by comment."
    )
    expect(permission.isDone()).toBe(true)
    expect(pullRead.isDone()).toBe(false)
  })

  it('not a collaborator at all: refused', async () => {
    role({ permission: 'none', role_name: '', user: { login: 'stranger' } }, 'stranger')
    expect(
      await refusal(
        settle(settings(), { payload: commentEvent({ comment: { user: { login: 'stranger' } } }) })
      )
    ).toContain("stranger's role on o/r is none")
  })

  it.each<[string, object, string, boolean]>([
    [
      'triage, with comment-permission: triage',
      { permission: 'read', role_name: 'triage' },
      'triage',
      true
    ],
    ['triage, with the default write', { permission: 'read', role_name: 'triage' }, 'write', false],
    [
      'maintain, with comment-permission: maintain',
      { permission: 'write', role_name: 'maintain' },
      'maintain',
      true
    ],
    [
      'admin, with comment-permission: admin',
      { permission: 'admin', role_name: 'admin' },
      'admin',
      true
    ],
    [
      'write, with comment-permission: maintain',
      { permission: 'write', role_name: 'write' },
      'maintain',
      false
    ],
    // A custom role: the lower of what user.permissions allows and the legacy permission.
    [
      'a custom role on write, with write',
      {
        permission: 'write',
        role_name: 'deployer',
        user: {
          permissions: { admin: false, maintain: false, push: true, triage: true, pull: true }
        }
      },
      'write',
      true
    ],
    [
      'a custom role on maintain, with maintain (legacy permission says write)',
      {
        permission: 'write',
        role_name: 'release',
        user: {
          permissions: { admin: false, maintain: true, push: true, triage: true, pull: true }
        }
      },
      'maintain',
      false
    ],
    [
      'a custom role whose user.permissions is not an object (a list): it allows nothing',
      { permission: 'write', role_name: 'deployer', user: { permissions: ['push', 'pull'] } },
      'write',
      false
    ],
    [
      'a custom role GitHub only maps to read, with write',
      { permission: 'read', role_name: 'auditor' },
      'write',
      false
    ]
  ])('%s: %s', async (_, answer, want, admitted) => {
    role(answer)
    if (admitted) {
      pull()
      lastChange([pushed('2026-03-01T12:00:01Z')])
      const { settled } = await settle(settings({ 'comment-permission': want }))
      expect(settled.commit).toBe(HEAD)
    } else {
      expect(await refusal(settle(settings({ 'comment-permission': want })))).toContain(
        `below comment-permission: ${want}`
      )
    }
  })

  it('a permission GitHub answers without a role it names: refused', async () => {
    role({ role_name: 'x', user: { login: 'maintainer' } })
    expect(await refusal(settle(settings()))).toContain(
      "GitHub's answer for maintainer's permission on o/r has no permission"
    )
  })

  it('the permission cannot be read: refused, with the HTTP status', async () => {
    nock(API)
      .get('/repos/o/r/collaborators/maintainer/permission')
      .reply(403, { message: 'Must have push access to view collaborator permission.' })
    expect(await refusal(settle(settings()))).toContain(
      "could not read maintainer's permission on o/r (HTTP 403)"
    )
  })

  it('comment-permission: none reads no permission, but the head is still checked', async () => {
    pull(LATER)
    lastChange([pushed('2026-03-01T12:00:30Z', LATER)])
    expect(await refusal(settle(settings({ 'comment-permission': 'none' })))).toContain(
      'not before the comment was written'
    )
  })
})

describe('an event the action cannot be sure of', () => {
  it.each<[string, string | object, string]>([
    [
      'an event file that is not JSON',
      '{"comment":',
      'the event file (GITHUB_EVENT_PATH) is not JSON'
    ],
    [
      'no comment time',
      commentEvent({ comment: { created_at: undefined } }),
      'the issue_comment event has no comment.created_at'
    ],
    [
      'a comment time that is not a time',
      commentEvent({ comment: { created_at: 'yesterday' } }),
      "the issue_comment event's comment.created_at is not a time"
    ],
    [
      'a login with a line break',
      commentEvent({ comment: { user: { login: 'x\n::error::y' } } }),
      "the issue_comment event's comment.user.login is not a GitHub login"
    ],
    [
      'an issue number that is a string',
      commentEvent({ issue: { number: '8' } }),
      "the issue_comment event's issue.number is not a pull request number"
    ]
  ])('%s: refused before any request', async (_, payload, said) => {
    expect(await refusal(settle(settings(), { payload }))).toContain(said)
    expect(nock.pendingMocks()).toEqual([])
  })

  it('a comment on an issue: the commenter is checked; the commit is GITHUB_SHA', async () => {
    const permission = writer()
    const { settled } = await settle(settings(), {
      payload: commentEvent({ issue: { number: 9, pull_request: undefined } })
    })
    expect(permission.isDone()).toBe(true)
    expect(settled.commit).toBe(GITHUB_SHA)
    expect(settled.pullRequest).toBeUndefined()
  })

  it('a cancel while GitHub is read: the stop goes through, not a refusal', async () => {
    const controller = new AbortController()
    nock(API)
      .get('/repos/o/r/collaborators/maintainer/permission')
      // Longer than the test may take: only a request cut by the cancel lets it pass.
      .delay(600_000)
      .reply(200, { permission: 'write', role_name: 'write' })
    const pending = settle(settings(), { signal: controller.signal })
    setTimeout(() => controller.abort('cancelled'), 50)
    const error = await pending.then(
      () => undefined,
      (e: unknown) => e
    )
    expect(error).toBeDefined()
    expect(error).not.toBeInstanceOf(CommentCommandRefused)
    expect(String(error)).toContain('Stopped waiting for GitHub')
  })
})

describe('commit-parameter on other events', () => {
  const pullRequest = { number: 7, pull_request: { number: 7, head: { sha: HEAD } } }

  it('pull_request: the head from the event, to every build of jobs', async () => {
    const given = settings({ job: '', jobs: 'a\nb' })
    const { settled } = await settle(given, { event: 'pull_request', payload: pullRequest })
    expect(settled.jobs?.map(entry => entry.parameters)).toEqual([{ SHA: HEAD }, { SHA: HEAD }])
    expect(settled.commit).toBe(HEAD)
    expect(settled.pullRequest).toBe(7)
  })

  it('without commit-parameter and no comment: the settings as they are, nothing read', async () => {
    const given = settings({ 'commit-parameter': '' })
    const { settled } = await settle(given, { event: 'pull_request', payload: pullRequest })
    expect(settled).toBe(given)
  })

  it('a head_sha that is no commit: the step fails before Jenkins, naming the field', async () => {
    await expect(
      settle(settings(), {
        event: 'workflow_run',
        payload: { workflow_run: { head_sha: 'main' } }
      })
    ).rejects.toThrow(
      "Input 'commit-parameter' needs the commit under test, which could not be read: the workflow_run event's workflow_run.head_sha is not a commit SHA (40 or 64 hexadecimal digits). Nothing was sent to Jenkins."
    )
  })
})
