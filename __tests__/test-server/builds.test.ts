import { afterEach, describe, expect, it } from 'vitest'
import { startJenkins, type ServerOptions, type TestJenkins } from '../../test-server/index.js'
import { ADMIN, basic, get, getJson, post, waitFor } from './helpers.js'

let jenkins: TestJenkins | undefined

async function start(options: ServerOptions = {}): Promise<TestJenkins> {
  jenkins = await startJenkins({
    users: [
      { ...ADMIN, permissions: ['admin'] },
      { name: 'viewer', apiToken: 'tok-v', permissions: ['read'] }
    ],
    quietPeriodSec: 0,
    executors: 4,
    jobs: {
      ok: { script: { durationMs: 150 } },
      params: {
        parameters: [
          { name: 'BRANCH', default: 'main' },
          { name: 'DEBUG', type: 'boolean' },
          { name: 'PASS', type: 'password', default: 'x' }
        ],
        script: { durationMs: 150, echoParameters: true }
      },
      unstable: {
        script: { durationMs: 150, result: 'UNSTABLE', tests: { total: 5, failed: 1, skipped: 2 } }
      },
      fail: { script: { durationMs: 100, result: 'FAILURE' } },
      early: {
        type: 'pipeline',
        script: {
          durationMs: 600,
          earlyResult: { afterMs: 50, result: 'FAILURE' },
          stopDelayMs: 200
        }
      },
      long: { script: { durationMs: 30_000 } },
      longpipe: { type: 'pipeline', script: { durationMs: 30_000, stopDelayMs: 5_000 } },
      f: { type: 'folder', jobs: { 'my job': { script: { durationMs: 100 } } } }
    },
    ...options
  })
  return jenkins
}

afterEach(async () => {
  await jenkins?.close()
  jenkins = undefined
})

type BuildJson = Record<string, unknown> & {
  building: boolean
  result: string | null
  actions: Array<Record<string, unknown>>
}

async function finished(j: TestJenkins, job: string, n: number): Promise<BuildJson> {
  return waitFor(async () => {
    const b = await getJson<BuildJson>(j, `${jobPath(job)}/${n}/api/json`)
    return b.building ? undefined : b
  }, `${job} #${n} to finish`)
}

function jobPath(fullName: string): string {
  return fullName
    .split('/')
    .map(n => `/job/${encodeURIComponent(n)}`)
    .join('')
}

describe('the end of a build (Run.execute, WorkflowRun.finish)', () => {
  const gap = { finishedAfterMs: 400, closedAfterMs: 400 }
  const jobs = {
    slow: {
      script: {
        durationMs: 100,
        endGap: gap,
        completedLines: ['Triggering a new build of downstream']
      }
    },
    slowpipe: {
      type: 'pipeline' as const,
      script: { durationMs: 100, endGap: gap, afterFinishedLines: ['Failed to clean up stashes'] }
    }
  }

  async function log(j: TestJenkins, path: string) {
    const res = await get(j, `${path}/logText/progressiveText`)
    return { more: res.headers.get('x-more-data'), text: await res.text() }
  }

  it('turns building false first, writes Finished: while the log is open, then closes it', async () => {
    const j = await start({ jobs })
    await post(j, '/job/slow/build')
    const ended = await finished(j, 'slow', 1)
    // POST_PRODUCTION: the result is final, the executor still holds the run.
    expect(ended).toMatchObject({ building: false, inProgress: true, result: 'SUCCESS' })
    expect(ended.executor).not.toBeNull()
    const during = await log(j, '/job/slow/1')
    expect(during.more).toBe('true')
    expect(during.text).toContain('Triggering a new build of downstream\r\n')
    expect(during.text).not.toContain('Finished:')

    const build = j.builds('slow')[0]
    await waitFor(() => (build?.consoleText().includes('Finished:') ? true : undefined))
    expect(build?.logUpdated).toBe(true)
    expect((await log(j, '/job/slow/1')).more).toBe('true')

    await waitFor(() => (build?.logUpdated ? undefined : true), 'the log to close')
    const closed = await log(j, '/job/slow/1')
    expect(closed.more).toBeNull()
    expect(
      closed.text.endsWith('Triggering a new build of downstream\r\nFinished: SUCCESS\r\n')
    ).toBe(true)
    expect(build?.logClosedAt).toBeGreaterThanOrEqual((build?.finishedAt ?? 0) + 700)
    const done = await getJson<BuildJson>(j, '/job/slow/1/api/json')
    expect(done).toMatchObject({ building: false, inProgress: false, executor: null })
  })

  it('ends a Pipeline with End of Pipeline before, and may write after, Finished:', async () => {
    const j = await start({ jobs })
    await post(j, '/job/slowpipe/build')
    const ended = await finished(j, 'slowpipe', 1)
    // WorkflowRun: completed = true turns inProgress and building false together.
    expect(ended).toMatchObject({ building: false, inProgress: false })
    const build = j.builds('slowpipe')[0]
    expect(build?.consoleText().endsWith('[Pipeline] End of Pipeline\n')).toBe(true)
    await waitFor(() => (build?.logUpdated ? undefined : true), 'the log to close')
    expect(build?.consoleText().endsWith('Finished: SUCCESS\nFailed to clean up stashes\n')).toBe(
      true
    )
  })

  it('estimates from up to three recent builds, as Job.getEstimatedDuration', async () => {
    const j = await start()
    j.addHistory('ok', [
      { durationMs: 90_000 },
      { durationMs: 10_000, result: 'FAILURE' },
      { durationMs: 4000 },
      { durationMs: 6000, result: 'UNSTABLE' },
      { durationMs: 2000, result: 'ABORTED' }
    ])
    // The last successful (#4: unstable counts), then #3 and #1; the failure is not needed, the abort never counts.
    const job = await getJson<{ builds: Array<{ number: number }> }>(
      j,
      '/job/ok/api/json?tree=builds[number]'
    )
    expect(job.builds.map(b => b.number)).toEqual([5, 4, 3, 2, 1])
    await post(j, '/job/ok/build')
    const running = await getJson<BuildJson>(j, '/job/ok/6/api/json')
    expect(running.estimatedDuration).toBe(Math.round((6000 + 4000 + 90_000) / 3))
  })
})

describe('build JSON (jenkins-api.md 5)', () => {
  it('exports the fields of 5.2 with result null and duration 0 while running', async () => {
    const j = await start({ rootUrl: 'https://jenkins.example.com/' })
    await post(j, '/job/params/buildWithParameters?BRANCH=dev&EXTRA=1')
    const running = await getJson<BuildJson>(j, '/job/params/1/api/json')
    expect(running).toMatchObject({
      _class: 'hudson.model.FreeStyleBuild',
      building: true,
      inProgress: true,
      result: null,
      duration: 0,
      estimatedDuration: -1,
      id: '1',
      number: 1,
      queueId: 1,
      displayName: '#1',
      fullDisplayName: 'params #1',
      url: 'https://jenkins.example.com/job/params/1/'
    })
    expect(running.executor).toEqual({ _class: 'hudson.model.Executor' })
    expect(Object.keys(running).slice(0, 5)).toEqual([
      '_class',
      'actions',
      'artifacts',
      'building',
      'description'
    ])
    expect(running.actions[0]).toEqual({
      _class: 'hudson.model.ParametersAction',
      parameters: [
        { _class: 'hudson.model.StringParameterValue', name: 'BRANCH', value: 'dev' },
        { _class: 'hudson.model.BooleanParameterValue', name: 'DEBUG', value: false },
        { _class: 'hudson.model.PasswordParameterValue', name: 'PASS' }
      ]
    })
    expect(running.actions[1]).toEqual({
      _class: 'hudson.model.CauseAction',
      causes: [
        {
          _class: 'hudson.model.Cause$UserIdCause',
          shortDescription: 'Started by user admin',
          userId: 'admin',
          userName: 'admin'
        }
      ]
    })
    const done = await finished(j, 'params', 1)
    expect(done.result).toBe('SUCCESS')
    expect(done.duration).toBeGreaterThanOrEqual(140)
    // The executor holds the run until the log is closed (Run.execute returns).
    await waitFor(() => (j.builds('params')[0]?.logUpdated ? undefined : true), 'the log')
    expect((await getJson<BuildJson>(j, '/job/params/1/api/json')).executor).toBeNull()
    const build = j.builds('params')[0]
    expect(build?.parameters).toEqual({ BRANCH: 'dev', DEBUG: false, PASS: 'x' })
    expect(build?.finishedAt).toBeGreaterThanOrEqual(build?.startedAt ?? Infinity)
    expect(build?.queuedAt).toBeLessThanOrEqual(build?.startedAt ?? 0)
    // The next build estimates from history.
    await post(j, '/job/params/buildWithParameters?BRANCH=other')
    const second = await getJson<BuildJson>(j, '/job/params/2/api/json')
    expect(second.estimatedDuration).toBe(done.duration)
  })

  it('publishes a test report action and resolves permalinks', async () => {
    const j = await start()
    expect((await get(j, '/job/unstable/lastBuild/api/json')).status).toBe(404)
    await post(j, '/job/unstable/build')
    const b = await finished(j, 'unstable', 1)
    expect(b.result).toBe('UNSTABLE')
    expect(b.actions).toContainEqual({
      _class: 'hudson.tasks.junit.TestResultAction',
      failCount: 1,
      skipCount: 2,
      totalCount: 5,
      urlName: 'testReport'
    })
    expect((await get(j, '/job/unstable/lastSuccessfulBuild/api/json')).status).toBe(200)
    expect((await get(j, '/job/unstable/lastFailedBuild/api/json')).status).toBe(404)
    const notFound = await get(j, '/job/unstable/lastStableBuild/api/json')
    expect(notFound.status).toBe(404)
    expect(notFound.headers.get('content-type')).toContain('text/html')

    await post(j, '/job/fail/build')
    await finished(j, 'fail', 1)
    expect((await get(j, '/job/fail/lastSuccessfulBuild/api/json')).status).toBe(404)
    const failed = await getJson<BuildJson>(j, '/job/fail/lastFailedBuild/api/json')
    expect(failed.number).toBe(1)
    const job = await getJson<Record<string, unknown>>(j, '/job/fail/api/json')
    expect(job.color).toBe('red')
    expect(job.lastCompletedBuild).toEqual({
      _class: 'hudson.model.FreeStyleBuild',
      number: 1,
      url: `${j.url}/job/fail/1/`
    })
    expect(job.lastSuccessfulBuild).toBeNull()
  })

  it('lets a pipeline set its result while still building', async () => {
    const j = await start()
    await post(j, '/job/early/build')
    const mid = await waitFor(async () => {
      const b = await getJson<BuildJson>(j, '/job/early/1/api/json')
      return b.result !== null ? b : undefined
    }, 'early result')
    expect(mid.building).toBe(true)
    expect(mid.result).toBe('FAILURE')
    expect(mid._class).toBe('org.jenkinsci.plugins.workflow.job.WorkflowRun')
    const job = await getJson<Record<string, unknown>>(j, '/job/early/api/json')
    expect(job.color).toBe('notbuilt_anime')
    const done = await finished(j, 'early', 1)
    expect(done.result).toBe('FAILURE')
  })

  it('shows fullDisplayName with » in folders', async () => {
    const j = await start()
    await post(j, '/job/f/job/my%20job/build')
    const b = await getJson<BuildJson>(j, '/job/f/job/my%20job/1/api/json')
    expect(b.fullDisplayName).toBe('f » my job #1')
    expect(b.url).toBe(`${j.url}/job/f/job/my%20job/1/`)
  })
})

describe('stop, term, kill (jenkins-api.md 7)', () => {
  it('answers 302 to the Referer or the build page and ends the build ABORTED', async () => {
    const j = await start()
    await post(j, '/job/long/build')
    expect((await get(j, '/job/long/1/stop')).status).toBe(405)
    expect((await post(j, '/job/long/1/stop', { auth: basic('viewer', 'tok-v') })).status).toBe(403)
    const res = await post(j, '/job/long/1/stop')
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe(`${j.url}/job/long/1/`)
    expect(res.headers.get('x-jenkins')).toBeNull()
    const b = await finished(j, 'long', 1)
    expect(b.result).toBe('ABORTED')
    // Not running any more: still 302, to the Referer this time.
    const again = await post(j, '/job/long/1/stop', { headers: { referer: 'http://x/back' } })
    expect(again.status).toBe(302)
    expect(again.headers.get('location')).toBe('http://x/back')
    // term and kill exist only on pipelines.
    expect((await post(j, '/job/long/1/term')).status).toBe(404)
  })

  it('lets a pipeline take stopDelayMs to stop, while kill ends it at once', async () => {
    const j = await start()
    await post(j, '/job/longpipe/build')
    expect((await post(j, '/job/longpipe/1/stop')).status).toBe(302)
    await new Promise(r => setTimeout(r, 50))
    expect(j.builds('longpipe')[0]?.building).toBe(true)
    expect((await post(j, '/job/longpipe/1/kill')).status).toBe(302)
    expect(j.builds('longpipe')[0]?.building).toBe(false)
    expect(j.builds('longpipe')[0]?.result).toBe('ABORTED')

    await post(j, '/job/early/build')
    await post(j, '/job/early/1/stop')
    const b = await finished(j, 'early', 1)
    expect(b.result).toBe('ABORTED')
    const build = j.builds('early')[0]
    expect((build?.finishedAt ?? 0) - (build?.stopRequestedAt ?? 0)).toBeGreaterThanOrEqual(190)
  })
})

describe('disable and enable (jenkins-api.md 8)', () => {
  it('answers 302 to the job, 405 on GET, and flips buildable', async () => {
    const j = await start()
    const get405 = await get(j, '/job/ok/disable')
    expect(get405.status).toBe(405)
    expect(get405.headers.get('allow')).toBe('POST')
    const res = await post(j, '/job/ok/disable')
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe(`${j.url}/job/ok/`)
    expect((await post(j, '/job/ok/disable')).status).toBe(302)
    expect((await post(j, '/job/ok/build')).status).toBe(409)
    expect((await post(j, '/job/ok/enable')).status).toBe(302)
    const job = await getJson<Record<string, unknown>>(j, '/job/ok/api/json')
    expect(job).toMatchObject({ disabled: false, buildable: true, color: 'notbuilt' })
    expect((await post(j, '/job/ok/build')).status).toBe(201)
  })
})
