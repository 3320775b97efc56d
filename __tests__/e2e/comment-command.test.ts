/**
 * End to end (issue 32 §4, §6): the bundle as the runner starts it, on an
 * `issue_comment` event, against the test server and a stand-in for the
 * GitHub API (test-server/github: roles, pull requests, branch changes and
 * commit statuses). A comment command builds the head GitHub shows was
 * pushed before the comment, for a commenter with `comment-permission`, and
 * gives Jenkins that commit; any doubt refuses it before a single request
 * reaches Jenkins. A broken event file on another event is a warning.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  startGithub,
  startJenkins,
  type GithubStandIn,
  type TestJenkins
} from '../../test-server/index.js'
import { auth, commands, describeRun, run, RUNTIMES } from './helpers.js'

const GITHUB_SHA = 'b'.repeat(40)
const REVIEWED = 'c'.repeat(40)
const PUSHED_LATER = 'd'.repeat(40)
const GITHUB_TOKEN = 'ghs_commentCommandE2eToken0123456789'
const repository = { id: 1, name: 'repo', owner: { login: 'owner' } }
const WRITTEN = '2026-03-01T12:00:10Z'
const BEFORE = '2026-03-01T12:00:05Z'
const AFTER = '2026-03-01T12:00:40Z'

/** An `issue_comment` event: `user` commented at WRITTEN on pull request `pr` (on an issue without one). */
function comment(user: string, pr?: number) {
  return {
    name: 'issue_comment',
    payload: {
      action: 'created',
      issue: pr === undefined ? { number: 29 } : { number: pr, pull_request: { url: 'x' } },
      comment: { body: '/jenkins build', user: { login: user }, created_at: WRITTEN },
      repository
    }
  }
}

/** Pull request `pr` of the fork `someone/fork`, branch `pr-<n>`, at `sha`, whose newest change GitHub recorded at `at`. */
function pullRequest(github: GithubStandIn, pr: number, sha: string, at: string): void {
  github.model.heads.set(pr, sha)
  github.model.pullBranches.set(pr, { ref: `pr-${pr}`, repo: 'someone/fork' })
  github.model.changes.set(`someone/fork:pr-${pr}`, [{ after: sha, timestamp: at }])
}

/** The commits the statuses of `context` went to, in order. */
function statusShas(github: GithubStandIn, context: string): string[] {
  return github.requests
    .filter(q => q.method === 'POST' && q.url.includes('/statuses/'))
    .filter(q => (JSON.parse(q.body) as { context: string }).context === context)
    .map(q => /\/statuses\/([0-9a-f]+)$/.exec(q.url)?.[1] ?? q.url)
}

function reads(github: GithubStandIn, path: string): number {
  return github.requests.filter(q => q.method === 'GET' && q.url.split('?')[0] === path).length
}

function errors(stdout: string): string[] {
  return commands(stdout, 'error').map(c => c?.value ?? '')
}

describe.each(RUNTIMES)('comment commands ($name)', ({ path: node }) => {
  let jenkins: TestJenkins
  /** Receives only runs that must be refused: it must see no request at all. */
  let refusing: TestJenkins
  let github: GithubStandIn
  let workspace: string
  const SHA = [{ name: 'SHA', type: 'string' as const }]
  const inputs = (server: TestJenkins, job: string, extra: Record<string, string> = {}) => ({
    ...auth(server),
    job,
    'commit-parameter': 'SHA',
    'commit-status': 'true',
    'github-token': GITHUB_TOKEN,
    ...extra
  })
  const env = () => ({ GITHUB_API_URL: github.url })

  beforeAll(async () => {
    const quick = { parameters: SHA, script: { durationMs: 100 } }
    jenkins = await startJenkins({
      quietPeriodSec: 0,
      executors: 8,
      jobs: {
        built: quick,
        issue: quick,
        'pr-event': { script: { durationMs: 100 } },
        links: {
          parameters: SHA,
          script: {
            durationMs: 100,
            result: 'UNSTABLE',
            tests: {
              suites: [
                {
                  name: 'parser',
                  cases: [
                    {
                      className: 'tests.test_parser',
                      name: 'test_parses',
                      status: 'FAILED',
                      errorDetails: 'AssertionError: 1 != 1000',
                      errorStackTrace:
                        'Traceback (most recent call last):\n  File "/var/lib/jenkins/workspace/app/tests/test_parser.py", line 17, in test_parses\nAssertionError: 1 != 1000'
                    }
                  ]
                }
              ]
            }
          }
        }
      }
    })
    refusing = await startJenkins({ quietPeriodSec: 0, jobs: { refused: quick } })
    github = await startGithub()
    // A GitHub that never answers: the step's timeout must still end it.
    github.aim({
      route: 'collaborators.permission',
      effect: { type: 'stall' },
      match: request => request.params.user === 'staller'
    })
    for (const user of ['writer', 'linker', 'issuer', 'reader']) {
      github.model.roles.set(user, user === 'reader' ? 'read' : 'write')
    }
    workspace = mkdtempSync(join(tmpdir(), 'e2e-comment-'))
    mkdirSync(join(workspace, 'tests'))
    writeFileSync(join(workspace, 'tests', 'test_parser.py'), 'x\n')
  })
  afterAll(async () => {
    await jenkins.close()
    await refusing.close()
    await github.close()
    rmSync(workspace, { recursive: true, force: true })
  })

  describe.concurrent('admitted', () => {
    it('a head pushed before the comment, by a writer: built with that commit as SHA, the statuses on it, each read once', async () => {
      pullRequest(github, 23, REVIEWED, BEFORE)
      const r = await run(node, inputs(jenkins, 'built'), {
        env: env(),
        event: comment('writer', 23)
      })
      expect(r.code, describeRun(r)).toBe(0)
      expect(JSON.parse(r.outputs['build-parameters'] ?? '{}')).toEqual({ SHA: REVIEWED })
      expect(r.outputs.commit).toBe(REVIEWED)
      expect(statusShas(github, 'jenkins/built')).toEqual([REVIEWED, REVIEWED, REVIEWED])
      expect(reads(github, '/repos/owner/repo/collaborators/writer/permission')).toBe(1)
      expect(reads(github, '/repos/owner/repo/pulls/23')).toBe(1)
      expect(reads(github, '/repos/someone/fork/activity')).toBeGreaterThan(0)
      expect(r.stdout).toContain(
        `Pull request #23's head ${REVIEWED} was pushed at ${BEFORE}, before the comment (${WRITTEN}): this run builds it.`
      )
    })

    it("the failed tests' source links name the head that was built, as the statuses do", async () => {
      pullRequest(github, 31, REVIEWED, BEFORE)
      const r = await run(node, inputs(jenkins, 'links', { accept: 'SUCCESS,UNSTABLE' }), {
        env: { ...env(), GITHUB_WORKSPACE: workspace },
        event: comment('linker', 31)
      })
      expect(r.code, describeRun(r)).toBe(0)
      expect(statusShas(github, 'jenkins/links')).toEqual([REVIEWED, REVIEWED, REVIEWED])
      const at = (sha: string) =>
        `<a href="https://github.com/owner/repo/blob/${sha}/tests/test_parser.py#L17">`
      expect(r.summary).toContain(at(REVIEWED))
      expect(r.summary).not.toContain(at(GITHUB_SHA))
    })

    it('a comment on an issue: the commenter is checked, the commit is GITHUB_SHA, no comment', async () => {
      const r = await run(node, inputs(jenkins, 'issue', { 'pr-comment': 'true' }), {
        env: env(),
        event: comment('issuer')
      })
      expect(r.code, describeRun(r)).toBe(0)
      expect(reads(github, '/repos/owner/repo/collaborators/issuer/permission')).toBe(1)
      expect(statusShas(github, 'jenkins/issue')).toEqual([GITHUB_SHA, GITHUB_SHA, GITHUB_SHA])
      expect(JSON.parse(r.outputs['build-parameters'] ?? '{}')).toEqual({ SHA: GITHUB_SHA })
      expect(r.stdout).toContain('pr-comment: this run (issue_comment) is tied to no pull request')
    })

    it.each([
      [
        'not JSON',
        (dir: string) => (writeFileSync(join(dir, 'event.json'), '{"pull_'), 'event.json'),
        'is not JSON'
      ],
      ['a folder', (dir: string) => (mkdirSync(join(dir, 'event-dir')), 'event-dir'), 'is a folder']
    ])(
      'a pull_request event file that is %s: one warning, no status, the build passes',
      async (_, make, why) => {
        const dir = mkdtempSync(join(workspace, 'event-'))
        const context = `broken/${why.replace(/\W/g, '-')}`
        const r = await run(
          node,
          { ...inputs(jenkins, 'pr-event', { 'status-context': context }), 'commit-parameter': '' },
          { env: { ...env(), GITHUB_EVENT_PATH: join(dir, make(dir)) } }
        )
        expect(r.code, describeRun(r)).toBe(0)
        expect(r.outputs.result).toBe('SUCCESS')
        expect(commands(r.stdout, 'warning').map(c => c?.value)).toEqual([
          `No commit status or pull request comment: the event file (GITHUB_EVENT_PATH) ${why}; the build goes on.`
        ])
        expect(statusShas(github, context)).toEqual([])
      }
    )
  })

  describe('refused: nothing reaches Jenkins', () => {
    it('the same inputs reach the server when the comment is admitted (so zero requests means something)', async () => {
      pullRequest(github, 40, REVIEWED, BEFORE)
      const r = await run(node, inputs(refusing, 'refused'), {
        env: env(),
        event: comment('writer', 40)
      })
      expect(r.code, describeRun(r)).toBe(0)
      expect(refusing.requests.length).toBeGreaterThan(0)
      refusing.requests.length = 0
    })

    it('a push after the comment', async () => {
      pullRequest(github, 41, PUSHED_LATER, AFTER)
      const r = await run(node, inputs(refusing, 'refused'), {
        env: env(),
        event: comment('writer', 41)
      })
      expect(r.code, describeRun(r)).toBe(1)
      expect(errors(r.stdout)).toEqual([
        `The comment command is refused: pull request #41's head ${PUSHED_LATER} was pushed at ${AFTER}, not before the comment was written (${WRITTEN}), so it may not be what was reviewed. Nothing was sent to Jenkins: review the pull request as it is now and comment again.`
      ])
      expect(statusShas(github, 'jenkins/refused').filter(sha => sha === PUSHED_LATER)).toEqual([])
      expect(refusing.requests).toEqual([])
    })

    it('an explicit commit that is not the head', async () => {
      pullRequest(github, 42, PUSHED_LATER, BEFORE)
      const r = await run(node, inputs(refusing, 'refused', { commit: REVIEWED }), {
        env: env(),
        event: comment('writer', 42)
      })
      expect(r.code, describeRun(r)).toBe(1)
      expect(errors(r.stdout)).toEqual([
        `The comment command is refused: input 'commit' (${REVIEWED}) is not pull request #42's head (${PUSHED_LATER}). Nothing was sent to Jenkins: review the pull request as it is now and comment again to build its head.`
      ])
      expect(refusing.requests).toEqual([])
    })

    it('a pull request that cannot be read', async () => {
      const r = await run(node, inputs(refusing, 'refused'), {
        env: env(),
        event: comment('writer', 43)
      })
      expect(r.code, describeRun(r)).toBe(1)
      expect(errors(r.stdout)).toEqual([
        expect.stringMatching(
          /^The comment command is refused: could not read pull request #43 of owner\/repo \(HTTP 404\)/
        )
      ])
      expect(refusing.requests).toEqual([])
    })

    it('a commenter with read: one error naming them and the permission, the permission read once', async () => {
      pullRequest(github, 44, REVIEWED, BEFORE)
      const r = await run(node, inputs(refusing, 'refused'), {
        env: env(),
        event: comment('reader', 44)
      })
      expect(r.code, describeRun(r)).toBe(1)
      expect(errors(r.stdout)).toEqual([
        "The comment command is refused: reader's role on owner/repo is read, below comment-permission: write. Nothing was sent to Jenkins: only a user with the write role or higher can start a build by comment."
      ])
      expect(reads(github, '/repos/owner/repo/collaborators/reader/permission')).toBe(1)
      expect(reads(github, '/repos/owner/repo/pulls/44')).toBe(0)
      expect(refusing.requests).toEqual([])
    })

    it.each([
      ['job', { job: 'refused' }],
      ['jobs', { job: '', jobs: 'refused' }]
    ])(
      'with %s, a GitHub that never answers: the timeout ends the step, nothing started in Jenkins',
      async (_, which) => {
        pullRequest(github, 46, REVIEWED, BEFORE)
        const r = await run(
          node,
          { ...inputs(refusing, 'refused'), ...which, timeout: '3' },
          {
            env: env(),
            event: comment('staller', 46)
          }
        )
        expect(r.code, describeRun(r)).toBe(1)
        expect(errors(r.stdout)).toEqual([
          expect.stringMatching(/^Timed out after .* nothing was started in Jenkins\.$/)
        ])
        expect(refusing.requests).toEqual([])
      }
    )

    it('an event file that is not JSON', async () => {
      const dir = mkdtempSync(join(workspace, 'event-'))
      writeFileSync(join(dir, 'event.json'), '{"comment": ')
      const r = await run(node, inputs(refusing, 'refused'), {
        env: { ...env(), GITHUB_EVENT_PATH: join(dir, 'event.json') },
        event: comment('writer', 45)
      })
      expect(r.code, describeRun(r)).toBe(1)
      expect(errors(r.stdout)).toEqual([
        'The comment command is refused: the event file (GITHUB_EVENT_PATH) is not JSON, so neither the commenter nor the commit can be checked. Nothing was sent to Jenkins: comment again.'
      ])
      expect(refusing.requests).toEqual([])
    })
  })
})
