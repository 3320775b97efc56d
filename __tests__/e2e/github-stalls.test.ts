/**
 * End to end: a GitHub that stalls or rate-limits (issue 32 §2), against the
 * GitHub stand-in, the bundle run under Node 24 as the runner runs it. Each
 * call the reports make (the pull request read, the comment list, POST and
 * PATCH, the status POST) stalls (headers never sent) or drips its body,
 * and the step is stopped by its `timeout` or by SIGINT: it must end within
 * its abort budget with the Jenkins work cancelled or stopped as usual, and
 * leave the state the post step reads saying so. Before, such steps ran
 * until the runner killed them, the Jenkins work neither cancelled nor
 * stopped. The times are printed, not asserted: the bound asserted is
 * generous (far under the 300 s a stalled request lasted unbounded).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  errorAnnotation,
  node24,
  runAction,
  startAction,
  type ActionRun
} from '../../scripts/action-runner.js'
import { commentMarker } from '../../src/outcome/pr-comment-body.js'
import { State } from '../../src/util/constants.js'
import {
  startGithub,
  startJenkins,
  type GithubFaultEffect,
  type GithubRequest,
  type GithubStandIn,
  type TestJenkins
} from '../../test-server/index.js'
import { auth, commands, describeRun, savedWork } from './helpers.js'

const NODE24 = node24()
const TOKEN = 'ghs_githubStallsToken0123456789'
const TIMEOUT_S = 20
/** Far under the minutes a stalled request lasted unbounded; far over timeout + 5 s on a busy machine. */
const GENEROUS_MS = 45_000
/** A run, its stop and its post step, on a busy machine. */
const TEST_MS = 150_000
const repository = { id: 1, name: 'repo', owner: { login: 'owner' } }

/** Exit times, by what stalled and what stopped the step. */
const figures: string[] = []

/** The calls whose stall is tried, and how a run is made to send each. */
const CALLS = [
  'pulls.get',
  'comments.list',
  'comments.create',
  'comments.update',
  'statuses.create'
] as const
type Call = (typeof CALLS)[number]
const EFFECTS: Array<{ name: string; effect: GithubFaultEffect }> = [
  { name: 'headers never sent', effect: { type: 'stall' } },
  { name: 'body dripping', effect: { type: 'drip', bytesPerSecond: 1 } }
]

let jenkins: TestJenkins
let github: GithubStandIn
let serial = 0

beforeAll(async () => {
  jenkins = await startJenkins({ quietPeriodSec: 0, executors: 40, jobs: {} })
  github = await startGithub()
})
afterAll(async () => {
  await jenkins.close()
  await github.close()
  console.log(`GitHub stall figures (Node 24; runner grace 7500 ms):\n${figures.join('\n')}`)
})

/** A run set up to send `call`, its fault aimed at that run's request alone. */
function scenario(call: Call, effect: GithubFaultEffect) {
  const n = ++serial
  const job = `gh-${call.replace('.', '-')}-${n}`
  jenkins.addJob(job, {
    concurrent: true,
    script: { durationMs: 60_000, consoleLines: ['working'] }
  })
  const number = 1000 + n
  const sha = n.toString(16).padStart(40, 'c')
  github.heads.set(number, sha)
  // A stranger's comment: a comment list long enough to drip for minutes.
  github.model.addComment(number, 'someone', `Looks good to me. ${'Thanks! '.repeat(20)}`)
  const own =
    call === 'comments.update'
      ? github.model.addComment(
          number,
          'github-actions[bot]',
          `${commentMarker(`jenkins/${job}`)}\nold`
        )
      : undefined
  const inputs: Record<string, string> = {
    ...auth(jenkins),
    job,
    'github-token': TOKEN,
    ...(call === 'pulls.get' || call === 'statuses.create' ? { 'commit-status': 'true' } : {}),
    ...(call.startsWith('comments.') ? { 'pr-comment': 'true' } : {}),
    // The reports read the named pull request's head (a comment command's
    // own reads are comment-command.test.ts's).
    ...(call === 'pulls.get' ? { 'pull-request': String(number) } : {})
  }
  const payload =
    call === 'pulls.get'
      ? { inputs: {}, repository }
      : { number, pull_request: { number, head: { sha } }, repository }
  const event = { name: call === 'pulls.get' ? 'workflow_dispatch' : 'pull_request', payload }
  const match = (r: GithubRequest): boolean =>
    call === 'statuses.create'
      ? r.params.sha === sha
      : call === 'comments.update'
        ? r.params.id === String(own?.id)
        : r.params.number === String(number)
  const fault = github.aim({ route: call, match, effect })
  return { job, inputs, event, fault }
}

/** What the run left in Jenkins and for the post step, checked: its work stopped, the record kept. */
function checkStopped(r: ActionRun, call: Call, job: string): void {
  expect(r.code, describeRun(r)).not.toBe(0)
  expect(r.signal, describeRun(r)).toBeNull()
  // At most one warning of GitHub, and none that blames a permission. On a
  // very busy machine the abort may not reach Jenkins within its seconds:
  // then it says so, keeps the record, and the post step stops the work.
  const warnings = commands(r.stdout, 'warning').map(c => c?.value ?? '')
  const unreached = warnings.filter(w => w.startsWith('Could not abort the Jenkins work: '))
  expect(warnings.length - unreached.length, describeRun(r)).toBeLessThanOrEqual(1)
  expect(r.state[State.Done], describeRun(r)).toBe(unreached.length > 0 ? 'false' : 'true')
  if (unreached.length > 0) return
  expect(warnings.join('\n')).not.toMatch(/needs the `(statuses|pull-requests): write` permission/)
  if (call === 'pulls.get') {
    // Read before anything is sent to Jenkins: nothing was started.
    expect(errorAnnotation(r), describeRun(r)).toMatch(/; nothing was started in Jenkins\.$/)
    expect(jenkins.builds(job)).toEqual([])
    expect(jenkins.state.queue.filter(q => q.job.fullName === job)).toEqual([])
    return
  }
  const saved = savedWork(r.state)
  expect(saved.queueId, describeRun(r)).toBeDefined()
  const build = jenkins.builds(job).find(b => b.queueId === saved.queueId)
  if (build) {
    expect(build.result, describeRun(r)).toBe('ABORTED')
    // On a very busy machine the stop's end may come after the abort's budget: it was sent.
    expect(errorAnnotation(r)).toMatch(
      /(stopped Jenkins build #\d+ \(stop; result ABORTED\)|sent stop to Jenkins build #\d+, but could not see it end: .*)\.$/
    )
  } else {
    expect(jenkins.state.queue.find(q => q.id === saved.queueId)?.cancelled, describeRun(r)).toBe(
      true
    )
    expect(errorAnnotation(r)).toMatch(/cancelled Jenkins queue item \d+\.$/)
  }
}

/** The post step with the state the main step saved: nothing left to stop, or what the abort could not reach. */
async function checkPost(r: ActionRun, inputs: Record<string, string>): Promise<void> {
  const post = await runAction(inputs, {
    node: NODE24,
    state: r.state,
    env: { GITHUB_API_URL: github.url },
    killAfterMs: 45_000
  })
  expect(post.code, describeRun(post)).toBe(0)
  if (r.state[State.Done] === 'false') {
    expect(post.stdout, describeRun(post)).toMatch(
      /Post step: (stopped Jenkins build #\d+ \(stop; result ABORTED\)|cancelled Jenkins queue item \d+)/
    )
    return
  }
  expect(post.stdout, describeRun(post)).toContain('Post step: nothing to stop')
}

describe.each(EFFECTS)('GitHub $name (Node 24)', ({ name, effect }) => {
  describe.concurrent('SIGINT', () => {
    it.each(CALLS)(
      '%s',
      async call => {
        const { job, inputs, event, fault } = scenario(call, effect)
        const action = startAction(inputs, {
          node: NODE24,
          event,
          env: { GITHUB_API_URL: github.url },
          killAfterMs: 60_000
        })
        await Promise.race([
          fault.hit,
          action.done.then(r => {
            throw new Error(`the run ended before ${call} was sent:\n${describeRun(r)}`)
          })
        ])
        const sentAt = Date.now()
        action.child.kill('SIGINT')
        const r = await action.done
        const ms = Date.now() - sentAt
        figures.push(`${call}, ${name}, SIGINT → exit: ${ms} ms`)
        expect(ms, describeRun(r)).toBeLessThan(GENEROUS_MS)
        expect(errorAnnotation(r), describeRun(r)).toMatch(
          new RegExp(`^The workflow was cancelled while waiting for Jenkins ${job}`)
        )
        checkStopped(r, call, job)
        await checkPost(r, inputs)
      },
      TEST_MS
    )
  })

  describe.concurrent(`timeout: ${TIMEOUT_S}`, () => {
    it.each(CALLS)(
      '%s',
      async call => {
        const { job, inputs, event, fault } = scenario(call, effect)
        const startedAt = Date.now()
        const action = startAction(
          { ...inputs, timeout: String(TIMEOUT_S) },
          { node: NODE24, event, env: { GITHUB_API_URL: github.url }, killAfterMs: 90_000 }
        )
        await Promise.race([
          fault.hit,
          action.done.then(r => {
            throw new Error(`the run ended before ${call} was sent:\n${describeRun(r)}`)
          })
        ])
        const r = await action.done
        const ms = Date.now() - startedAt - TIMEOUT_S * 1000
        figures.push(`${call}, ${name}, timeout → exit: ${ms} ms after the timeout`)
        expect(ms, describeRun(r)).toBeLessThan(GENEROUS_MS)
        expect(errorAnnotation(r), describeRun(r)).toMatch(
          new RegExp(
            `^Timed out after \\d+ s \\(timeout: ${TIMEOUT_S} s\\) waiting for Jenkins ${job}`
          )
        )
        checkStopped(r, call, job)
        await checkPost(r, { ...inputs, timeout: String(TIMEOUT_S) })
      },
      TEST_MS
    )
  })
})

describe.concurrent('a GitHub that does not answer, or rate-limits, left to run (Node 24)', () => {
  /** A quick build on pull request `number` with commit statuses; its fault on the status POSTs. */
  function quickRun(effect: GithubFaultEffect, times?: number) {
    const n = ++serial
    const job = `gh-quick-${n}`
    jenkins.addJob(job, { concurrent: true, script: { durationMs: 200 } })
    const sha = n.toString(16).padStart(40, 'd')
    const fault = github.aim({
      route: 'statuses.create',
      match: r => r.params.sha === sha,
      effect,
      ...(times === undefined ? {} : { times })
    })
    const run = () =>
      runAction(
        { ...auth(jenkins), job, 'github-token': TOKEN, 'commit-status': 'true' },
        {
          node: NODE24,
          env: { GITHUB_API_URL: github.url },
          event: {
            name: 'pull_request',
            payload: {
              number: 3000 + n,
              pull_request: { number: 3000 + n, head: { sha } },
              repository
            }
          },
          killAfterMs: 90_000
        }
      )
    const sent = () =>
      github.requests.filter(q => q.route === 'statuses.create' && q.params.sha === sha)
    const states = () => github.model.statuses.filter(s => s.sha === sha).map(s => s.state)
    return { run, fault, sent, states }
  }
  const warningsOf = (r: ActionRun) => commands(r.stdout, 'warning').map(c => c?.value ?? '')

  it(
    'a status POST never answered: one warning after its silence bound, no further report, the verdict stands',
    async () => {
      const { run, sent } = quickRun({ type: 'stall' })
      const r = await run()
      expect(r.code, describeRun(r)).toBe(0)
      expect(r.outputs.result).toBe('SUCCESS')
      expect(warningsOf(r), describeRun(r)).toEqual([
        expect.stringMatching(
          /^No answer from GitHub at http:\/\/127\.0\.0\.1:\d+ to POST \/repos\/owner\/repo\/statuses\/[0-9a-f]+ within 20\.0 s: no further commit status or pull request comment is sent in this step/
        )
      ])
      expect(sent()).toHaveLength(1)
    },
    TEST_MS
  )

  it(
    'a primary rate limit that resets within the step: waited out, the statuses all set',
    async () => {
      const { run, states, fault } = quickRun(
        { type: 'rate-limit', limit: 'primary', resetInSec: 1 },
        1
      )
      const r = await run()
      expect(r.code, describeRun(r)).toBe(0)
      expect(fault.hits).toBe(1)
      expect(warningsOf(r), describeRun(r)).toEqual([])
      expect(r.stdout).toMatch(
        /GitHub's rate limit holds requests back \(HTTP 403, x-ratelimit-remaining: 0\): waiting \d+(\.\d)? s before POST/
      )
      // Queued, running, then the result.
      expect(states()).toEqual(['pending', 'pending', 'success'])
    },
    TEST_MS
  )

  it(
    'a secondary rate limit asking for an hour (429): one warning that says so, no permission blamed, nothing sent meanwhile',
    async () => {
      const { run, sent } = quickRun(
        { type: 'rate-limit', limit: 'secondary', status: 429, retryAfterSec: 3600 },
        1
      )
      const r = await run()
      expect(r.code, describeRun(r)).toBe(0)
      expect(r.outputs.result).toBe('SUCCESS')
      const warnings = warningsOf(r)
      expect(warnings, describeRun(r)).toEqual([
        expect.stringMatching(
          /^GitHub's secondary rate limit held back POST \/repos\/owner\/repo\/statuses\/[0-9a-f]+ \(HTTP 429, retry-after\) for 1 h more, longer than the 2 min this action waits: .*not a missing permission/
        )
      ])
      expect(warnings[0]).not.toContain('statuses: write')
      expect(sent()).toHaveLength(1)
    },
    TEST_MS
  )
})

describe('with jobs (Node 24)', () => {
  it(
    'statuses that never answer, then SIGINT: every build is stopped, the record kept',
    async () => {
      const n = ++serial
      const jobs = [`gh-jobs-a-${n}`, `gh-jobs-b-${n}`]
      for (const job of jobs) {
        jenkins.addJob(job, {
          concurrent: true,
          script: { durationMs: 60_000, consoleLines: ['working'] }
        })
      }
      const sha = n.toString(16).padStart(40, 'e')
      const fault = github.aim({
        route: 'statuses.create',
        match: r => r.params.sha === sha,
        effect: { type: 'stall' }
      })
      const inputs = {
        ...auth(jenkins),
        jobs: jobs.join('\n'),
        'github-token': TOKEN,
        'commit-status': 'true'
      }
      const action = startAction(inputs, {
        node: NODE24,
        env: { GITHUB_API_URL: github.url },
        event: {
          name: 'pull_request',
          payload: {
            number: 4000 + n,
            pull_request: { number: 4000 + n, head: { sha } },
            repository
          }
        },
        killAfterMs: 60_000
      })
      await fault.hit
      // Both builds running: what SIGINT must stop.
      await action.waitForOutput(new RegExp(`${jobs[1]}.*started|started.*${jobs[1]}`))
      await action.waitForOutput(new RegExp(`${jobs[0]}.*started|started.*${jobs[0]}`))
      const sentAt = Date.now()
      action.child.kill('SIGINT')
      const r = await action.done
      figures.push(
        `jobs (2), statuses headers never sent, SIGINT → exit: ${Date.now() - sentAt} ms`
      )
      expect(r.code, describeRun(r)).not.toBe(0)
      expect(r.signal, describeRun(r)).toBeNull()
      expect(r.state[State.Done]).toBe('true')
      const saved = JSON.parse(r.state[State.Builds] ?? '[]') as Array<{
        job: string[]
        number?: number
      }>
      expect(saved.map(s => s.job.join('/')).sort()).toEqual([...jobs].sort())
      for (const job of jobs) {
        const number = saved.find(s => s.job.join('/') === job)?.number
        expect(jenkins.builds(job).find(b => b.number === number)?.result, describeRun(r)).toBe(
          'ABORTED'
        )
      }
    },
    TEST_MS
  )
})
