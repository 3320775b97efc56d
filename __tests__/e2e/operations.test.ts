/**
 * End to end: job names of every shape, results and `accept`, the `wait`
 * modes, `build: last` / `last-successful`, `disable` and `list-jobs`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorAnnotation, startAction } from '../../scripts/action-runner.js'
import {
  startJenkins,
  stripNotes,
  type JobSpec,
  type JobState,
  type TestJenkins
} from '../../test-server/index.js'
import { ADMIN_TOKEN, auth, describeRun, run, RUNTIMES } from './helpers.js'

const quick = (line: string, durationMs = 150): JobSpec => ({
  script: { durationMs, consoleLines: [line] }
})

/** A fresh spec per server: the server keeps the script objects it is given, and tests change them. */
const jobs = (): Record<string, JobSpec> => ({
  team: {
    type: 'folder',
    jobs: {
      service: {
        type: 'folder',
        jobs: {
          deploy: {
            type: 'pipeline',
            parameters: [{ name: 'ENV', type: 'choice', choices: ['dev', 'prod'] }],
            script: { durationMs: 150, echoParameters: true }
          }
        }
      }
    }
  },
  repo: {
    type: 'multibranch',
    jobs: { main: quick('main branch'), 'feature%2Fx': quick('feature branch') }
  },
  'my job': quick('a job with a space'),
  café: quick('non-ASCII name'),
  failing: {
    script: {
      durationMs: 200,
      result: 'FAILURE',
      consoleLines: ['Compiling', 'error: boom', 'see the log above']
    }
  },
  'failing-accepted': { script: { durationMs: 150, result: 'FAILURE' } },
  // A Pipeline whose result is set while it still runs (jenkins-api.md 5.2).
  'pipe-unstable': {
    type: 'pipeline',
    script: {
      durationMs: 600,
      result: 'UNSTABLE',
      earlyResult: { afterMs: 50, result: 'UNSTABLE' }
    }
  },
  'pipe-worse': {
    type: 'pipeline',
    script: { durationMs: 600, result: 'FAILURE', earlyResult: { afterMs: 50, result: 'UNSTABLE' } }
  },
  'no-wait': quick('fire and forget', 400),
  'wait-started': quick('started', 3000),
  // Long enough that a step started on a busy machine still finds it running.
  'last-running': quick('running', 8000),
  'last-no-wait': quick('running', 2000),
  history: quick('history'),
  'never-built': quick('never'),
  'to-disable': quick('to disable'),
  'not-mine': quick('not mine'),
  // Over before the action first looks at it.
  instant: {
    script: { durationMs: 0, result: 'FAILURE', consoleLines: ['instant output', 'instant end'] }
  }
})

/** POSTs a build directly (API token: no crumb) and returns its number once it exists. */
async function startBuildDirectly(jenkins: TestJenkins, job: string): Promise<number> {
  const before = jenkins.builds(job).length
  const res = await fetch(`${jenkins.url}/job/${job}/build?delay=0sec`, {
    method: 'POST',
    headers: { authorization: 'Basic ' + Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64') },
    redirect: 'manual'
  })
  expect(res.status).toBe(201)
  for (;;) {
    const build = jenkins.builds(job)[before]
    if (build) return build.number
    await new Promise(r => setTimeout(r, 10))
  }
}

async function finished(jenkins: TestJenkins, job: string, number: number): Promise<void> {
  while (jenkins.builds(job).find(b => b.number === number)?.building !== false) {
    await new Promise(r => setTimeout(r, 10))
  }
}

/** Time (epoch ms) at which the action printed that the build finished. */
async function detectionTime(
  node: string,
  inputs: Record<string, string>
): Promise<{ at: number; run: Awaited<ReturnType<typeof run>> }> {
  const action = startAction(inputs, { node, killAfterMs: 45_000 })
  let at = Number.NaN
  await action.waitForOutput(/^Jenkins build .* finished: /m).then(() => (at = Date.now()))
  return { at, run: await action.done }
}

/** Every job's full name below a folder, folders themselves left out. */
function jobNames(folder: JobState): string[] {
  const names: string[] = []
  for (const child of folder.children.values()) {
    if (child.type === 'folder' || child.type === 'multibranch') names.push(...jobNames(child))
    else names.push(child.fullName)
  }
  return names
}

describe.each(RUNTIMES)('operations ($name)', ({ path: node }) => {
  let jenkins: TestJenkins
  beforeAll(async () => {
    jenkins = await startJenkins({
      quietPeriodSec: 0,
      users: [
        { name: 'admin', password: 'admin', apiToken: ADMIN_TOKEN, permissions: ['admin'] },
        { name: 'builder', apiToken: 'builder-token-0123456789', permissions: ['read', 'build'] }
      ],
      jobs: jobs()
    })
  })
  afterAll(() => jenkins.close())

  describe.concurrent('job names', () => {
    it('finds a job in folders by full name, by URL path and by full URL', async () => {
      const forms = [
        'team/service/deploy',
        'job/team/job/service/job/deploy',
        `${jenkins.url}/job/team/job/service/job/deploy/`
      ]
      for (const [i, job] of forms.entries()) {
        const r = await run(node, { ...auth(jenkins), job, parameters: 'ENV=prod' })
        expect(r.code, describeRun(r)).toBe(0)
        expect(r.outputs['build-number']).toBe(String(i + 1))
        expect(r.outputs['job-url']).toBe(`${jenkins.url}/job/team/job/service/job/deploy/`)
        expect(r.outputs['build-url']).toBe(
          `${jenkins.url}/job/team/job/service/job/deploy/${i + 1}/`
        )
        expect(r.stdout).toContain('ENV=prod')
      }
      expect(jenkins.triggerCount('team/service/deploy')).toBe(3)
      expect(jenkins.builds('team/service/deploy').map(b => b.result)).toEqual([
        'SUCCESS',
        'SUCCESS',
        'SUCCESS'
      ])
    })

    it('builds a multibranch branch, its encoded slash encoded again in the URL', async () => {
      const r = await run(node, { ...auth(jenkins), job: 'repo/feature%2Fx' })
      expect(r.code, describeRun(r)).toBe(0)
      const trigger = jenkins.requests.find(
        q => q.kind === 'trigger' && q.job === 'repo/feature%2Fx'
      )
      expect(trigger?.path).toBe('/job/repo/job/feature%252Fx/build')
      expect(jenkins.builds('repo/feature%2Fx')).toHaveLength(1)
      expect(jenkins.builds('repo/main')).toHaveLength(0)
      expect(r.outputs['build-url']).toBe(`${jenkins.url}/job/repo/job/feature%252Fx/1/`)
      expect(r.stdout).toContain('feature branch')
    })

    it('builds jobs named with a space and with a non-ASCII letter', async () => {
      for (const [job, path] of [
        ['my job', '/job/my%20job/'],
        ['café', '/job/caf%C3%A9/']
      ] as const) {
        const r = await run(node, { ...auth(jenkins, 'password'), job })
        expect(r.code, describeRun(r)).toBe(0)
        expect(jenkins.builds(job)).toHaveLength(1)
        expect(jenkins.requests.find(q => q.kind === 'trigger' && q.job === job)?.path).toBe(
          `${path}build`
        )
        expect(r.outputs['job-url']).toBe(`${jenkins.url}${path}`)
      }
    })
  })

  describe.concurrent('results', () => {
    it('fails the step on a failed build, naming the job and build and ending with the console', async () => {
      const r = await run(node, { ...auth(jenkins), job: 'failing' })
      expect(r.code, describeRun(r)).toBe(1)
      expect(r.outputs.result).toBe('FAILURE')
      const [build] = jenkins.builds('failing')
      const url = `${jenkins.url}/job/failing/${build?.number}/`
      expect(r.outputs['build-url']).toBe(url)
      const annotation = errorAnnotation(r)
      const head = annotation.split('\n')[0]
      expect(head).toContain('failing')
      expect(head).toContain(`#${build?.number}`)
      expect(head).toContain('FAILURE')
      expect(head).toContain(url)
      const console = stripNotes(build?.consoleText() ?? '')
        .split('\n')
        .filter(l => l !== '')
      expect(console.slice(-3)).toEqual(['error: boom', 'see the log above', 'Finished: FAILURE'])
      expect(annotation.endsWith(console.slice(-3).join('\n'))).toBe(true)
      expect(r.stderr).toBe('')
    })

    it('shows the console of a build that was over before the action first looked at it', async () => {
      const r = await run(node, { ...auth(jenkins), job: 'instant' })
      expect(r.code, describeRun(r)).toBe(1)
      expect(r.stdout).toMatch(/^::group::Console of Jenkins instant #1\n::stop-commands::/m)
      expect(r.stdout).toContain('instant output\ninstant end\nFinished: FAILURE\n')
      expect(errorAnnotation(r).endsWith('instant end\nFinished: FAILURE')).toBe(true)
    })

    it('passes a failed build that accept lists', async () => {
      const r = await run(node, {
        ...auth(jenkins),
        job: 'failing-accepted',
        accept: 'SUCCESS,FAILURE'
      })
      expect(r.code, describeRun(r)).toBe(0)
      expect(r.outputs.result).toBe('FAILURE')
      expect(errorAnnotation(r)).toBe('')
    })

    it('judges a Pipeline with an early UNSTABLE only once it has ended', async () => {
      const { at, run: r } = await detectionTime(node, {
        ...auth(jenkins),
        job: 'pipe-unstable',
        accept: 'UNSTABLE,SUCCESS'
      })
      expect(r.code, describeRun(r)).toBe(0)
      expect(r.outputs.result).toBe('UNSTABLE')
      const [build] = jenkins.builds('pipe-unstable')
      expect(build?.finishedAt).not.toBeNull()
      expect(build!.finishedAt!).toBeLessThanOrEqual(at)
      expect(Number(r.outputs.duration)).toBe(build!.finishedAt! - build!.startedAt)
    })

    it('reports the final result of a Pipeline that was UNSTABLE early and FAILED at the end', async () => {
      const { at, run: r } = await detectionTime(node, {
        ...auth(jenkins),
        job: 'pipe-worse',
        accept: 'UNSTABLE,SUCCESS'
      })
      expect(r.code, describeRun(r)).toBe(1)
      expect(r.outputs.result).toBe('FAILURE')
      const [build] = jenkins.builds('pipe-worse')
      expect(build!.finishedAt!).toBeLessThanOrEqual(at)
      expect(errorAnnotation(r)).toContain('FAILURE')
    })
  })

  describe.concurrent('wait modes', () => {
    it('wait: false returns once queued; the build still runs', async () => {
      const r = await run(node, { ...auth(jenkins), job: 'no-wait', wait: 'false' })
      expect(r.code, describeRun(r)).toBe(0)
      expect(r.outputs['queue-url']).toMatch(new RegExp(`^${jenkins.url}/queue/item/\\d+/$`))
      expect(r.outputs['build-number']).toBeUndefined()
      expect(r.outputs.result).toBeUndefined()
      expect(r.outputs['job-url']).toBe(`${jenkins.url}/job/no-wait/`)
      expect(jenkins.triggerCount('no-wait')).toBe(1)
      // The post step leaves what the step did not wait for, and says so.
      const post = await run(
        node,
        { ...auth(jenkins), job: 'no-wait', wait: 'false' },
        { state: r.state }
      )
      expect(post.code, describeRun(post)).toBe(0)
      expect(post.stdout.trim()).toBe(
        `Post step: nothing to stop; the main step returned without waiting, as asked: queue item ${/item\/(\d+)\//.exec(r.outputs['queue-url'] ?? '')?.[1]} of no-wait (${r.outputs['queue-url']}) goes on in Jenkins (wait: false).`
      )
      expect(jenkins.triggerCount('no-wait')).toBe(1)
      // No further request after the trigger asked about the build.
      const id = Number(/item\/(\d+)\//.exec(r.outputs['queue-url'] ?? '')?.[1])
      const started = await (async () => {
        for (;;) {
          const build = jenkins.builds('no-wait')[0]
          if (build) return build
          await new Promise(res => setTimeout(res, 10))
        }
      })()
      expect(started.queueId).toBe(id)
      await finished(jenkins, 'no-wait', started.number)
      expect(started.result).toBe('SUCCESS')
    })

    it('wait: started returns with the build number and URL before the build ends', async () => {
      const r = await run(node, { ...auth(jenkins), job: 'wait-started', wait: 'started' })
      const exitedAt = Date.now()
      expect(r.code, describeRun(r)).toBe(0)
      const [build] = jenkins.builds('wait-started')
      expect(r.outputs['build-number']).toBe(String(build?.number))
      expect(r.outputs['build-url']).toBe(`${jenkins.url}/job/wait-started/${build?.number}/`)
      expect(r.outputs.result ?? '').toBe('')
      expect(r.outputs.duration ?? '').toBe('')
      // Still running when the step ended (server clock, not a time limit).
      expect(build?.finishedAt === null || build!.finishedAt! > exitedAt).toBe(true)
      expect(JSON.parse(r.outputs.build ?? '{}')).toMatchObject({ building: true })
      const post = await run(
        node,
        { ...auth(jenkins), job: 'wait-started', wait: 'started' },
        { state: r.state }
      )
      expect(post.code, describeRun(post)).toBe(0)
      expect(post.stdout.trim()).toBe(
        `Post step: nothing to stop; the main step returned without waiting, as asked: Jenkins build wait-started #${build?.number} (${r.outputs['build-url']}) goes on running (wait: started).`
      )
      expect(
        jenkins.requests.filter(q => q.job === 'wait-started' && q.method === 'POST')
      ).toHaveLength(1)
    })
  })

  describe.concurrent('existing builds', () => {
    it('build: last waits for a running last build and reports it, triggering nothing', async () => {
      const number = await startBuildDirectly(jenkins, 'last-running')
      const { at, run: r } = await detectionTime(node, {
        ...auth(jenkins),
        job: 'last-running',
        build: 'last'
      })
      expect(r.code, describeRun(r)).toBe(0)
      expect(r.outputs['build-number']).toBe(String(number))
      expect(r.outputs.result).toBe('SUCCESS')
      const build = jenkins.builds('last-running')[0]
      expect(build!.finishedAt!).toBeLessThanOrEqual(at)
      // It did find the build running, and waited (server clock).
      const firstLook = jenkins.requests.find(q => q.kind === 'build' && q.job === 'last-running')
      expect(firstLook!.time).toBeLessThan(build!.finishedAt!)
      expect(jenkins.triggerCount('last-running')).toBe(1)
      expect(r.outputs['queue-url']).toBeUndefined()
    })

    it('build: last with wait: false: the post step is told the build goes on (wait: false)', async () => {
      const number = await startBuildDirectly(jenkins, 'last-no-wait')
      const r = await run(node, {
        ...auth(jenkins),
        job: 'last-no-wait',
        build: 'last',
        wait: 'false'
      })
      expect(r.code, describeRun(r)).toBe(0)
      expect(r.state['returned']).toBe(
        `Jenkins build last-no-wait #${number} (${jenkins.url}/job/last-no-wait/${number}/) goes on running (wait: false)`
      )
    })

    it('build: last and last-successful pick different builds', async () => {
      const first = await startBuildDirectly(jenkins, 'history')
      await finished(jenkins, 'history', first)
      jenkins.state.findJob('history')!.script.result = 'FAILURE'
      const second = await startBuildDirectly(jenkins, 'history')
      await finished(jenkins, 'history', second)

      const last = await run(node, { ...auth(jenkins), job: 'history', build: 'last' })
      expect(last.code, describeRun(last)).toBe(1)
      expect(last.outputs['build-number']).toBe(String(second))
      expect(last.outputs.result).toBe('FAILURE')

      const good = await run(node, { ...auth(jenkins), job: 'history', build: 'last-successful' })
      expect(good.code, describeRun(good)).toBe(0)
      expect(good.outputs['build-number']).toBe(String(first))
      expect(good.outputs.result).toBe('SUCCESS')
      expect(good.outputs['build-url']).toBe(`${jenkins.url}/job/history/${first}/`)
      expect(jenkins.triggerCount('history')).toBe(2)
    })

    it('build: last on a job without builds says so, without a stack trace', async () => {
      for (const build of ['last', 'last-successful']) {
        const r = await run(node, { ...auth(jenkins), job: 'never-built', build })
        expect(r.code, describeRun(r)).toBe(1)
        expect(errorAnnotation(r)).toMatch(/never-built has no (successful )?build yet/)
        expect(r.stdout + r.stderr).not.toMatch(/^\s+at /m)
      }
      expect(jenkins.builds('never-built')).toHaveLength(0)
    })
  })

  describe.concurrent('disable', () => {
    it('disable: true disables the job and builds nothing', async () => {
      const r = await run(node, {
        ...auth(jenkins, 'password'),
        job: 'to-disable',
        disable: 'true'
      })
      expect(r.code, describeRun(r)).toBe(0)
      expect(jenkins.state.findJob('to-disable')?.disabled).toBe(true)
      expect(jenkins.builds('to-disable')).toHaveLength(0)
      expect(r.outputs['job-url']).toBe(`${jenkins.url}/job/to-disable/`)
      expect(r.stdout).toContain('Disabled Jenkins job to-disable')
    })

    it('disable by a user without Job/Configure says which permission is missing', async () => {
      const r = await run(node, {
        url: jenkins.url,
        user: 'builder',
        token: 'builder-token-0123456789',
        job: 'not-mine',
        disable: 'true'
      })
      expect(r.code, describeRun(r)).toBe(1)
      const message = errorAnnotation(r)
      expect(message).toContain('Job/Configure')
      expect(message).toContain("'builder'")
      expect(message).not.toContain('builder-token-0123456789')
      expect(jenkins.state.findJob('not-mine')?.disabled).toBe(false)
    })
  })
})

describe.each(RUNTIMES)('list-jobs ($name)', ({ path: node }) => {
  let jenkins: TestJenkins
  beforeAll(async () => {
    jenkins = await startJenkins({ contextPath: '/jenkins', jobs: jobs() })
  })
  afterAll(() => jenkins.close())

  it('lists every job of the server, recursing into folders, in one request', async () => {
    const before = jenkins.requests.length
    const r = await run(node, { ...auth(jenkins, 'password'), 'list-jobs': 'true' })
    expect(r.code, describeRun(r)).toBe(0)
    const jobs = JSON.parse(r.outputs.jobs ?? '') as string[]
    expect([...jobs].sort()).toEqual(jobNames(jenkins.state.root).sort())
    expect(jobs).toContain('team/service/deploy')
    expect(jobs).toContain('repo/feature%2Fx')
    expect(jobs).not.toContain('team')
    expect(jobs).not.toContain('repo')
    const made = jenkins.requests.slice(before)
    expect(made.map(q => q.kind)).toEqual(['list'])
  })

  it('lists the jobs of a folder', async () => {
    const before = jenkins.requests.length
    const r = await run(node, { ...auth(jenkins), 'list-jobs': 'true', job: 'team' })
    expect(r.code, describeRun(r)).toBe(0)
    expect(JSON.parse(r.outputs.jobs ?? '')).toEqual(['team/service/deploy'])
    expect(r.outputs['job-url']).toBe(`${jenkins.url}/job/team/`)
    expect(jenkins.requests.slice(before).map(q => q.kind)).toEqual(['list'])
  })
})
