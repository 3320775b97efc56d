/**
 * End to end: a Jenkins whose builds echo every secret of the step
 * (test server option `hostile.echoTrigger`: the password, the job token,
 * an extra header's value, the session cookie and the crumb of the trigger,
 * and the parameters' values, one of which is the github-token) in their
 * description, display name, a parameter value, stage names, test names and
 * console, and that exports a password parameter's value. No secret may
 * reach any text the step writes outside the log: the job summary, the pull
 * request comment, the commit status descriptions, annotations (titles and
 * messages, warnings and the failure included); the password never reaches
 * an output; the other outputs are Jenkins' data as it came.
 */
import { randomBytes } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { node24, type ActionRun } from '../../scripts/action-runner.js'
import { startJenkins, type JobSpec, type TestJenkins } from '../../test-server/index.js'
import {
  commands,
  describeRun,
  run,
  startLocalServer,
  type LocalServer,
  type RecordedRequest
} from './helpers.js'

const NODE24 = node24()
const hex = (): string => randomBytes(12).toString('hex')
const PASSWORD = `pw-${hex()}`
const JOB_TOKEN = `jt-${hex()}`
const HEADER_VALUE = `hv-${hex()}`
const GITHUB_TOKEN = `ghs_${hex()}`
const DEPLOY_PASSWORD = `hunter2-${hex()}`
const PR_HEAD = 'c'.repeat(40)

/** A pipeline that fails in a stage, with failed tests: every field the reports show. */
const leaky = (): JobSpec => ({
  type: 'pipeline',
  authToken: JOB_TOKEN,
  parameters: [
    { name: 'NOTE', default: '' },
    { name: 'DEPLOY_PASSWORD', type: 'password', default: '' }
  ],
  script: {
    description: 'deploys the app',
    stages: [
      { name: 'Build', durationMs: 100, consoleLines: ['compiling'] },
      { name: 'Deploy', durationMs: 100, result: 'FAILURE', consoleLines: ['deploy failed'] }
    ],
    tests: {
      suites: [
        {
          name: 'suite',
          cases: [
            {
              className: 'app.DeployTest',
              name: 'rolls out',
              status: 'FAILED',
              errorDetails: 'no'
            },
            {
              className: 'app.DeployTest',
              name: 'rolls back',
              status: 'FAILED',
              errorDetails: 'no'
            }
          ]
        }
      ]
    }
  }
})

/** A stand-in for the GitHub API: statuses and one pull request's comments, recorded. */
async function startGithub(): Promise<LocalServer> {
  let nextId = 100
  const json = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(JSON.stringify(body))
  }
  return startLocalServer((req: RecordedRequest, res) => {
    const path = new URL(req.url, 'http://github.test').pathname
    if (req.method === 'POST' && path.startsWith('/repos/owner/repo/statuses/')) {
      return json(res, 201, { id: 1 })
    }
    if (path === '/repos/owner/repo/issues/17/comments') {
      return req.method === 'GET' ? json(res, 200, []) : json(res, 201, { id: nextId++ })
    }
    if (req.method === 'PATCH' && path.startsWith('/repos/owner/repo/issues/comments/')) {
      return json(res, 200, { id: Number(path.split('/').pop()) })
    }
    json(res, 404, { message: `no route for ${req.method} ${path}` })
  })
}

/** The 8-character pieces of `secret` found in `text`: a secret, or a part a cut left of it, shown. */
function piecesIn(text: string, secret: string): string[] {
  const found = new Set<string>()
  for (let i = 0; i + 8 <= secret.length; i++) {
    const piece = secret.slice(i, i + 8)
    if (text.includes(piece)) found.add(piece)
  }
  return [...found]
}

/** What one run wrote outside its log, by surface. */
interface Surfaces {
  summary: string
  comment: string[]
  statuses: string[]
  annotations: string[]
}

function surfaces(r: ActionRun, github: LocalServer, since: number): Surfaces {
  const sent = github.requests.slice(since)
  const bodies = (match: (q: RecordedRequest) => boolean, field: string): string[] =>
    sent.filter(match).map(q => String((JSON.parse(q.body) as Record<string, unknown>)[field]))
  return {
    summary: r.summary,
    comment: bodies(q => q.method !== 'GET' && q.url.includes('/comments'), 'body'),
    statuses: bodies(q => q.url.includes('/statuses/'), 'description'),
    // Every annotation command with its properties (the title): error, warning, notice.
    annotations: commands(r.stdout)
      .filter(c => ['error', 'warning', 'notice'].includes(c.name))
      .map(c => `${c.properties} :: ${c.value}`)
  }
}

describe('secrets a hostile Jenkins echoes into every field a report shows', () => {
  let jenkins: TestJenkins
  let github: LocalServer
  beforeAll(async () => {
    jenkins = await startJenkins({
      quietPeriodSec: 0,
      executors: 4,
      users: [{ name: 'deployer', password: PASSWORD, permissions: ['read', 'build', 'cancel'] }],
      hostile: {
        text: '',
        echoTrigger: ['description', 'displayName', 'parameter', 'stage', 'test', 'console'],
        passwordValues: 'exported'
      },
      jobs: { leaky: leaky(), 'leaky-a': leaky(), 'leaky-b': leaky() }
    })
    github = await startGithub()
  })
  afterAll(async () => {
    await jenkins.close()
    await github.close()
  })

  const inputs = {
    user: 'deployer',
    token: PASSWORD,
    'job-token': JOB_TOKEN,
    headers: `X-Proxy-Key: ${HEADER_VALUE}`,
    'github-token': GITHUB_TOKEN,
    parameters: `NOTE=${GITHUB_TOKEN}\nDEPLOY_PASSWORD=${DEPLOY_PASSWORD}`,
    'commit-status': 'true',
    'pr-comment': 'true'
  }
  const options = () => ({
    env: { GITHUB_API_URL: github.url },
    event: {
      name: 'pull_request',
      payload: {
        number: 17,
        pull_request: { number: 17, head: { sha: PR_HEAD } },
        repository: { name: 'repo', owner: { login: 'owner' } }
      }
    },
    killAfterMs: 90_000
  })

  /** Runs the step; its secrets (those Jenkins handed over during it included) and what it wrote. */
  async function runStep(
    extra: Record<string, string>
  ): Promise<{ r: ActionRun; secrets: Record<string, string>; out: Surfaces }> {
    const [crumbs, sessions] = [jenkins.issuedCrumbs.length, jenkins.issuedSessions.length]
    const since = github.requests.length
    const r = await run(NODE24, { url: jenkins.url, ...inputs, ...extra }, options())
    expect(r.code, describeRun(r)).toBe(1)
    const given = [...jenkins.issuedCrumbs.slice(crumbs), ...jenkins.issuedSessions.slice(sessions)]
    expect(given.length, 'a crumb and a session were handed over').toBeGreaterThanOrEqual(2)
    const secrets: Record<string, string> = {
      token: PASSWORD,
      'job-token': JOB_TOKEN,
      'header value': HEADER_VALUE,
      'github-token': GITHUB_TOKEN,
      ...Object.fromEntries(given.map((value, i) => [`handed over ${i}`, value]))
    }
    return { r, secrets, out: surfaces(r, github, since) }
  }

  /** No piece of any secret on any surface, and each surface really showed the echo (redacted). */
  function expectRedacted(out: Surfaces, secrets: Record<string, string>): void {
    const texts: Array<[string, string]> = [
      ['summary', out.summary],
      ...out.comment.map((body, i): [string, string] => [`comment ${i}`, body]),
      ...out.statuses.map((d, i): [string, string] => [`status description ${i}`, d]),
      ...out.annotations.map((a, i): [string, string] => [`annotation ${i}`, a])
    ]
    for (const [surface, text] of texts) {
      for (const [name, secret] of Object.entries(secrets)) {
        expect(piecesIn(text, secret), `${name} in the ${surface}: ${text}`).toEqual([])
      }
      expect(text, surface).not.toContain(DEPLOY_PASSWORD)
    }
    // The echo reached each surface that shows Jenkins text, its secrets taken out.
    expect(out.summary).toContain('echo: ***')
    expect(out.comment.length).toBeGreaterThan(0)
    expect(out.comment.at(-1)).toContain('echo: ***')
    expect(out.statuses.length).toBeGreaterThan(0)
    expect(out.annotations.filter(a => a.includes('echo: ***')).length).toBeGreaterThan(0)
  }

  it('job: the summary, the comment, the statuses and the annotations show no secret; outputs are as Jenkins sent them, but for the password', async () => {
    const { r, secrets, out } = await runStep({ job: 'leaky' })
    expectRedacted(out, secrets)
    // Failed tests' annotations are titled with the echoed names, and the failure quotes the echoed stage.
    const errors = commands(r.stdout, 'error').map(c => `${c.properties} :: ${c.value}`)
    // (':' is escaped in a property as %3A.)
    expect(errors.filter(e => e.startsWith('title=echo%3A ***'))).toHaveLength(2)
    expect(errors.at(-1)).toContain("in stage 'echo: ***")
    // The summary's parameter table cuts the echoed value at 200 characters, inside
    // the github-token (about 12 of its characters in): that part goes too.
    expect(out.summary).toMatch(/NOTE<\/code><\/td><td>echo: (\*\*\* ){5}\*\*\*…<\/td>/)

    // Outputs: Jenkins' data as it came (the runner masks registered secrets where one is printed)...
    expect(r.outputs.description).toContain(JOB_TOKEN)
    expect(r.outputs['display-name']).toContain(GITHUB_TOKEN)
    // ...but a password parameter is never there, whatever Jenkins sent.
    const parameters = JSON.parse(r.outputs['build-parameters'] ?? '') as Record<string, unknown>
    expect(Object.keys(parameters)).toEqual(['NOTE'])
    for (const [name, value] of Object.entries(r.outputs)) {
      expect(value, `output ${name}`).not.toContain(DEPLOY_PASSWORD)
    }
    expect(jenkins.builds('leaky')[0]?.parameters.DEPLOY_PASSWORD).toBe(DEPLOY_PASSWORD)
  }, 120_000)

  it('jobs: the same, with a password Jenkins sends as a plain string (its definition says password)', async () => {
    jenkins.setHostile({
      text: '',
      echoTrigger: ['description', 'displayName', 'parameter', 'stage', 'test', 'console'],
      passwordValues: 'as-string'
    })
    const { r, secrets, out } = await runStep({ jobs: 'leaky-a\nleaky-b' })
    expectRedacted(out, secrets)
    const builds = JSON.parse(r.outputs.builds ?? '') as Array<{
      parameters: Record<string, unknown>
      description: string
    }>
    expect(builds.map(b => Object.keys(b.parameters))).toEqual([['NOTE'], ['NOTE']])
    expect(builds[0]?.description).toContain(HEADER_VALUE)
    for (const [name, value] of Object.entries(r.outputs)) {
      expect(value, `output ${name}`).not.toContain(DEPLOY_PASSWORD)
    }
  }, 120_000)
})
