/**
 * End to end: the job summary, the pull request's commit status (against a
 * local stand-in for the GitHub API), and the post step after a normal run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startJenkins, type TestJenkins } from '../../test-server/index.js'
import {
  auth,
  commands,
  describeRun,
  run,
  RUNTIMES,
  startLocalServer,
  type LocalServer
} from './helpers.js'

const HEAD_SHA = 'a'.repeat(40)
const MERGE_SHA = 'b'.repeat(40)
const GITHUB_TOKEN = 'ghs_e2eTestToken0123456789abcdef'
const SECRET_VALUE = 'hunter2-do-not-show'

interface StatusPost {
  sha: string
  authorization: string | undefined
  state: string
  context: string
  target_url?: string
  description: string
}

describe.each(RUNTIMES)('summary, commit status and post step ($name)', ({ path: node }) => {
  let jenkins: TestJenkins
  let github: LocalServer
  let forbidden: LocalServer
  beforeAll(async () => {
    jenkins = await startJenkins({
      quietPeriodSec: 0,
      executors: 4,
      jobs: {
        'with-tests': {
          script: {
            durationMs: 200,
            result: 'UNSTABLE',
            tests: { total: 12, failed: 2, skipped: 1 },
            consoleLines: ['Tests run: 12, Failures: 2, Skipped: 1']
          }
        },
        deploy: {
          parameters: [
            { name: 'ENV', type: 'string' },
            { name: 'SECRET', type: 'password' },
            { name: 'DEPLOY_TOKEN', type: 'string' }
          ],
          script: { durationMs: 150 }
        },
        'no-summary': { script: { durationMs: 100 } },
        'status-ok': { script: { durationMs: 150 } },
        'status-fail': { script: { durationMs: 150, result: 'FAILURE' } },
        'status-denied': { script: { durationMs: 150 } },
        'status-timeout': { script: { durationMs: 20_000 } },
        'post-step': { script: { durationMs: 100 } }
      }
    })
    github = await startLocalServer((req, res) => {
      res.writeHead(201, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ id: 1, state: (JSON.parse(req.body || '{}') as StatusPost).state }))
    })
    forbidden = await startLocalServer((_req, res) => {
      res.writeHead(403, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          message: 'Resource not accessible by integration',
          documentation_url: 'https://docs.github.com/rest/commits/statuses'
        })
      )
    })
  })
  afterAll(async () => {
    await jenkins.close()
    await github.close()
    await forbidden.close()
  })

  /** The statuses posted for one context, in order. */
  function statuses(server: LocalServer, context: string): StatusPost[] {
    return server.requests
      .filter(q => q.method === 'POST')
      .map(q => {
        const match = /^\/repos\/owner\/repo\/statuses\/([0-9a-f]+)$/.exec(q.url)
        return {
          sha: match?.[1] ?? `unexpected URL ${q.url}`,
          authorization: q.headers.authorization,
          ...(JSON.parse(q.body) as Omit<StatusPost, 'sha' | 'authorization'>)
        }
      })
      .filter(s => s.context === context)
  }

  describe.concurrent('job summary', () => {
    it('has the job, build link, result, duration, queue wait and test counts', async () => {
      const r = await run(node, {
        ...auth(jenkins),
        job: 'with-tests',
        accept: 'SUCCESS,UNSTABLE'
      })
      expect(r.code, describeRun(r)).toBe(0)
      const s = r.summary
      expect(s).toContain(`<a href="${jenkins.url}/job/with-tests/">with-tests</a>`)
      expect(s).toContain(
        `<a href="${r.outputs['build-url']}">&#35;${r.outputs['build-number']}</a>`
      )
      expect(s).toMatch(/<th>Result<\/th><td>⚠️ UNSTABLE \(accepted\)<\/td>/)
      expect(s).toMatch(/<th>Duration<\/th><td>\d+ ms<\/td>/)
      expect(s).toMatch(/<th>Queue wait<\/th><td>\d+ ms<\/td>/)
      expect(s).toContain('<th>Tests</th><td>12 total / 2 failed / 1 skipped</td>')
    })

    it('lists the parameters, hiding password-like values', async () => {
      const r = await run(node, {
        ...auth(jenkins),
        job: 'deploy',
        parameters: JSON.stringify({
          ENV: 'staging',
          SECRET: SECRET_VALUE,
          DEPLOY_TOKEN: `${SECRET_VALUE}-2`
        })
      })
      expect(r.code, describeRun(r)).toBe(0)
      expect(jenkins.builds('deploy')[0]?.parameters.SECRET).toBe(SECRET_VALUE)
      expect(r.summary).toContain('<h3>Parameters</h3>')
      expect(r.summary).toContain('<tr><td><code>ENV</code></td><td>staging</td></tr>')
      expect(r.summary).toContain('<tr><td><code>SECRET</code></td><td>***</td></tr>')
      expect(r.summary).toContain('<tr><td><code>DEPLOY&#95;TOKEN</code></td><td>***</td></tr>')
      expect(r.summary).not.toContain(SECRET_VALUE)
    })

    it('without GITHUB_STEP_SUMMARY warns and still passes', async () => {
      const r = await run(node, { ...auth(jenkins), job: 'no-summary' }, { noSummary: true })
      expect(r.code, describeRun(r)).toBe(0)
      expect(r.outputs.result).toBe('SUCCESS')
      const warnings = commands(r.stdout, 'warning').map(c => c?.value)
      expect(warnings).toEqual([expect.stringMatching(/Could not write the job summary/)])
    })
  })

  describe.concurrent('commit status', () => {
    it('posts pending with the build URL, then success, on the PR head commit', async () => {
      const r = await run(
        node,
        {
          ...auth(jenkins),
          job: 'status-ok',
          'commit-status': 'true',
          'github-token': GITHUB_TOKEN
        },
        { env: { GITHUB_API_URL: github.url } }
      )
      expect(r.code, describeRun(r)).toBe(0)
      const posted = statuses(github, 'jenkins/status-ok')
      expect(posted.map(p => [p.state, p.description])).toEqual([
        ['pending', 'Queued in Jenkins'],
        ['pending', `Jenkins build #${r.outputs['build-number']} running`],
        ['success', `Jenkins #${r.outputs['build-number']}: SUCCESS`]
      ])
      // Queued: the queue item's page, until the build is known.
      expect(posted.map(p => p.target_url)).toEqual([
        r.outputs['queue-url'],
        r.outputs['build-url'],
        r.outputs['build-url']
      ])
      for (const p of posted) {
        expect(p.sha).toBe(HEAD_SHA)
        expect(p.sha).not.toBe(MERGE_SHA)
        expect(p.authorization).toMatch(new RegExp(`^(token|Bearer) ${GITHUB_TOKEN}$`))
      }
      const leaks = r.stdout
        .split('\n')
        .filter(l => l.includes(GITHUB_TOKEN) && !l.startsWith('::add-mask::'))
      expect(leaks).toEqual([])
    })

    it('posts failure for a failed build, under status-context', async () => {
      const r = await run(
        node,
        {
          ...auth(jenkins),
          job: 'status-fail',
          'commit-status': 'true',
          'github-token': GITHUB_TOKEN,
          'status-context': 'ci/jenkins-custom'
        },
        { env: { GITHUB_API_URL: github.url } }
      )
      expect(r.code, describeRun(r)).toBe(1)
      expect(statuses(github, 'jenkins/status-fail')).toEqual([])
      const posted = statuses(github, 'ci/jenkins-custom')
      expect(posted.map(p => p.state)).toEqual(['pending', 'pending', 'failure'])
      expect(posted.every(p => p.sha === HEAD_SHA)).toBe(true)
      expect(posted[2]?.target_url).toBe(r.outputs['build-url'])
    })

    it('posts error, not a pending left forever, when the step times out', async () => {
      const r = await run(
        node,
        {
          ...auth(jenkins),
          job: 'status-timeout',
          timeout: '1',
          'commit-status': 'true',
          'github-token': GITHUB_TOKEN
        },
        { env: { GITHUB_API_URL: github.url } }
      )
      expect(r.code, describeRun(r)).toBe(1)
      const posted = statuses(github, 'jenkins/status-timeout')
      // A pending status still in flight at the timeout is cut with the
      // step's other requests (on a busy machine it may not have gone out):
      // what counts is that the last one is the error, after the pending ones
      // (queued, then running) that went out.
      const last = posted.at(-1)
      expect(
        posted.slice(0, -1).map(p => p.state),
        describeRun(r)
      ).toEqual(posted.slice(0, -1).map(() => 'pending'))
      expect(last?.state).toBe('error')
      expect(last?.description).toBe('Timed out waiting for Jenkins')
      if (posted.length === 3) expect(last?.target_url).toBe(posted[1]?.target_url)
    })

    it('a 403 from GitHub warns about statuses: write and leaves the result alone', async () => {
      const r = await run(
        node,
        {
          ...auth(jenkins),
          job: 'status-denied',
          'commit-status': 'true',
          'github-token': GITHUB_TOKEN
        },
        { env: { GITHUB_API_URL: forbidden.url } }
      )
      expect(r.code, describeRun(r)).toBe(0)
      expect(r.outputs.result).toBe('SUCCESS')
      const warnings = commands(r.stdout, 'warning').map(c => c?.value ?? '')
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toContain('statuses: write')
      expect(warnings[0]).toContain('403')
      expect(warnings[0]).not.toContain(GITHUB_TOKEN)
      // Told once, then no more tries.
      expect(forbidden.requests.filter(q => q.method === 'POST')).toHaveLength(1)
    })
  })

  it('the post step after a normal run does nothing, says so and passes', async () => {
    const main = await run(node, { ...auth(jenkins), job: 'post-step' })
    expect(main.code, describeRun(main)).toBe(0)
    expect(Object.keys(main.state).length).toBeGreaterThan(0)
    const before = jenkins.requests.filter(q => q.job === 'post-step').length
    const post = await run(node, { ...auth(jenkins), job: 'post-step' }, { state: main.state })
    expect(post.code, describeRun(post)).toBe(0)
    expect(jenkins.requests.filter(q => q.job === 'post-step')).toHaveLength(before)
    expect(commands(post.stdout).filter(c => c?.name !== 'add-mask')).toEqual([])
    expect(post.stdout.trim().split('\n')).toEqual([
      'Post step: nothing to stop; the main step finished and left nothing for it.'
    ])
    expect(post.outputs).toEqual({})
    expect(jenkins.builds('post-step')).toHaveLength(1)
  })
})
