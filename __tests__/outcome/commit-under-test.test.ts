/**
 * The commit under test per event, as GithubReports.start reads it from the
 * runner's environment (GITHUB_EVENT_NAME, the payload at GITHUB_EVENT_PATH,
 * GITHUB_SHA), with nock standing in for GitHub where the pull request must
 * be read: the `commit` output, and the commit a status is then sent to.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import nock from 'nock'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { pullRequestOf } from '../../src/outcome/commit-under-test.js'
import { GithubReports } from '../../src/outcome/github-reports.js'
import type { Logger } from '../../src/util/logger.js'
import { stubRunnerEnv } from '../fixtures/runner-env.js'
import { useGithubFetch } from '../fixtures/github-fetch.js'

const API = 'https://api.github.com'
const TOKEN = 'ghs_commitRuleToken0123456789'
const GITHUB_SHA = '0'.repeat(40)
const HEAD = '1'.repeat(40)
const EVENT_HEAD = '2'.repeat(40)
const GIVEN = '3'.repeat(40)
const NAMED_HEAD = '4'.repeat(40)

let dir: string
beforeAll(() => {
  nock.disableNetConnect()
  dir = mkdtempSync(join(tmpdir(), 'commit-rule-'))
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

interface Case {
  event: string
  payload: Record<string, unknown>
  /** What the rule gives without inputs. */
  sha: string
  pullRequest?: number
  /** The pull request whose head the rule reads (GET /pulls/N). */
  reads?: number
}

const repository = { id: 99, name: 'r', owner: { login: 'o' } }
const prPayload = { number: 7, pull_request: { number: 7, head: { sha: HEAD } }, repository }

const CASES: Case[] = [
  { event: 'pull_request', payload: prPayload, sha: HEAD, pullRequest: 7 },
  { event: 'pull_request_target', payload: prPayload, sha: HEAD, pullRequest: 7 },
  { event: 'pull_request_review', payload: prPayload, sha: HEAD, pullRequest: 7 },
  { event: 'pull_request_review_comment', payload: prPayload, sha: HEAD, pullRequest: 7 },
  {
    event: 'issue_comment',
    payload: {
      issue: { number: 8, pull_request: { url: 'x' } },
      comment: { body: '/jenkins build' }
    },
    sha: HEAD,
    pullRequest: 8,
    reads: 8
  },
  { event: 'issue_comment', payload: { issue: { number: 9 } }, sha: GITHUB_SHA },
  {
    event: 'workflow_run',
    payload: {
      workflow_run: {
        head_sha: EVENT_HEAD,
        pull_requests: [{ number: 5, base: { repo: { id: 99 } } }]
      },
      repository
    },
    sha: EVENT_HEAD,
    pullRequest: 5
  },
  {
    // From a fork: GitHub lists no pull request.
    event: 'workflow_run',
    payload: { workflow_run: { head_sha: EVENT_HEAD, pull_requests: [] }, repository },
    sha: EVENT_HEAD
  },
  {
    event: 'check_suite',
    payload: { check_suite: { head_sha: EVENT_HEAD, pull_requests: [{ number: 3 }] } },
    sha: EVENT_HEAD,
    pullRequest: 3
  },
  {
    event: 'check_run',
    payload: { check_run: { head_sha: EVENT_HEAD, pull_requests: [{ number: 3 }, { number: 4 }] } },
    sha: EVENT_HEAD
  },
  {
    event: 'merge_group',
    payload: { merge_group: { head_sha: EVENT_HEAD, head_ref: 'gh-readonly-queue/main/pr-1' } },
    sha: EVENT_HEAD
  },
  { event: 'push', payload: { after: GITHUB_SHA }, sha: GITHUB_SHA },
  { event: 'schedule', payload: {}, sha: GITHUB_SHA },
  { event: 'workflow_dispatch', payload: { inputs: {} }, sha: GITHUB_SHA },
  { event: 'repository_dispatch', payload: { action: 'jenkins' }, sha: GITHUB_SHA }
]

function recorder() {
  const warnings: string[] = []
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warning: message => void warnings.push(message)
  }
  return { logger, warnings }
}

let files = 0
async function start(
  c: Case,
  inputs: { commit?: string; pullRequest?: number } = {},
  env: NodeJS.ProcessEnv = {}
) {
  const path = join(dir, `event-${files++}.json`)
  writeFileSync(path, JSON.stringify(c.payload))
  const { logger, warnings } = recorder()
  const outputs: Record<string, string> = {}
  stubRunnerEnv({
    GITHUB_REPOSITORY: 'o/r',
    GITHUB_EVENT_NAME: c.event,
    GITHUB_EVENT_PATH: path,
    GITHUB_SHA,
    GITHUB_SERVER_URL: 'https://github.com',
    ...env
  })
  const reports = await GithubReports.start({
    settings: {
      githubToken: TOKEN,
      commitStatus: true,
      prComment: false,
      url: 'http://jenkins.example',
      ...inputs
    },
    logger,
    setOutput: (name, value) => void (outputs[name] = value),
    redact: text => text,
    reportName: 'jenkins/job'
  })
  return { reports, outputs, warnings }
}

function pullHead(number: number, sha: string) {
  return nock(API).get(`/repos/o/r/pulls/${number}`).reply(200, { number, head: { sha } })
}

function describeCase(c: Case): string {
  const list = (c.payload[c.event] as { pull_requests?: unknown[] } | undefined)?.pull_requests
  const issue = c.payload.issue as { pull_request?: unknown } | undefined
  const detail = list
    ? ` with ${list.length} pull request(s)`
    : issue
      ? issue.pull_request
        ? ' on a pull request'
        : ' on an issue'
      : ''
  return `${c.event}${detail}`
}

describe.each(CASES.map(c => [describeCase(c), c] as const))('%s', (_, c) => {
  it(`commit under test: ${c.sha === GITHUB_SHA ? 'GITHUB_SHA' : c.sha === HEAD ? "the pull request's head" : "the event's head_sha"}`, async () => {
    const read = c.reads === undefined ? undefined : pullHead(c.reads, HEAD)
    const status = nock(API).post(`/repos/o/r/statuses/${c.sha}`).reply(201, {})
    const { reports, outputs, warnings } = await start(c)
    expect(outputs.commit).toBe(c.sha)
    expect(reports.target?.pullRequest).toBe(c.pullRequest)
    await (await reports.status('jenkins/job'))?.pending('Queued in Jenkins')
    expect(status.isDone()).toBe(true)
    if (read) expect(read.isDone()).toBe(true)
    expect(warnings).toEqual([])
  })

  it('the commit input overrides it, and reads no pull request', async () => {
    const { reports, outputs } = await start(c, { commit: GIVEN })
    expect(outputs.commit).toBe(GIVEN)
    expect(reports.target?.sha).toBe(GIVEN)
    expect(reports.target?.pullRequest).toBe(c.pullRequest)
    expect(nock.pendingMocks()).toEqual([])
  })

  it('the pull-request input names the pull request', async () => {
    // Where the event carries its own commit, it stays; elsewhere the named pull request's head is the commit.
    const own = c.reads === undefined && c.sha !== GITHUB_SHA
    const read = own ? undefined : pullHead(42, NAMED_HEAD)
    const { reports, outputs } = await start(c, { pullRequest: 42 })
    expect(reports.target?.pullRequest).toBe(42)
    // issue_comment on a pull request: the named one's head is read instead.
    expect(outputs.commit).toBe(own ? c.sha : NAMED_HEAD)
    if (read) expect(read.isDone()).toBe(true)
  })
})

describe("the failed tests' source links", () => {
  const comment = CASES.find(x => x.event === 'issue_comment' && x.reads !== undefined) as Case

  it("name the commit the step resolved: an issue_comment run's pull request head, not GITHUB_SHA", async () => {
    pullHead(comment.reads as number, HEAD)
    const { reports, outputs } = await start(comment)
    expect(outputs.commit).toBe(HEAD)
    expect(reports.sourceCommit).toEqual({
      serverUrl: 'https://github.com',
      repository: 'o/r',
      sha: HEAD
    })
  })

  it('name none when the commit could not be resolved (no statuses either)', async () => {
    nock(API).get(`/repos/o/r/pulls/${comment.reads}`).reply(404, { message: 'Not Found' })
    const { reports } = await start(comment)
    expect(reports.sourceCommit).toBeUndefined()
  })
})

describe('a pull request that cannot be read', () => {
  it('one warning, no commit output, and no status on any commit', async () => {
    const c = CASES.find(x => x.reads !== undefined) as Case
    nock(API).get('/repos/o/r/pulls/8').reply(404, { message: 'Not Found' })
    const { reports, outputs, warnings } = await start(c)
    expect(outputs.commit).toBeUndefined()
    expect(reports.target).toBeNull()
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/^Could not read pull request #8 of o\/r \(HTTP 404\)/)
    expect(warnings[0]).toContain('rather than on the wrong commit')
    expect(warnings[0]).not.toContain(TOKEN)
    // No status reporter at all, so no request on any commit.
    expect(await reports.status('jenkins/job')).toBeUndefined()
    expect(warnings).toHaveLength(1)
  })

  it('an event that lacks the commit it should carry is the same: a warning, nothing reported', async () => {
    const { outputs, warnings } = await start({
      event: 'workflow_run',
      payload: { workflow_run: {} },
      sha: ''
    })
    expect(outputs.commit).toBeUndefined()
    expect(warnings).toEqual([
      expect.stringContaining('the workflow_run event has no workflow_run.head_sha')
    ])
  })
})

describe('pullRequestOf', () => {
  it('ignores a workflow_run pull request into another repository', () => {
    const payload = {
      workflow_run: {
        head_sha: EVENT_HEAD,
        pull_requests: [{ number: 5, base: { repo: { id: 1 } } }]
      },
      repository
    }
    expect(
      pullRequestOf(
        {
          eventName: 'workflow_run',
          payload,
          sha: '',
          repo: { owner: 'o', repo: 'r' }
        },
        {}
      )
    ).toBeUndefined()
  })
})

/**
 * Issue 32 §4: only what decodes into a true type is used. A field that does
 * not gives one warning naming it, no `commit` output, and no status or
 * comment on any commit (status() gives no reporter: nothing can be sent).
 */
describe('what does not decode: one warning naming the field, nothing reported', () => {
  async function nothingReported(
    c: Case,
    said: string,
    inputs: { commit?: string; pullRequest?: number } = {},
    env: NodeJS.ProcessEnv = {}
  ) {
    const { reports, outputs, warnings } = await start(c, inputs, env)
    expect(warnings).toEqual([expect.stringContaining(said)])
    expect(warnings[0]).toContain('No commit status or pull request comment is set')
    expect(outputs.commit).toBeUndefined()
    expect(reports.target).toBeNull()
    expect(reports.sourceCommit).toBeUndefined()
    expect(await reports.status('jenkins/job')).toBeUndefined()
    expect(nock.pendingMocks()).toEqual([])
  }

  const notSha = 'is not a commit SHA (40 or 64 hexadecimal digits)'
  const headShas: Array<[string, unknown]> = [
    ['a branch name', 'main'],
    ['a path', '../..'],
    ['41 hexadecimal digits', 'a'.repeat(41)],
    ['39 hexadecimal digits', 'a'.repeat(39)],
    ['a SHA and a line break', `${'a'.repeat(40)}\n::error::x`],
    ['empty', ''],
    ['a number', 7]
  ]

  it.each(headShas)('workflow_run.head_sha: %s', async (_, sha) => {
    await nothingReported(
      { event: 'workflow_run', payload: { workflow_run: { head_sha: sha } }, sha: '' },
      `the workflow_run event's workflow_run.head_sha ${notSha}`
    )
  })

  it.each(headShas)('pull_request.head.sha: %s', async (_, sha) => {
    await nothingReported(
      {
        event: 'pull_request',
        payload: { number: 7, pull_request: { number: 7, head: { sha } } },
        sha: ''
      },
      `the pull_request event's pull_request.head.sha ${notSha}`
    )
  })

  it.each(headShas)("the pull request read: GitHub's head.sha %s", async (_, sha) => {
    const read = nock(API).get('/repos/o/r/pulls/8').reply(200, { number: 8, head: { sha } })
    const comment = CASES.find(x => x.reads === 8) as Case
    await nothingReported(
      comment,
      `Could not read pull request #8 of o/r: GitHub's answer for pull request #8's head.sha ${notSha}`
    )
    expect(read.isDone()).toBe(true)
  })

  it("the pull request read: GitHub's answer without head.sha (never GITHUB_SHA instead)", async () => {
    nock(API)
      .get('/repos/o/r/pulls/8')
      .reply(200, { number: 8, head: { ref: 'x' } })
    await nothingReported(
      CASES.find(x => x.reads === 8) as Case,
      "GitHub's answer for pull request #8 has no head.sha"
    )
  })

  const numbers: Array<[string, unknown]> = [
    ['a string', '8'],
    ['zero', 0],
    ['negative', -8],
    ['a fraction', 8.5],
    ['past the safe integers', 2 ** 53],
    ['null', null]
  ]
  const notNumber = 'is not a pull request number (a whole number from 1)'

  it.each(numbers)(
    'issue_comment: issue.number %s (never GITHUB_SHA instead)',
    async (_, number) => {
      await nothingReported(
        {
          event: 'issue_comment',
          payload: { issue: { number, pull_request: { url: 'x' } }, comment: { body: '/jenkins' } },
          sha: ''
        },
        number === null
          ? 'the issue_comment event has no issue.number'
          : `the issue_comment event's issue.number ${notNumber}`
      )
    }
  )

  it.each(numbers.filter(([, n]) => n !== null))(
    'pull_request: pull_request.number %s',
    async (_, number) => {
      await nothingReported(
        {
          event: 'pull_request',
          payload: { pull_request: { number, head: { sha: HEAD } } },
          sha: ''
        },
        `the pull_request event's pull_request.number ${notNumber}`
      )
    }
  )

  it('workflow_run: a pull_requests entry whose number is a string', async () => {
    await nothingReported(
      {
        event: 'workflow_run',
        payload: { workflow_run: { head_sha: EVENT_HEAD, pull_requests: [{ number: '5' }] } },
        sha: ''
      },
      `the workflow_run event's workflow_run.pull_requests[0].number ${notNumber}`
    )
  })

  it('push: a GITHUB_SHA that is not a commit SHA', async () => {
    await nothingReported(
      { event: 'push', payload: {}, sha: '' },
      `the runner's environment's GITHUB_SHA ${notSha}`,
      {},
      { GITHUB_SHA: 'refs/heads/main' }
    )
  })
})

describe('a broken event file: a warning, never a failure', () => {
  async function broken(path: string, reports: boolean) {
    const { logger, warnings } = recorder()
    const outputs: Record<string, string> = {}
    stubRunnerEnv({
      GITHUB_REPOSITORY: 'o/r',
      GITHUB_EVENT_NAME: 'pull_request',
      GITHUB_EVENT_PATH: path,
      GITHUB_SHA
    })
    const started = await GithubReports.start({
      settings: {
        githubToken: TOKEN,
        commitStatus: reports,
        prComment: reports,
        url: 'http://jenkins.example'
      },
      logger,
      setOutput: (name, value) => void (outputs[name] = value),
      redact: text => text,
      reportName: 'jenkins/job'
    })
    expect(started.target).toBeNull()
    expect(outputs).toEqual({})
    expect(await started.status('jenkins/job')).toBeUndefined()
    return warnings
  }

  const cases: Array<[string, () => string, string]> = [
    [
      'not JSON',
      () => {
        const path = join(dir, 'not-json.json')
        writeFileSync(path, '{"pull_request": ')
        return path
      },
      'is not JSON'
    ],
    [
      'a folder',
      () => {
        const path = join(dir, 'a-folder')
        mkdirSync(path, { recursive: true })
        return path
      },
      'is a folder'
    ],
    [
      'a JSON array',
      () => {
        const path = join(dir, 'array.json')
        writeFileSync(path, '[]')
        return path
      },
      'holds no JSON object'
    ]
  ]

  it.each(cases)('%s: one warning when reports are on', async (_, make, why) => {
    expect(await broken(make(), true)).toEqual([
      `No commit status or pull request comment: the event file (GITHUB_EVENT_PATH) ${why}; the build goes on.`
    ])
  })

  it.each(cases)('%s: nothing to say when no report is on', async (_, make) => {
    expect(await broken(make(), false)).toEqual([])
  })
})
