/**
 * End to end: several builds from one step (`jobs`), the bundle run as the
 * runner runs it. Each test has jobs (and a user) of its own on the shared
 * server, and matches its builds by job and the number its run reported.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { node24, startAction, type ActionRun } from '../../scripts/action-runner.js'
import {
  startJenkins,
  type BuildState,
  type JobSpec,
  type TestJenkins,
  type UserSpec
} from '../../test-server/index.js'
import {
  ADMIN_TOKEN,
  adminPost,
  commands,
  describeRun,
  run,
  runnerView,
  RUNTIMES,
  startBuild,
  startLocalServer,
  untilServer,
  type LocalServer
} from './helpers.js'

const NODE24 = node24()
const GITHUB_TOKEN = 'ghs_e2eJobsToken0123456789abcdef'

const quick = (ms: number, extra: JobSpec['script'] = {}): JobSpec => ({
  script: { durationMs: ms, consoleLines: ['working'], ...extra }
})

/** Every test's user: its requests are told apart by it. */
const USERS = [
  'mixed',
  'fast',
  'cancel',
  'timeout',
  'params',
  'waits',
  'last',
  'status',
  'artifacts',
  'disable',
  'post',
  'twice',
  'items'
]

let jenkins: TestJenkins
let github: LocalServer
/** SIGINT to exit, for the report (the runner sends SIGTERM 7.5 s after SIGINT). */
const signalToExitMs: number[] = []

beforeAll(async () => {
  const users: UserSpec[] = [
    { name: 'admin', password: 'admin', apiToken: ADMIN_TOKEN, permissions: ['admin'] },
    ...USERS.map(name => ({ name, password: `${name}-pw`, permissions: ['admin' as const] }))
  ]
  jenkins = await startJenkins({
    quietPeriodSec: 0,
    executors: 30,
    users,
    jobs: {
      'm-unit': quick(200, { consoleLines: ['::error::not a command, from Jenkins', 'unit ok'] }),
      'm-integration': quick(500, {
        result: 'FAILURE',
        tests: { total: 8, failed: 2, skipped: 0 },
        consoleLines: ['running integration', 'integration broke']
      }),
      'm-deploy': { type: 'pipeline', script: { durationMs: 1500, consoleLines: ['deploying'] } },
      'f-unit': quick(200),
      'f-integration': quick(500, { result: 'FAILURE' }),
      'f-deploy': { type: 'pipeline', script: { durationMs: 30_000, stopDelayMs: 300 } },
      'f-queued': quick(30_000),
      'c-free': quick(30_000),
      'c-pipe': { type: 'pipeline', script: { durationMs: 30_000, stopDelayMs: 400 } },
      'c-queued': quick(30_000),
      't-a': quick(30_000),
      't-b': { type: 'pipeline', script: { durationMs: 30_000 } },
      'p-param': {
        concurrent: true,
        parameters: [
          { name: 'ENV', type: 'string', default: 'dev' },
          { name: 'REGION', type: 'string', default: 'us' }
        ],
        script: { durationMs: 200, echoParameters: true }
      },
      'p-mb': {
        type: 'multibranch',
        jobs: { main: quick(200), 'feature%2Fx': quick(200) },
        heads: { main: {}, 'feature/x': {} }
      },
      'w-a': { ...quick(30_000), concurrent: true },
      'w-b': { ...quick(30_000), concurrent: true },
      'l-a': quick(100),
      'l-b': quick(100, { result: 'UNSTABLE' }),
      's-ok': quick(200),
      's-fail': quick(300, { result: 'FAILURE' }),
      'a-one': quick(100, { artifacts: [{ path: 'dist/app.zip', content: 'one' }] }),
      'a-two': quick(100, { artifacts: [{ path: 'dist/app.zip', content: 'two' }] }),
      'd-a': quick(100),
      'd-b': quick(100),
      'k-a': quick(30_000),
      'k-b': { type: 'pipeline', script: { durationMs: 30_000 } },
      'twice-a': quick(300),
      'i-given': quick(100, { result: 'FAILURE', consoleLines: ['given output'] }),
      'i-input': {
        type: 'pipeline',
        script: {
          stages: [
            { name: 'Build', durationMs: 100 },
            { name: 'Approve', durationMs: 50, input: { message: 'Ship it?', id: 'Ship' } }
          ]
        }
      }
    }
  })
  github = await startLocalServer((req, res) => {
    res.writeHead(201, { 'content-type': 'application/json' })
    res.end(
      JSON.stringify({ id: 1, state: (JSON.parse(req.body || '{}') as { state: string }).state })
    )
  })
})

afterAll(async () => {
  await jenkins.close()
  await github.close()
  if (signalToExitMs.length) {
    console.log(`jobs: SIGINT → exit ${signalToExitMs.join(', ')} ms (runner grace 7500 ms)`)
  }
})

function as(user: string) {
  return { url: jenkins.url, user, token: `${user}-pw` }
}

interface BuildsEntry {
  job: string
  number: number | null
  url: string | null
  result: string | null
  duration: number | null
  queueUrl: string | null
}

function builds(r: ActionRun): BuildsEntry[] {
  return JSON.parse(r.outputs.builds ?? '[]') as BuildsEntry[]
}

/** The server's build this run reported for `job` (its own, by number). */
function serverBuild(r: ActionRun, job: string): BuildState | undefined {
  const number = builds(r).find(b => b.job === job)?.number
  return jenkins.builds(job).find(b => b.number === number)
}

/** The consoles the runner would show: group title → its lines, each read with commands stopped. */
function consoleGroups(stdout: string): Map<string, { lines: string[]; stopped: boolean }> {
  const groups = new Map<string, { lines: string[]; stopped: boolean }>()
  let current: { lines: string[]; stopped: boolean } | undefined
  for (const line of runnerView(stdout)) {
    if (line.command?.name === 'group' && !line.stopped) {
      current = { lines: [], stopped: true }
      groups.set(line.command.value, current)
    } else if (line.command?.name === 'endgroup' && !line.stopped) {
      current = undefined
    } else if (current && !line.command) {
      current.lines.push(line.text)
      current.stopped &&= line.stopped
    }
  }
  return groups
}

/** The step's failure message: the error command without properties the runner acts on (not a failed test's, not console text). */
function failure(r: ActionRun): string {
  const set = commands(r.stdout, 'error').filter(c => c.properties === '')
  return (set.at(-1)?.value ?? '').replace(/%0A/g, '\n').replace(/%0D/g, '\r').replace(/%25/g, '%')
}

async function stopAll(job: string): Promise<void> {
  for (const b of jenkins.builds(job).filter(b => b.building)) {
    await adminPost(jenkins, `/job/${job}/${b.number}/stop`)
  }
}

describe('jobs', () => {
  describe.concurrent('verdict, outputs and summary', () => {
    it('three jobs with mixed results, without fail-fast: all run to their end, one verdict naming the failure', async () => {
      const r = await run(RUNTIMES[0]?.path as string, {
        ...as('mixed'),
        jobs: 'm-unit\nm-integration\nm-deploy'
      })
      expect(r.code, describeRun(r)).toBe(1)
      const out = builds(r)
      expect(out.map(b => [b.job, b.result])).toEqual([
        ['m-unit', 'SUCCESS'],
        ['m-integration', 'FAILURE'],
        ['m-deploy', 'SUCCESS']
      ])
      for (const b of out) {
        const server = serverBuild(r, b.job) as BuildState
        expect(b.url).toBe(`${jenkins.url}/job/${b.job}/${server.number}/`)
        expect(b.duration).toBe(server.finishedAt! - server.startedAt)
        expect(b.queueUrl).toBe(`${jenkins.url}/queue/item/${server.queueId}/`)
      }
      expect(r.outputs.result).toBe('FAILURE')
      expect(r.outputs['tests-failed']).toBe('2')
      expect(r.outputs['build-number']).toBeUndefined()
      const integration = out[1] as BuildsEntry
      expect(failure(r)).toMatch(
        new RegExp(
          `^1 of 3 Jenkins builds did not pass \\(accepted: SUCCESS\\):\\n- m-integration #${integration.number} FAILURE — ${integration.url}`
        )
      )
      expect(failure(r)).toContain('integration broke')
      expect(failure(r)).not.toMatch(/m-unit #|m-deploy #/)
      // One line per state change of each build.
      for (const b of out) {
        expect(r.stdout).toContain(`Queued ${b.job} in Jenkins: ${b.queueUrl}`)
        expect(r.stdout).toContain(`Jenkins build ${b.job} #${b.number} started: ${b.url}`)
        expect(r.stdout).toMatch(
          new RegExp(`Jenkins build ${b.job} #${b.number} finished: ${b.result} in `)
        )
      }
      // Each console in its own group, read by the runner with commands stopped.
      const groups = consoleGroups(r.stdout)
      for (const b of out) {
        const group = groups.get(`Console of Jenkins ${b.job} #${b.number}`)
        expect(group?.stopped, b.job).toBe(true)
        expect(group?.lines.at(-1)).toBe(`Finished: ${b.result}`)
      }
      expect(groups.get(`Console of Jenkins m-unit #${out[0]?.number}`)?.lines).toContain(
        '::error::not a command, from Jenkins'
      )
      expect(commands(r.stdout, 'error').map(c => c.value)).not.toContain(
        'not a command, from Jenkins'
      )
      // One client: one crumb (and session) for the whole run.
      const mine = jenkins.requests.filter(q => q.user === 'mixed')
      expect(mine.filter(q => q.kind === 'crumb')).toHaveLength(1)
      expect(mine.filter(q => q.kind === 'trigger')).toHaveLength(3)
      // The summary: a row per build, then the failed one's details.
      expect(r.summary).toContain(
        '<th>Job</th><th>Build</th><th>Result</th><th>Duration</th><th>Failed tests</th>'
      )
      expect(r.summary).toContain(
        `<td><a href="${jenkins.url}/job/m-integration/">m-integration</a></td><td><a href="${integration.url}">&#35;${integration.number}</a></td><td>❌ FAILURE (not accepted)</td>`
      )
      expect(r.summary).toContain(`m-integration &#35;${integration.number}</a>: FAILURE</h3>`)
      expect(r.summary).toContain('<h4>Failed tests</h4>')
    })

    it('fail-fast: the first failure stops the builds this step started, cancels its queued item, and reports them as stopped', async () => {
      // A build of f-queued from someone else keeps this step's item blocked.
      const blocker = await startBuild(jenkins, 'f-queued')
      const r = await run(RUNTIMES[1]?.path as string, {
        ...as('fast'),
        jobs: JSON.stringify(['f-unit', 'f-integration', 'f-deploy', 'f-queued']),
        'fail-fast': 'true'
      })
      expect(blocker.stopRequestedAt).toBeNull()
      await adminPost(jenkins, `/job/f-queued/${blocker.number}/stop`)
      expect(r.code, describeRun(r)).toBe(1)
      const out = builds(r)
      expect(out.map(b => [b.job, b.result])).toEqual([
        ['f-unit', 'SUCCESS'],
        ['f-integration', 'FAILURE'],
        ['f-deploy', 'ABORTED'],
        ['f-queued', null]
      ])
      const deploy = serverBuild(r, 'f-deploy') as BuildState
      expect(deploy.result).toBe('ABORTED')
      expect(deploy.stopRequestedAt).not.toBeNull()
      // The blocker (not ours) ran on; our queued item was cancelled, never built.
      const queued = jenkins.state.queue.find(
        i => `${jenkins.url}/queue/item/${i.id}/` === out[3]?.queueUrl
      )
      expect(queued?.cancelled).toBe(true)
      expect(r.outputs.result).toBe('ABORTED')
      const message = failure(r)
      expect(message).toMatch(/^3 of 4 Jenkins builds did not pass/)
      expect(message).toContain(`- f-integration #${out[1]?.number} FAILURE`)
      expect(message).toContain(`- f-deploy #${deploy.number} ABORTED (stopped by fail-fast)`)
      expect(message).toContain('- f-queued: cancelled in the queue by fail-fast')
      expect(r.stdout).toContain(
        'fail-fast: f-integration did not pass; stopping the other builds this step started.'
      )
      expect(r.summary).toContain('stopped by fail-fast')
      expect(r.state.done).toBe('true')
    })

    it('per-job parameters over the shared ones, and branches of a multibranch project', async () => {
      const r = await run(RUNTIMES[0]?.path as string, {
        ...as('params'),
        parameters: 'REGION=eu',
        jobs: JSON.stringify([
          { job: 'p-param', parameters: { ENV: 'prod' } },
          { job: 'p-param', parameters: 'ENV=staging\nREGION=ap' },
          { job: 'p-mb', branch: 'feature/x' },
          { job: 'p-mb', branch: 'main' }
        ])
      })
      expect(r.code, describeRun(r)).toBe(0)
      const out = builds(r)
      expect(out.map(b => b.job)).toEqual(['p-param', 'p-param', 'p-mb/feature%2Fx', 'p-mb/main'])
      const [prod, staging] = out.map(b =>
        jenkins.builds('p-param').find(s => s.number === b.number)
      )
      expect(prod?.parameters).toEqual({ ENV: 'prod', REGION: 'eu' })
      expect(staging?.parameters).toEqual({ ENV: 'staging', REGION: 'ap' })
      expect(out[2]?.url).toBe(`${jenkins.url}/job/p-mb/job/feature%252Fx/${out[2]?.number}/`)
      expect(jenkins.builds('p-mb/feature%2Fx').some(b => b.number === out[2]?.number)).toBe(true)
      expect(jenkins.builds('p-mb/main').some(b => b.number === out[3]?.number)).toBe(true)
    })

    it('wait: false and wait: started report each item as far as they waited', async () => {
      const queued = await run(RUNTIMES[1]?.path as string, {
        ...as('waits'),
        jobs: 'w-a\nw-b',
        wait: 'false'
      })
      expect(queued.code, describeRun(queued)).toBe(0)
      for (const b of builds(queued)) {
        expect(b).toMatchObject({ number: null, url: null, result: null })
        expect(b.queueUrl).toMatch(new RegExp(`^${jenkins.url}/queue/item/\\d+/$`))
      }
      const started = await run(RUNTIMES[1]?.path as string, {
        ...as('waits'),
        jobs: 'w-a\nw-b',
        wait: 'started'
      })
      expect(started.code, describeRun(started)).toBe(0)
      for (const b of builds(started)) {
        expect(b.result).toBeNull()
        expect(serverBuild(started, b.job)?.building).toBe(true)
      }
      expect(started.outputs.result).toBeUndefined()
      await stopAll('w-a')
      await stopAll('w-b')
    })

    it('build: last reports each job’s last build', async () => {
      const a = await startBuild(jenkins, 'l-a')
      const b = await startBuild(jenkins, 'l-b')
      await untilServer(() => (a.building || b.building ? undefined : true), 'the builds to end')
      const r = await run(RUNTIMES[0]?.path as string, {
        ...as('last'),
        jobs: 'l-a\nl-b',
        build: 'last',
        accept: 'SUCCESS,UNSTABLE'
      })
      expect(r.code, describeRun(r)).toBe(0)
      expect(builds(r).map(x => [x.job, x.number, x.result])).toEqual([
        ['l-a', a.number, 'SUCCESS'],
        ['l-b', b.number, 'UNSTABLE']
      ])
      expect(jenkins.requests.filter(q => q.user === 'last' && q.kind === 'trigger')).toEqual([])
    })

    it('commit-status: one status per job, context jenkins/<job>', async () => {
      const r = await run(
        RUNTIMES[1]?.path as string,
        {
          ...as('status'),
          jobs: 's-ok\ns-fail',
          'commit-status': 'true',
          'github-token': GITHUB_TOKEN
        },
        { env: { GITHUB_API_URL: github.url } }
      )
      expect(r.code, describeRun(r)).toBe(1)
      const posted = (context: string) =>
        github.requests
          .filter(q => q.method === 'POST')
          .map(q => JSON.parse(q.body) as { state: string; context: string; target_url?: string })
          .filter(s => s.context === context)
      expect(posted('jenkins/s-ok').map(s => s.state)).toEqual(['pending', 'pending', 'success'])
      expect(posted('jenkins/s-fail').map(s => s.state)).toEqual(['pending', 'pending', 'failure'])
      const fail = builds(r)[1] as BuildsEntry
      expect(posted('jenkins/s-fail').at(-1)?.target_url).toBe(fail.url)
    })

    it('artifacts: each build’s files in a folder of its own', async () => {
      const ws = mkdtempSync(join(tmpdir(), 'jobs-artifacts-'))
      try {
        const r = await run(
          RUNTIMES[0]?.path as string,
          { ...as('artifacts'), jobs: 'a-one\na-two', artifacts: 'dist/*.zip' },
          { env: { GITHUB_WORKSPACE: ws } }
        )
        expect(r.code, describeRun(r)).toBe(0)
        expect(JSON.parse(r.outputs.artifacts ?? '').sort()).toEqual([
          'jenkins-artifacts/a-one/dist/app.zip',
          'jenkins-artifacts/a-two/dist/app.zip'
        ])
        expect(readFileSync(join(ws, 'jenkins-artifacts/a-two/dist/app.zip'), 'utf8')).toBe('two')
      } finally {
        rmSync(ws, { recursive: true, force: true })
      }
    })

    it('disable: every listed job', async () => {
      const r = await run(RUNTIMES[1]?.path as string, {
        ...as('disable'),
        jobs: 'd-a\nd-b',
        disable: 'true'
      })
      expect(r.code, describeRun(r)).toBe(0)
      expect(jenkins.state.findJob('d-a')?.disabled).toBe(true)
      expect(jenkins.state.findJob('d-b')?.disabled).toBe(true)
      expect(r.stdout).toContain(`Disabled Jenkins job d-b (${jenkins.url}/job/d-b/).`)
    })

    it('the same job twice: a warning, and both items follow the one build Jenkins made of them', async () => {
      // The blocker runs until stopped: a 300 ms one can end before a
      // start-up on a busy machine, and the two triggers then make two builds.
      const job = jenkins.state.findJob('twice-a')!
      job.script.durationMs = 600_000
      const blocker = await startBuild(jenkins, 'twice-a')
      job.script.durationMs = 300
      const running = startAction(
        { ...as('twice'), jobs: 'twice-a\ntwice-a' },
        { node: RUNTIMES[0]?.path, killAfterMs: 45_000 }
      )
      await running.waitForOutput(/Queued twice-a in Jenkins[\s\S]*twice-a in/)
      await adminPost(jenkins, `/job/twice-a/${blocker.number}/stop`)
      const r = await running.done
      expect(r.code, describeRun(r)).toBe(0)
      expect(
        commands(r.stdout, 'warning')
          .map(c => c.value)
          .join('\n')
      ).toMatch(/lists twice-a twice with the same parameters \(items 1 and 2\)/)
      const [first, second] = builds(r)
      expect(first?.number).toBe(second?.number)
      expect(first?.queueUrl).toBe(second?.queueUrl)
      expect(serverBuild(r, 'twice-a')?.causes).toHaveLength(2)
    })
  })

  it('per item: a given build (its console, its history), and a Pipeline waiting at an input said with its job', async () => {
    // The job's history: one finished build, then the one given to the step.
    const earlier = await startBuild(jenkins, 'i-given')
    await untilServer(() => (earlier.building ? undefined : true), 'the earlier build')
    const given = await startBuild(jenkins, 'i-given')
    await untilServer(() => (given.building ? undefined : true), 'the given build')
    const running = startAction(
      {
        ...as('items'),
        jobs: JSON.stringify([{ job: 'i-given', build: given.number }, 'i-input'])
      },
      { node: RUNTIMES[0]?.path, killAfterMs: 45_000 }
    )
    const asked = /Jenkins build #\d+ is waiting for input in stage "Approve": answer it at (\S+)/
    await running.waitForOutput(asked, 40_000)
    const inputUrl = asked.exec(running.stdout())?.[1] ?? ''
    const proceed = await adminPost(
      jenkins,
      `${inputUrl.slice(jenkins.url.length)}Ship/proceedEmpty`
    )
    expect(proceed.status).toBe(200)
    const r = await running.done
    expect(r.code, describeRun(r)).toBe(1)
    expect(builds(r).map(b => [b.job, b.number, b.result])).toEqual([
      ['i-given', given.number, 'FAILURE'],
      ['i-input', serverBuild(r, 'i-input')?.number, 'SUCCESS']
    ])
    // Followed, not triggered; its console shown as a new build's.
    expect(jenkins.requests.filter(q => q.user === 'items' && q.kind === 'trigger')).toHaveLength(1)
    const givenUrl = `${jenkins.url}/job/i-given/${given.number}/`
    expect(r.stdout).toContain(`Following build #${given.number} of i-given: ${givenUrl}`)
    expect(
      consoleGroups(r.stdout).get(`Console of Jenkins i-given #${given.number}`)?.lines
    ).toContain('given output')
    // The input said once, naming its job.
    expect(r.stdout.match(/i-input: Jenkins build #\d+ is waiting for input/g)).toHaveLength(1)
    // Its section has the job's history before it: is this failure new?
    expect(r.summary).toContain(
      `Last 1 finished build(s), oldest first: <a href="${jenkins.url}/job/i-given/${earlier.number}/">❌</a>`
    )
  })

  describe.concurrent('cancel, timeout and the post step (Node 24)', () => {
    it('SIGINT mid-way: every build this step started ends ABORTED, its queued item cancelled, within the runner’s window', async () => {
      const blocker = await startBuild(jenkins, 'c-queued')
      const action = startAction(
        { ...as('cancel'), jobs: 'c-free\nc-pipe\nc-queued' },
        { node: NODE24, killAfterMs: 45_000 }
      )
      await action.waitForOutput(
        /Jenkins build c-free #\d+ started[\s\S]*Jenkins build c-pipe #\d+ started|Jenkins build c-pipe #\d+ started[\s\S]*Jenkins build c-free #\d+ started/
      )
      await action.waitForOutput(/waiting in the queue/)
      const sentAt = Date.now()
      action.child.kill('SIGINT')
      const r = await action.done
      signalToExitMs.push(Date.now() - sentAt)
      // Someone else's build, which kept our item queued: never stopped by this step.
      expect(blocker.stopRequestedAt).toBeNull()
      await adminPost(jenkins, `/job/c-queued/${blocker.number}/stop`)
      expect(r.code, describeRun(r)).not.toBe(0)
      expect(r.signal).toBeNull()
      const number = (job: string) =>
        Number(
          /Jenkins build [\w-]+ #(\d+) started/.exec(
            r.stdout.split('\n').find(l => l.includes(`build ${job} #`)) ?? ''
          )?.[1]
        )
      const free = jenkins.builds('c-free').find(b => b.number === number('c-free'))
      const pipe = jenkins.builds('c-pipe').find(b => b.number === number('c-pipe'))
      expect(free?.result).toBe('ABORTED')
      expect(pipe?.result).toBe('ABORTED')
      const queueUrl = /Queued c-queued in Jenkins: (\S+)/.exec(r.stdout)?.[1]
      const item = jenkins.state.queue.find(i => `${jenkins.url}/queue/item/${i.id}/` === queueUrl)
      expect(item?.cancelled).toBe(true)
      const message = failure(r)
      expect(message).toMatch(/^The workflow was cancelled while waiting for 3 Jenkins builds; /)
      expect(message).toContain(
        `c-free: stopped Jenkins build #${free?.number} (stop; result ABORTED)`
      )
      expect(message).toContain(
        `c-pipe: stopped Jenkins build #${pipe?.number} (stop; result ABORTED)`
      )
      expect(message).toContain(`c-queued: cancelled Jenkins queue item ${item?.id}`)
      expect(r.state.done).toBe('true')
      expect(builds(r).map(b => b.job)).toEqual(['c-free', 'c-pipe', 'c-queued'])
    })

    it('timeout: every build stopped, the message says how long it waited', async () => {
      const r = await run(NODE24, { ...as('timeout'), jobs: 't-a\nt-b', timeout: '3' })
      expect(r.code, describeRun(r)).not.toBe(0)
      const out = builds(r)
      for (const b of out) expect(serverBuild(r, b.job)?.result, b.job).toBe('ABORTED')
      expect(failure(r)).toMatch(
        /^Timed out after 3 s \(timeout: 3 s\) waiting for 2 Jenkins builds; t-a: stopped Jenkins build #\d+ \(stop; result ABORTED\); t-b: stopped Jenkins build #\d+/
      )
    })

    it('post step after a killed main step: stops every build it started', async () => {
      const action = startAction(
        { ...as('post'), jobs: 'k-a\nk-b' },
        { node: NODE24, killAfterMs: 45_000 }
      )
      await action.waitForOutput(
        /Jenkins build k-a #\d+ started[\s\S]*Jenkins build k-b #\d+ started|Jenkins build k-b #\d+ started[\s\S]*Jenkins build k-a #\d+ started/
      )
      action.child.kill('SIGKILL')
      const killed = await action.done
      expect(killed.state.done).toBe('false')
      const post = await run(NODE24, { ...as('post'), jobs: 'k-a\nk-b' }, { state: killed.state })
      expect(post.code, describeRun(post)).toBe(0)
      const saved = JSON.parse(killed.state.builds ?? '[]') as Array<{
        job: string[]
        number: number
      }>
      expect(saved.map(s => s.job[0]).sort()).toEqual(['k-a', 'k-b'])
      for (const s of saved) {
        const b = jenkins.builds(s.job[0] as string).find(x => x.number === s.number)
        expect(b?.result, s.job[0]).toBe('ABORTED')
        expect(post.stdout).toContain(`Post step: ${s.job[0]}: stopped Jenkins build #${s.number}`)
      }
    })
  })

  describe('when Jenkins will not list the running builds', () => {
    let refusing: TestJenkins
    beforeAll(async () => {
      refusing = await startJenkins({
        quietPeriodSec: 0,
        executors: 4,
        users: [
          { name: 'admin', password: 'admin', apiToken: ADMIN_TOKEN, permissions: ['admin'] }
        ],
        jobs: { 'r-a': quick(300), 'r-b': quick(600, { result: 'UNSTABLE' }) }
      })
      // A reverse proxy that only lets job and queue URLs through.
      refusing.aim({ kind: 'computer', effect: { type: 'status', status: 404 } })
    })
    afterAll(() => refusing.close())

    it('follows each build on its own and reports them all the same', async () => {
      const r = await run(RUNTIMES[1]?.path as string, {
        url: refusing.url,
        user: 'admin',
        token: ADMIN_TOKEN,
        jobs: 'r-a\nr-b',
        accept: 'SUCCESS,UNSTABLE'
      })
      expect(r.code, describeRun(r)).toBe(0)
      expect(builds(r).map(b => [b.job, b.result])).toEqual([
        ['r-a', 'SUCCESS'],
        ['r-b', 'UNSTABLE']
      ])
      // Refused once, then never asked again; the builds were polled instead.
      expect(refusing.requests.filter(q => q.kind === 'computer')).toHaveLength(1)
      const polls = refusing.requests.filter(q => q.kind === 'build' && q.query.includes('tree='))
      expect(polls.length).toBeGreaterThan(0)
    })
  })
})
