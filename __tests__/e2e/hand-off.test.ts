/**
 * End to end: the hand-off (`wait: false` with `commit-status`) and the
 * settle run that completes it later, the bundle run as the runner runs
 * it, against the test server and a stand-in for GitHub's API with state.
 * Each test has a GitHub stand-in of its own (a settle run reads every open
 * pull request of the repository), and asserts the requests its runs made.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  startGithub,
  startJenkins,
  type GithubRequest,
  type GithubStandIn,
  type TestJenkins
} from '../../test-server/index.js'
import { commandData } from '../../src/cli/workflow-commands.js'
import { adminPost, auth, commands, describeRun, run, untilServer } from './helpers.js'
import { node24 } from '../../scripts/action-runner.js'

const NODE24 = node24()
const TOKEN = 'ghs_handOffToken0123456789abcdef'
const repository = { id: 1, name: 'repo', owner: { login: 'owner' } }
const SCHEDULE = { name: 'schedule', payload: { schedule: '*/5 * * * *', repository } }
const sha = (n: number): string => n.toString(16).padStart(40, 'a')

interface Status {
  state: string
  context: string
  description: string | null
  target_url: string | null
  creator: { login: string }
}

/** The calls a run made of the stand-in, by route: `GET /search/issues`, `POST statuses`, … */
function calls(requests: readonly GithubRequest[]): string[] {
  return requests.map(q => `${q.method} ${q.url.replace(/\?.*$/, '')}`)
}

describe('hand off, then settle', () => {
  let jenkins: TestJenkins
  /** Jenkins forgets a queue item 300 ms after it left the queue. */
  let forgetful: TestJenkins
  /** No executor: every item stays in the queue. */
  let stuck: TestJenkins
  const githubs: GithubStandIn[] = []

  beforeAll(async () => {
    const quick = (result?: 'FAILURE' | 'UNSTABLE') => ({
      script: { durationMs: 200, ...(result ? { result } : {}) }
    })
    jenkins = await startJenkins({
      quietPeriodSec: 0,
      executors: 8,
      jobs: {
        'ho-ok': quick(),
        'ho-fail': quick('FAILURE'),
        'ho-unstable': quick('UNSTABLE'),
        'ho-slow': { script: { durationMs: 120_000 } },
        'ho-beside': quick(),
        'ho-twice': quick(),
        'ho-limit-a': quick(),
        'ho-limit-b': quick(),
        'ho-comment': quick('FAILURE'),
        'ho-started': { script: { durationMs: 1500 } },
        'ho-a': quick(),
        'ho-b': quick('FAILURE')
      }
    })
    forgetful = await startJenkins({
      quietPeriodSec: 0,
      leftItemTtlMs: 300,
      jobs: { 'ho-forgotten': quick() }
    })
    stuck = await startJenkins({ quietPeriodSec: 0, executors: 0, jobs: { 'ho-cancelled': {} } })
  })
  afterAll(async () => {
    await Promise.all([jenkins, forgetful, stuck].map(server => server.close()))
    await Promise.all(githubs.map(server => server.close()))
  })

  async function github(): Promise<GithubStandIn> {
    const server = await startGithub()
    githubs.push(server)
    return server
  }

  /** The pull request's workflow: triggers `job` and hands it off on pull request `number`'s head. */
  async function handOff(
    server: GithubStandIn,
    on: TestJenkins,
    job: string,
    number: number,
    extra: Record<string, string> = {}
  ) {
    server.heads.set(number, sha(number))
    const r = await run(
      NODE24,
      {
        ...auth(on),
        job,
        wait: 'false',
        'commit-status': 'true',
        'github-token': TOKEN,
        ...extra
      },
      {
        env: { GITHUB_API_URL: server.url },
        event: {
          name: 'pull_request',
          payload: {
            number,
            pull_request: { number, head: { sha: sha(number) } },
            repository
          }
        }
      }
    )
    expect(r.code, describeRun(r)).toBe(0)
    const queueId = Number(/\/queue\/item\/(\d+)\/$/.exec(r.outputs['queue-url'] ?? '')?.[1])
    return { r, queueId }
  }

  /** The settle workflow's step, on a schedule. */
  async function settle(
    server: GithubStandIn,
    on: TestJenkins | { url: string; user: string; token: string },
    extra: Record<string, string> = {}
  ) {
    const github = server.requests.length
    const credentials = 'requests' in on ? auth(on) : on
    const jenkinsBefore = 'requests' in on ? on.requests.length : 0
    const r = await run(
      NODE24,
      { ...credentials, settle: 'true', 'github-token': TOKEN, ...extra },
      { env: { GITHUB_API_URL: server.url, GITHUB_RUN_NUMBER: '2' }, event: SCHEDULE }
    )
    return {
      r,
      github: server.requests.slice(github),
      jenkins: 'requests' in on ? on.requests.slice(jenkinsBefore) : [],
      settled: JSON.parse(r.outputs.settled ?? 'null') as Array<Record<string, unknown>>
    }
  }

  /** The statuses of the commit, oldest first. */
  function statuses(server: GithubStandIn, number: number): Status[] {
    return server.model.statuses.filter(s => s.sha === sha(number)) as Status[]
  }

  async function ended(on: TestJenkins, job: string): Promise<void> {
    await untilServer(
      () => (on.builds(job)[0]?.building === false ? true : undefined),
      `the end of ${job}`
    )
  }

  it('hands off one pending status, then settles success, failure and unstable by accept', async () => {
    const server = await github()
    const jobs = ['ho-ok', 'ho-fail', 'ho-unstable'] as const
    const queued = await Promise.all(jobs.map((job, i) => handOff(server, jenkins, job, i + 1)))
    for (const [i, job] of jobs.entries()) {
      // One status: the hand-off, linked to the job's page (a queue item's 404s after 5 minutes).
      expect(statuses(server, i + 1)).toMatchObject([
        {
          state: 'pending',
          context: `jenkins/${job}`,
          description: `Handed off to Jenkins: queue item ${queued[i]?.queueId}`,
          target_url: `${jenkins.url}/job/${job}/`,
          creator: { login: 'github-actions[bot]' }
        }
      ])
      expect(queued[i]?.r.outputs.result).toBeUndefined()
    }
    await Promise.all(jobs.map(job => ended(jenkins, job)))
    const s = await settle(server, jenkins, { accept: 'SUCCESS,UNSTABLE' })
    expect(s.r.code, describeRun(s.r)).toBe(0)
    const expected = [
      ['ho-ok', 'SUCCESS', 'success'],
      ['ho-fail', 'FAILURE', 'failure'],
      ['ho-unstable', 'UNSTABLE', 'success']
    ] as const
    expect(s.settled).toEqual(
      expected.map(([job, result, state], i) => ({
        commit: sha(i + 1),
        context: `jenkins/${job}`,
        job,
        'build-url': `${jenkins.url}/job/${job}/1/`,
        result,
        state
      }))
    )
    for (const [i, [job, result, state]] of expected.entries()) {
      expect(statuses(server, i + 1).at(-1)).toMatchObject({
        state,
        context: `jenkins/${job}`,
        description: `Jenkins #1: ${result}`,
        target_url: `${jenkins.url}/job/${job}/1/`
      })
      expect(statuses(server, i + 1)).toHaveLength(2)
    }
    // Two searches, the identity once, each pull request's head and statuses, then each status read again and written.
    const perPull = (n: number) => [
      `GET /repos/owner/repo/pulls/${n}`,
      `GET /repos/owner/repo/commits/${sha(n)}/statuses`
    ]
    const again = (n: number) => [
      `GET /repos/owner/repo/commits/${sha(n)}/statuses`,
      `POST /repos/owner/repo/statuses/${sha(n)}`
    ]
    expect(calls(s.github).sort()).toEqual(
      [
        'GET /search/issues',
        'GET /search/issues',
        'GET /user',
        ...perPull(1),
        ...perPull(2),
        ...perPull(3),
        ...again(1),
        ...again(2),
        ...again(3)
      ].sort()
    )
    // Jenkins is read, never written to.
    expect(s.jenkins.filter(q => q.method !== 'GET')).toEqual([])
    expect(s.r.summary).toContain('ho-unstable')
    // Settled once: a second run writes nothing and reads nothing of Jenkins. The failed
    // pull request is found again by status:failure (where a hand-off can hide), and read.
    const again2 = await settle(server, jenkins)
    expect(again2.settled).toEqual([])
    expect(calls(again2.github)).toEqual([
      'GET /search/issues',
      'GET /search/issues',
      ...perPull(2)
    ])
    expect(again2.jenkins).toEqual([])
  })

  it('writes nothing while the build runs, in 2 Jenkins requests', async () => {
    const server = await github()
    const { queueId } = await handOff(server, jenkins, 'ho-slow', 7)
    await untilServer(() => jenkins.builds('ho-slow')[0], 'the start of ho-slow')
    const s = await settle(server, jenkins)
    expect(s.r.code, describeRun(s.r)).toBe(0)
    expect(s.settled).toEqual([])
    expect(statuses(server, 7)).toHaveLength(1)
    expect(s.github.filter(q => q.method !== 'GET')).toEqual([])
    expect(s.jenkins.map(q => q.path)).toEqual([
      `/queue/item/${queueId}/api/json`,
      '/job/ho-slow/1/api/json'
    ])
    expect(s.r.stdout).toContain('Jenkins build ho-slow #1 is still running; nothing written.')
  })

  it("finds a hand-off beside another context's failure", async () => {
    const server = await github()
    await handOff(server, jenkins, 'ho-beside', 8)
    server.model.addStatus(sha(8), 'lint-app[bot]', {
      state: 'failure',
      context: 'lint',
      description: 'lint failed',
      target_url: null
    })
    await ended(jenkins, 'ho-beside')
    const s = await settle(server, jenkins)
    expect(s.r.code, describeRun(s.r)).toBe(0)
    expect(s.settled).toMatchObject([{ context: 'jenkins/ho-beside', state: 'success' }])
    expect(statuses(server, 8).at(-1)).toMatchObject({
      context: 'jenkins/ho-beside',
      state: 'success'
    })
  })

  it('settles a forgotten queue item by its queue id among the job’s builds', async () => {
    const server = await github()
    const { queueId } = await handOff(server, forgetful, 'ho-forgotten', 9)
    await ended(forgetful, 'ho-forgotten')
    // Past the left item's 300 ms: Jenkins answers 404 for it.
    await new Promise(resolve => setTimeout(resolve, 600))
    const s = await settle(server, forgetful)
    expect(s.r.code, describeRun(s.r)).toBe(0)
    expect(s.settled).toMatchObject([
      { context: 'jenkins/ho-forgotten', result: 'SUCCESS', state: 'success' }
    ])
    const [item, builds] = s.jenkins
    expect(item).toMatchObject({ path: `/queue/item/${queueId}/api/json`, status: 404 })
    expect(builds?.path).toBe('/job/ho-forgotten/api/json')
  })

  it('settles an item cancelled in Jenkins as error', async () => {
    const server = await github()
    const { queueId } = await handOff(server, stuck, 'ho-cancelled', 10)
    const res = await adminPost(stuck, `/queue/cancelItem?id=${queueId}`)
    expect(res.status).toBe(204)
    const s = await settle(server, stuck)
    expect(s.r.code, describeRun(s.r)).toBe(0)
    expect(s.settled).toEqual([
      {
        commit: sha(10),
        context: 'jenkins/ho-cancelled',
        job: 'ho-cancelled',
        'build-url': null,
        result: null,
        state: 'error'
      }
    ])
    expect(statuses(server, 10).at(-1)).toMatchObject({
      state: 'error',
      description: 'cancelled in Jenkins'
    })
    expect(s.jenkins.map(q => `${q.method} ${q.path}`)).toEqual([
      `GET /queue/item/${queueId}/api/json`
    ])
  })

  it("leaves another creator's hand-off and one on another host alone, asking nothing there", async () => {
    const server = await github()
    server.heads.set(11, sha(11))
    server.heads.set(12, sha(12))
    server.model.addStatus(sha(11), 'someone-else', {
      state: 'pending',
      context: 'jenkins/ho-ok',
      description: 'Handed off to Jenkins: queue item 1',
      target_url: `${jenkins.url}/job/ho-ok/`
    })
    server.model.addStatus(sha(12), 'github-actions[bot]', {
      state: 'pending',
      context: 'jenkins/elsewhere',
      description: 'Handed off to Jenkins: queue item 1',
      target_url: 'http://127.0.0.1:9/job/ho-ok/'
    })
    const s = await settle(server, jenkins)
    expect(s.r.code, describeRun(s.r)).toBe(0)
    expect(s.settled).toEqual([])
    expect(s.jenkins).toEqual([])
    expect(s.github.filter(q => q.method !== 'GET')).toEqual([])
    expect(statuses(server, 11)).toHaveLength(1)
    expect(statuses(server, 12)).toHaveLength(1)
  })

  it('two settle runs at once write the same final state', async () => {
    const server = await github()
    await handOff(server, jenkins, 'ho-twice', 13)
    await ended(jenkins, 'ho-twice')
    const [a, b] = await Promise.all([settle(server, jenkins), settle(server, jenkins)])
    expect(a?.r.code, describeRun(a.r)).toBe(0)
    expect(b?.r.code, describeRun(b.r)).toBe(0)
    const finals = statuses(server, 13).slice(1)
    expect(finals.length).toBeGreaterThanOrEqual(1)
    expect(finals.length).toBeLessThanOrEqual(2)
    for (const status of finals) {
      expect(status).toMatchObject({ state: 'success', description: 'Jenkins #1: SUCCESS' })
    }
  })

  it('reads at most 100 commits of 150 pending pull requests, and warns of the rest', async () => {
    const server = await github()
    for (let n = 1; n <= 150; n++) {
      server.heads.set(n, sha(1000 + n))
      server.model.addStatus(sha(1000 + n), 'other-ci[bot]', {
        state: 'pending',
        context: 'other-ci',
        description: 'running',
        target_url: null
      })
    }
    const s = await settle(server, jenkins)
    expect(s.r.code, describeRun(s.r)).toBe(0)
    expect(s.settled).toEqual([])
    expect(commands(s.r.stdout, 'warning').map(commandData)).toEqual([
      'Settle: 50 more commits with a pending or failing status were left for a later run (at most 100 are read a run; each run reads the next ones).'
    ])
    const names = calls(s.github)
    expect(names.filter(n => n === 'GET /search/issues')).toHaveLength(2)
    expect(names.filter(n => n.includes('/pulls/'))).toHaveLength(100)
    expect(names.filter(n => n.endsWith('/statuses'))).toHaveLength(100)
    expect(names).toHaveLength(202)
    expect(s.jenkins).toEqual([])
  })

  it('with nothing pending: the two searches, and no request to Jenkins', async () => {
    const server = await github()
    server.heads.set(1, sha(1))
    server.model.addStatus(sha(1), 'github-actions[bot]', {
      state: 'success',
      context: 'jenkins/ho-ok',
      description: 'Jenkins #1: SUCCESS',
      target_url: `${jenkins.url}/job/ho-ok/1/`
    })
    const s = await settle(server, jenkins)
    expect(s.r.code, describeRun(s.r)).toBe(0)
    expect(s.settled).toEqual([])
    expect(calls(s.github)).toEqual(['GET /search/issues', 'GET /search/issues'])
    expect(s.jenkins).toEqual([])
  })

  it('rewrites the pull request comment with the result when the settle step has pr-comment', async () => {
    const server = await github()
    await handOff(server, jenkins, 'ho-comment', 14, { 'pr-comment': 'true' })
    const [queuedComment] = server.comments.get(14) ?? []
    expect(queuedComment?.body).toContain('queued')
    await ended(jenkins, 'ho-comment')
    const s = await settle(server, jenkins, { 'pr-comment': 'true' })
    expect(s.r.code, describeRun(s.r)).toBe(0)
    expect(s.settled).toMatchObject([{ context: 'jenkins/ho-comment', state: 'failure' }])
    // The same comment, edited: the build's result where "queued" was.
    const comments = server.comments.get(14) ?? []
    expect(comments).toHaveLength(1)
    expect(comments[0]?.id).toBe(queuedComment?.id)
    expect(comments[0]?.body).toContain('FAILURE')
    expect(comments[0]?.body).not.toContain('queued')
    expect(s.github.filter(q => q.method === 'PATCH').map(q => q.url)).toEqual([
      `/repos/owner/repo/issues/comments/${queuedComment?.id}`
    ])
  })

  it('wait: started hands off with the build number, and is settled by it', async () => {
    const server = await github()
    const { r, queueId } = await handOff(server, jenkins, 'ho-started', 15, { wait: 'started' })
    expect(r.outputs['build-number']).toBe('1')
    expect(statuses(server, 15)).toMatchObject([
      { state: 'pending', description: 'Queued in Jenkins' },
      {
        state: 'pending',
        description: `Handed off to Jenkins: queue item ${queueId}, build #1`,
        target_url: `${jenkins.url}/job/ho-started/`
      }
    ])
    await ended(jenkins, 'ho-started')
    const s = await settle(server, jenkins)
    expect(s.r.code, describeRun(s.r)).toBe(0)
    expect(s.settled).toMatchObject([{ job: 'ho-started', result: 'SUCCESS', state: 'success' }])
    // The build by its number: no queue item read.
    expect(s.jenkins[0]?.path).toBe('/job/ho-started/1/api/json')
    expect(s.jenkins.some(q => q.path.startsWith('/queue/'))).toBe(false)
  })

  it("says GitHub's rate limit once for the settle step, across its hand-offs, and sends nothing more", async () => {
    const server = await github()
    await handOff(server, jenkins, 'ho-limit-a', 41)
    await handOff(server, jenkins, 'ho-limit-b', 42)
    await Promise.all(['ho-limit-a', 'ho-limit-b'].map(job => ended(jenkins, job)))
    server.aim({
      route: 'statuses.create',
      effect: { type: 'rate-limit', limit: 'secondary', status: 429, retryAfterSec: 3600 }
    })
    const s = await settle(server, jenkins)
    expect(s.r.code, describeRun(s.r)).toBe(0)
    // Both left pending for a later run; GitHub asked to stop sending: one write tried.
    expect(s.settled).toEqual([])
    expect(s.github.filter(q => q.method === 'POST')).toHaveLength(1)
    const limited = commands(s.r.stdout, 'warning')
      .map(commandData)
      .filter(text => text.includes("That is GitHub's rate limit for the github-token"))
    expect(limited).toHaveLength(1)
    expect(statuses(server, 41)).toHaveLength(1)
    expect(statuses(server, 42)).toHaveLength(1)
  })

  it('with jobs: one hand-off per item, each settled under its context', async () => {
    const server = await github()
    await handOff(server, jenkins, '', 16, { job: '', jobs: 'ho-a\nho-b' })
    const byContext = statuses(server, 16)
      .map(st => [st.context, st.state, st.target_url])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])))
    expect(byContext).toEqual([
      ['jenkins/ho-a', 'pending', `${jenkins.url}/job/ho-a/`],
      ['jenkins/ho-b', 'pending', `${jenkins.url}/job/ho-b/`]
    ])
    await Promise.all(['ho-a', 'ho-b'].map(job => ended(jenkins, job)))
    const s = await settle(server, jenkins, { 'status-context': 'jenkins/ho-b' })
    expect(s.r.code, describeRun(s.r)).toBe(0)
    // status-context picks one of them; the other stays pending for a run without it.
    expect(s.settled).toMatchObject([
      { context: 'jenkins/ho-b', result: 'FAILURE', state: 'failure' }
    ])
    const rest = await settle(server, jenkins)
    expect(rest.settled).toMatchObject([
      { context: 'jenkins/ho-a', result: 'SUCCESS', state: 'success' }
    ])
  })

  it('a GitHub that never answers the search ends the step by its timeout, with nothing written', async () => {
    const server = await github()
    server.aim({ route: 'search.issues', effect: { type: 'stall' } })
    const s = await settle(server, jenkins, { timeout: '3' })
    expect(s.r.code, describeRun(s.r)).not.toBe(0)
    expect(commands(s.r.stdout, 'error').map(commandData)).toEqual([
      'Timed out after 3 s (timeout: 3 s) waiting for the hand-offs to settle; nothing was started in Jenkins.'
    ])
    expect(s.github.filter(q => q.method !== 'GET')).toEqual([])
    expect(s.jenkins).toEqual([])
  })

  it('fails on its own errors: GitHub refusing the search, Jenkins refusing the credentials', async () => {
    const refused = await github()
    refused.aim({ route: 'search.issues', effect: { type: 'refuse', status: 403 } })
    const s = await settle(refused, jenkins)
    expect(s.r.code, describeRun(s.r)).not.toBe(0)
    expect(commands(s.r.stdout, 'error').map(commandData)[0]).toMatch(
      /^Settle: could not read the pending statuses of owner\/repo from GitHub \(HTTP 403\): .*The github-token needs `statuses: write` and `pull-requests: read`\.$/
    )
    expect(s.jenkins).toEqual([])

    const server = await github()
    await handOff(server, jenkins, 'ho-ok', 17)
    const wrong = await settle(server, { url: jenkins.url, user: 'admin', token: 'wrong-token' })
    expect(wrong.r.code, describeRun(wrong.r)).not.toBe(0)
    expect(commands(wrong.r.stdout, 'error').map(commandData)).toEqual([
      `Jenkins at ${jenkins.url} rejected the credentials for user 'admin' (401): check the user and API token`
    ])
    // Nothing was written: the hand-off stays pending for a run that can read Jenkins.
    expect(statuses(server, 17).map(st => st.state)).toEqual(['pending'])
  })
})
