/**
 * End to end: where the reports go for each event that starts a run
 * (commit statuses and the pull request comment, against a local stand-in
 * for the GitHub API with real HTTP), the event written to
 * GITHUB_EVENT_PATH as the runner writes it.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import type { ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startJenkins, type TestJenkins } from '../../test-server/index.js'
import {
  auth,
  commands,
  describeRun,
  run,
  RUNTIMES,
  startLocalServer,
  type LocalServer,
  type RecordedRequest
} from './helpers.js'

const GITHUB_SHA = 'b'.repeat(40)
const PR_HEAD = 'c'.repeat(40)
const RUN_HEAD = 'd'.repeat(40)
const QUEUE_HEAD = 'e'.repeat(40)
const GITHUB_TOKEN = 'ghs_prReportsToken0123456789abcdef'
const repository = { id: 1, name: 'repo', owner: { login: 'owner' } }

/**
 * The part of the GitHub REST API the reports use, with state: statuses,
 * pull requests (their heads), and issue comments, 100 a page with a Link
 * header as GitHub sends it. `forbid` answers 403 to writing a comment, or a status.
 */
interface GithubStandIn extends LocalServer {
  comments: Map<number, Array<{ id: number; body: string }>>
  heads: Map<number, string>
}

async function startGithub(forbid?: 'comments' | 'statuses'): Promise<GithubStandIn> {
  const comments = new Map<number, Array<{ id: number; body: string }>>()
  const heads = new Map<number, string>()
  let nextId = 100
  const json = (res: ServerResponse, status: number, body: unknown, headers = {}): void => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers })
    res.end(JSON.stringify(body))
  }
  const server = await startLocalServer((req: RecordedRequest, res) => {
    const url = new URL(req.url, 'http://github.test')
    const path = url.pathname
    let m: RegExpExecArray | null
    if (req.method === 'POST' && /^\/repos\/owner\/repo\/statuses\/[0-9a-f]+$/.test(path)) {
      if (forbid === 'statuses')
        return json(res, 403, { message: 'Resource not accessible by integration' })
      return json(res, 201, { id: 1 })
    }
    if (req.method === 'GET' && (m = /^\/repos\/owner\/repo\/pulls\/(\d+)$/.exec(path))) {
      const head = heads.get(Number(m[1]))
      return head
        ? json(res, 200, { number: Number(m[1]), head: { sha: head } })
        : json(res, 404, { message: 'Not Found' })
    }
    if ((m = /^\/repos\/owner\/repo\/issues\/(\d+)\/comments$/.exec(path))) {
      const list = comments.get(Number(m[1])) ?? []
      comments.set(Number(m[1]), list)
      if (req.method === 'GET') {
        const page = Number(url.searchParams.get('page') ?? '1')
        const last = Math.max(1, Math.ceil(list.length / 100))
        const link = `<${server.url}${path}?per_page=100&page=${last}>; rel="last"`
        return json(res, 200, list.slice((page - 1) * 100, page * 100), { link })
      }
      if (forbid === 'comments')
        return json(res, 403, { message: 'Resource not accessible by integration' })
      const comment = { id: nextId++, body: (JSON.parse(req.body) as { body: string }).body }
      list.push(comment)
      return json(res, 201, comment)
    }
    if (
      req.method === 'PATCH' &&
      (m = /^\/repos\/owner\/repo\/issues\/comments\/(\d+)$/.exec(path))
    ) {
      if (forbid === 'comments')
        return json(res, 403, { message: 'Resource not accessible by integration' })
      const comment = [...comments.values()].flat().find(c => c.id === Number(m?.[1]))
      if (!comment) return json(res, 404, { message: 'Not Found' })
      comment.body = (JSON.parse(req.body) as { body: string }).body
      return json(res, 200, comment)
    }
    json(res, 404, { message: `no route for ${req.method} ${path}` })
  })
  return Object.assign(server, { comments, heads })
}

/** The commits the statuses of one context went to, in order. */
function statusShas(server: LocalServer, context: string): string[] {
  return server.requests
    .filter(q => q.method === 'POST' && q.url.includes('/statuses/'))
    .filter(q => (JSON.parse(q.body) as { context: string }).context === context)
    .map(q => /\/statuses\/([0-9a-f]+)$/.exec(q.url)?.[1] ?? q.url)
}

/** The requests about the comments of pull request `number` (its updates by the ids it holds). */
function commentRequests(server: GithubStandIn, number: number): RecordedRequest[] {
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
        'several-a': quick,
        'art-link': { script: { durationMs: 100, artifacts: [{ path: 'a.txt', content: 'a' }] } },
        'several-b': { script: { durationMs: 150, result: 'FAILURE' } }
      }
    })
    workspace = mkdtempSync(join(tmpdir(), 'e2e-pr-links-'))
    github = await startGithub()
    forbidden = await startGithub('comments')
    noStatuses = await startGithub('statuses')
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

  const env = (server: LocalServer) => ({ env: { GITHUB_API_URL: server.url } })

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
      expect(statusShas(github, 'jenkins/ev-pr')).toEqual([PR_HEAD, PR_HEAD])
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
      expect(statusShas(github, 'jenkins/ev-run')).toEqual([RUN_HEAD, RUN_HEAD])
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
      expect(statusShas(github, 'ci/fork')).toEqual([RUN_HEAD, RUN_HEAD])
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
      expect(statusShas(github, 'jenkins/ev-queue')).toEqual([QUEUE_HEAD, QUEUE_HEAD])
    })

    it('push: GITHUB_SHA', async () => {
      const r = await run(node, inputs('ev-push'), {
        ...env(github),
        event: { name: 'push', payload: { after: GITHUB_SHA, repository } }
      })
      expect(r.code, describeRun(r)).toBe(0)
      expect(statusShas(github, 'jenkins/ev-push')).toEqual([GITHUB_SHA, GITHUB_SHA])
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
    expect(statusShas(forbidden, 'jenkins/denied')).toEqual([PR_HEAD, PR_HEAD])
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
