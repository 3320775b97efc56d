/**
 * End to end: where the reports go for each event that starts a run
 * (commit statuses and the pull request comment, against a local stand-in
 * for the GitHub API with real HTTP), the event written to
 * GITHUB_EVENT_PATH as the runner writes it.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  startGithub,
  startJenkins,
  type GithubRequest,
  type GithubStandIn,
  type TestJenkins
} from '../../test-server/index.js'
import { commentMarker } from '../../src/outcome/pr-comment-body.js'
import { auth, commands, describeRun, run, RUNTIMES } from './helpers.js'

const GITHUB_SHA = 'b'.repeat(40)
const PR_HEAD = 'c'.repeat(40)
const RUN_HEAD = 'd'.repeat(40)
const QUEUE_HEAD = 'e'.repeat(40)
const GITHUB_TOKEN = 'ghs_prReportsToken0123456789abcdef'
const repository = { id: 1, name: 'repo', owner: { login: 'owner' } }

/** The commits the statuses of one context went to, in order. */
function statusShas(server: GithubStandIn, context: string): string[] {
  return server.requests
    .filter(q => q.method === 'POST' && q.url.includes('/statuses/'))
    .filter(q => (JSON.parse(q.body) as { context: string }).context === context)
    .map(q => /\/statuses\/([0-9a-f]+)$/.exec(q.url)?.[1] ?? q.url)
}

/** The requests about the comments of pull request `number` (its updates by the ids it holds). */
function commentRequests(server: GithubStandIn, number: number): GithubRequest[] {
  const ids = new Set(
    (server.comments.get(number) ?? []).map(c => `/repos/owner/repo/issues/comments/${c.id}`)
  )
  return server.requests.filter(
    q => q.url.startsWith(`/repos/owner/repo/issues/${number}/comments`) || ids.has(q.url)
  )
}

describe.each(RUNTIMES)('pull request reports ($name)', ({ path: node }) => {
  let jenkins: TestJenkins
  let github: GithubStandIn
  let forbidden: GithubStandIn
  let noStatuses: GithubStandIn
  /** A folder for workspaces, removed at the end. */
  let workspace: string
  const inputs = (job: string, extra: Record<string, string> = {}) => ({
    ...auth(jenkins),
    job,
    'commit-status': 'true',
    'github-token': GITHUB_TOKEN,
    ...extra
  })
  beforeAll(async () => {
    const quick = { script: { durationMs: 100 } }
    jenkins = await startJenkins({
      quietPeriodSec: 0,
      executors: 8,
      jobs: {
        'ev-pr': quick,
        'ev-run': quick,
        'ev-fork': quick,
        'ev-queue': quick,
        'ev-push': quick,
        again: {
          script: {
            durationMs: 100,
            result: 'UNSTABLE',
            tests: { total: 4, failed: 1, skipped: 0 }
          }
        },
        denied: quick,
        mine: quick,
        'several-a': quick,
        'art-link': { script: { durationMs: 100, artifacts: [{ path: 'a.txt', content: 'a' }] } },
        'several-b': { script: { durationMs: 150, result: 'FAILURE' } }
      }
    })
    workspace = mkdtempSync(join(tmpdir(), 'e2e-pr-links-'))
    github = await startGithub()
    // A token without pull-requests: write, and one without statuses: write.
    forbidden = await startGithub()
    forbidden.aim({
      route: ['comments.create', 'comments.update'],
      effect: { type: 'refuse', status: 403 }
    })
    noStatuses = await startGithub()
    noStatuses.aim({ route: 'statuses.create', effect: { type: 'refuse', status: 403 } })
    for (const server of [github, forbidden]) {
      server.heads.set(17, PR_HEAD)
    }
  })
  afterAll(async () => {
    await jenkins.close()
    await github.close()
    await forbidden.close()
    await noStatuses.close()
    rmSync(workspace, { recursive: true, force: true })
  })

  const env = (server: GithubStandIn) => ({ env: { GITHUB_API_URL: server.url } })

  describe.concurrent('the commit each status names, per event', () => {
    it("pull_request: the pull request's head", async () => {
      const r = await run(node, inputs('ev-pr', { 'pr-comment': 'true' }), {
        ...env(github),
        event: {
          name: 'pull_request',
          payload: { number: 17, pull_request: { number: 17, head: { sha: PR_HEAD } }, repository }
        }
      })
      expect(r.code, describeRun(r)).toBe(0)
      expect(statusShas(github, 'jenkins/ev-pr')).toEqual([PR_HEAD, PR_HEAD, PR_HEAD])
      expect(r.outputs.commit).toBe(PR_HEAD)
    })

    // issue_comment (comment commands) runs: __tests__/e2e/comment-command.test.ts.

    it('workflow_run: its head_sha, and its one pull request gets the comment', async () => {
      const r = await run(node, inputs('ev-run', { 'pr-comment': 'true' }), {
        ...env(github),
        event: {
          name: 'workflow_run',
          payload: {
            workflow_run: {
              head_sha: RUN_HEAD,
              pull_requests: [{ number: 31, base: { repo: { id: 1 } } }]
            },
            repository
          }
        }
      })
      expect(r.code, describeRun(r)).toBe(0)
      expect(statusShas(github, 'jenkins/ev-run')).toEqual([RUN_HEAD, RUN_HEAD, RUN_HEAD])
      expect(github.comments.get(31)?.map(c => c.body)).toEqual([
        expect.stringContaining('`ev-run`')
      ])
    })

    it('workflow_run from a fork: its head_sha, and the comment on the pull-request input', async () => {
      const r = await run(
        node,
        inputs('ev-fork', {
          'pr-comment': 'true',
          'pull-request': '37',
          'status-context': 'ci/fork'
        }),
        {
          ...env(github),
          event: {
            name: 'workflow_run',
            payload: { workflow_run: { head_sha: RUN_HEAD, pull_requests: [] }, repository }
          }
        }
      )
      expect(r.code, describeRun(r)).toBe(0)
      expect(statusShas(github, 'ci/fork')).toEqual([RUN_HEAD, RUN_HEAD, RUN_HEAD])
      expect(github.comments.get(37)).toHaveLength(1)
    })

    it('merge_group: its head_sha', async () => {
      const r = await run(node, inputs('ev-queue'), {
        ...env(github),
        event: {
          name: 'merge_group',
          payload: {
            merge_group: { head_sha: QUEUE_HEAD, head_ref: 'gh-readonly-queue/main/pr-5' },
            repository
          }
        }
      })
      expect(r.code, describeRun(r)).toBe(0)
      expect(statusShas(github, 'jenkins/ev-queue')).toEqual([QUEUE_HEAD, QUEUE_HEAD, QUEUE_HEAD])
    })

    it('push: GITHUB_SHA', async () => {
      const r = await run(node, inputs('ev-push'), {
        ...env(github),
        event: { name: 'push', payload: { after: GITHUB_SHA, repository } }
      })
      expect(r.code, describeRun(r)).toBe(0)
      expect(statusShas(github, 'jenkins/ev-push')).toEqual([GITHUB_SHA, GITHUB_SHA, GITHUB_SHA])
    })
  })

  it('a second run on the same pull request updates the one comment', async () => {
    const event = {
      name: 'pull_request',
      payload: { number: 41, pull_request: { number: 41, head: { sha: PR_HEAD } }, repository }
    }
    const options = { ...env(github), event }
    const withComment = inputs('again', { 'pr-comment': 'true', accept: 'SUCCESS,UNSTABLE' })
    const first = await run(node, withComment, options)
    expect(first.code, describeRun(first)).toBe(0)
    const created = github.comments.get(41) ?? []
    expect(created).toHaveLength(1)
    const id = created[0]?.id
    const second = await run(node, withComment, options)
    expect(second.code, describeRun(second)).toBe(0)
    const after = github.comments.get(41) ?? []
    expect(after).toHaveLength(1)
    expect(after[0]?.id).toBe(id)
    const body = after[0]?.body ?? ''
    expect(body).toContain(`[#${second.outputs['build-number']}](${second.outputs['build-url']})`)
    expect(body).toContain('⚠️ **UNSTABLE** (accepted)')
    expect(body).toContain('tests: 4 total, 1 failed, 0 skipped')
    expect(body).toContain('[workflow run](https://github.com/owner/repo/actions/runs/1)')
    // Each run: one search, one create or update when queued, one update at the end.
    const writes = commentRequests(github, 41).filter(q => q.method !== 'GET')
    expect(writes.map(q => q.method)).toEqual(['POST', 'PATCH', 'PATCH', 'PATCH'])
  })

  describe('only its own comment is edited', () => {
    const marker = commentMarker('jenkins/mine')
    const withComment = () => inputs('mine', { 'pr-comment': 'true' })
    const onPull = (number: number) => ({
      ...env(github),
      event: {
        name: 'pull_request',
        payload: { number, pull_request: { number, head: { sha: PR_HEAD } }, repository }
      }
    })
    /** The requests of one run about pull request `number`'s comments and who the token is, as `METHOD path`. */
    async function runSending(number: number): Promise<string[]> {
      const from = github.requests.length
      const r = await run(node, withComment(), onPull(number))
      expect(r.code, describeRun(r)).toBe(0)
      expect(commands(r.stdout, 'warning'), describeRun(r)).toEqual([])
      const ids = new Set([...github.model.comments.values()].flat().map(c => String(c.id)))
      return github.requests
        .slice(from)
        .filter(
          q =>
            q.route === 'user.get' ||
            q.params.number === String(number) ||
            (q.params.id !== undefined && ids.has(q.params.id))
        )
        .map(q => `${q.method} ${q.url.replace(/\?.*$/, '')}`)
    }
    const comments = (number: number) => `/repos/owner/repo/issues/${number}/comments`

    it("a forged marker by another user, newer than its own comment: passed over, its own updated, the other's untouched", async () => {
      await runSending(51)
      const [ours] = github.comments.get(51) ?? []
      const forged = github.model.addComment(51, 'mallory', `${marker}\nLGTM, all green`)
      const sent = await runSending(51)
      expect(sent).toEqual([
        `GET ${comments(51)}`,
        'GET /user',
        `PATCH /repos/owner/repo/issues/comments/${ours?.id}`,
        `PATCH /repos/owner/repo/issues/comments/${ours?.id}`
      ])
      expect(forged.body).toBe(`${marker}\nLGTM, all green`)
      expect(ours?.user.login).toBe('github-actions[bot]')
    })

    it('forged markers older than any of its own (one at the top, one in a code block): a new comment, theirs untouched', async () => {
      const forged = github.model.addComment(53, 'mallory', `${marker}\n✅ SUCCESS`)
      const quoted = github.model.addComment(53, 'eve', `Look:\n\`\`\`\n${marker}\n\`\`\``)
      const sent = await runSending(53)
      const ours = (github.comments.get(53) ?? []).find(c => c.user.login === 'github-actions[bot]')
      expect(sent).toEqual([
        `GET ${comments(53)}`,
        'GET /user',
        `POST ${comments(53)}`,
        `PATCH /repos/owner/repo/issues/comments/${ours?.id}`
      ])
      expect(forged.body).toBe(`${marker}\n✅ SUCCESS`)
      expect(quoted.body).toBe(`Look:\n\`\`\`\n${marker}\n\`\`\``)
      // The next run finds its own, not the older forged one.
      const again = await runSending(53)
      expect(again.filter(q => q.startsWith('PATCH'))).toEqual([
        `PATCH /repos/owner/repo/issues/comments/${ours?.id}`,
        `PATCH /repos/owner/repo/issues/comments/${ours?.id}`
      ])
    })

    it('its own comment deleted between runs: the next run writes a new one', async () => {
      await runSending(55)
      const [first] = github.comments.get(55) ?? []
      github.model.deleteComment(first?.id ?? 0)
      const sent = await runSending(55)
      const [second] = github.comments.get(55) ?? []
      expect(second?.id).not.toBe(first?.id)
      expect(sent).toEqual([
        `GET ${comments(55)}`,
        `POST ${comments(55)}`,
        `PATCH /repos/owner/repo/issues/comments/${second?.id}`
      ])
    })
  })

  it('a 403 on comments: one warning, no further request, the verdict untouched', async () => {
    const r = await run(node, inputs('denied', { 'pr-comment': 'true' }), {
      ...env(forbidden),
      event: {
        name: 'pull_request',
        payload: { number: 17, pull_request: { number: 17, head: { sha: PR_HEAD } }, repository }
      }
    })
    expect(r.code, describeRun(r)).toBe(0)
    expect(r.outputs.result).toBe('SUCCESS')
    const warnings = commands(r.stdout, 'warning').map(c => c?.value ?? '')
    expect(warnings, describeRun(r)).toEqual([expect.stringContaining('`pull-requests: write`')])
    expect(warnings[0]).toContain('fork')
    expect(warnings[0]).not.toContain(GITHUB_TOKEN)
    expect(
      commentRequests(forbidden, 17).map(q => q.method),
      describeRun(r)
    ).toEqual(['GET', 'POST'])
    // The statuses are another permission: they still went.
    expect(statusShas(forbidden, 'jenkins/denied')).toEqual([PR_HEAD, PR_HEAD, PR_HEAD])
  })

  it('with jobs: a build whose artifacts cannot be written ends its status as error, with the reason', async () => {
    const ws = join(workspace, 'linked-ws')
    mkdirSync(ws)
    // Out of the step's workspace, inside the folder afterAll removes.
    mkdirSync(join(workspace, 'outside'))
    symlinkSync(join(workspace, 'outside'), join(ws, 'out'))
    const r = await run(
      node,
      {
        ...auth(jenkins),
        jobs: 'art-link',
        artifacts: '**',
        'artifacts-path': 'out/sub',
        'commit-status': 'true',
        'github-token': GITHUB_TOKEN
      },
      { env: { GITHUB_API_URL: github.url, GITHUB_WORKSPACE: ws } }
    )
    expect(r.code, describeRun(r)).toBe(1)
    const states = github.requests
      .filter(q => q.method === 'POST' && q.url.includes('/statuses/'))
      .map(q => JSON.parse(q.body) as { context: string; state: string; description: string })
      .filter(b => b.context === 'jenkins/art-link')
    expect(states.at(-1)?.state).toBe('error')
    expect(states.at(-1)?.description).toMatch(
      /^Input 'artifacts-path' .* leads out of the workspace/
    )
    expect(states.some(b => b.state === 'success')).toBe(false)
  })

  it('with jobs: one comment listing every build', async () => {
    const r = await run(
      node,
      {
        ...auth(jenkins),
        jobs: 'several-a\nseveral-b',
        'pr-comment': 'true',
        'github-token': GITHUB_TOKEN
      },
      {
        ...env(github),
        event: {
          name: 'pull_request',
          payload: { number: 43, pull_request: { number: 43, head: { sha: PR_HEAD } }, repository }
        }
      }
    )
    expect(r.code, describeRun(r)).toBe(1)
    const comments = github.comments.get(43) ?? []
    expect(comments).toHaveLength(1)
    const body = comments[0]?.body ?? ''
    expect(body).toMatch(/- ✅ \*\*SUCCESS\*\* \[`several-a`\]/)
    expect(body).toMatch(/- ❌ \*\*FAILURE\*\* \[`several-b`\]/)
    expect(r.outputs.commit).toBe(PR_HEAD)
  })

  it('with jobs, a token that may not set statuses: one warning for the step, the verdict untouched', async () => {
    const r = await run(
      node,
      {
        ...auth(jenkins),
        jobs: 'several-a\nev-push',
        'commit-status': 'true',
        'github-token': GITHUB_TOKEN
      },
      {
        ...env(noStatuses),
        event: {
          name: 'pull_request',
          payload: { number: 47, pull_request: { number: 47, head: { sha: PR_HEAD } }, repository }
        }
      }
    )
    expect(r.code, describeRun(r)).toBe(0)
    const warnings = commands(r.stdout, 'warning').map(c => c?.value ?? '')
    expect(warnings, describeRun(r)).toEqual([expect.stringContaining('statuses: write')])
    // The first refusal closed the gate for every build of the step.
    expect(noStatuses.requests.filter(q => q.url.includes('/statuses/'))).toHaveLength(1)
  })
})
