import { afterEach, describe, expect, it } from 'vitest'
import { startJenkins, type ServerOptions, type TestJenkins } from '../../test-server/index.js'
import { ADMIN, crumbSession, get, getJson, PASSWORD, post, queueId, waitFor } from './helpers.js'

const EVIL = '\n::stop-commands::x'

let jenkins: TestJenkins | undefined

async function start(options: ServerOptions = {}): Promise<TestJenkins> {
  jenkins = await startJenkins({
    users: [{ ...ADMIN, permissions: ['admin'] }],
    quietPeriodSec: 0,
    jobs: {
      serial: { script: { durationMs: 300, result: 'UNSTABLE' } },
      // Not concurrent, and running until stopped: the next item stays queued
      // with a why, and the build running, however slow the machine is.
      held: { script: { durationMs: 600_000 } },
      folder: { type: 'folder', jobs: { inner: {} } }
    },
    ...options
  })
  return jenkins
}

afterEach(async () => {
  await jenkins?.close()
  jenkins = undefined
})

type Json = Record<string, unknown>

describe('a hostile Jenkins (ServerOptions.hostile)', () => {
  it('serves its text in front of names, display names, why, results and causes', async () => {
    const j = await start({ hostile: { text: EVIL } })
    const first = queueId((await post(j, '/job/held/build?delay=0sec')).headers.get('location'))
    await waitFor(() => j.builds('held')[0], 'build #1 to start')
    const second = queueId((await post(j, '/job/held/build?delay=0sec')).headers.get('location'))
    expect(second).not.toBe(first)

    const queued = await getJson<Json>(j, `/queue/item/${second}/api/json`)
    expect(queued.why).toBe(`${EVIL}Build #1 is already in progress (ETA: N/A)`)
    expect((queued.task as Json).name).toBe(`${EVIL}held`)
    const cause = ((queued.actions as Json[])[0]?.causes as Json[])[0]
    expect(cause).toMatchObject({
      shortDescription: `${EVIL}Started by user admin`,
      userName: `${EVIL}admin`,
      userId: 'admin'
    })

    const root = await getJson<{ jobs: Json[] }>(j, '/api/json?tree=jobs[name,jobs[name]]')
    expect(root.jobs.map(job => job.name)).toEqual([
      `${EVIL}folder`,
      `${EVIL}held`,
      `${EVIL}serial`
    ])
    expect((root.jobs[0]?.jobs as Json[])[0]?.name).toBe(`${EVIL}inner`)

    const job = await getJson<Json>(j, '/job/folder/job/inner/api/json')
    expect(job).toMatchObject({
      name: `${EVIL}inner`,
      fullName: `${EVIL}folder/inner`,
      displayName: `${EVIL}inner`,
      fullDisplayName: `${EVIL}folder » inner`
    })

    const running = await getJson<Json>(j, '/job/held/1/api/json')
    expect(running.result).toBeNull()
    expect(running.displayName).toBe(`${EVIL}#1`)
    // A result, from a build whose end is awaited.
    await post(j, '/job/serial/build?delay=0sec')
    const done = await waitFor(async () => {
      const b = await getJson<Json>(j, '/job/serial/1/api/json')
      return b.building === false ? b : undefined
    }, 'build #1 to end')
    expect(done.result).toBe(`${EVIL}UNSTABLE`)
    // Only what is served changes: the server's own state is the real one.
    expect(j.builds('serial')[0]?.result).toBe('UNSTABLE')
  })

  it('limits the text to the fields asked for, and can be switched at run time', async () => {
    const j = await start({ hostile: { text: '##[error]x', fields: ['result'] } })
    await post(j, '/job/serial/build?delay=0sec')
    const b = await waitFor(async () => {
      const build = await getJson<Json>(j, '/job/serial/1/api/json')
      return build.building === false ? build : undefined
    }, 'build #1 to end')
    expect(b.result).toBe('##[error]xUNSTABLE')
    expect(b.displayName).toBe('#1')
    expect((await getJson<Json>(j, '/job/serial/api/json')).name).toBe('serial')

    j.setHostile(undefined)
    expect((await getJson<Json>(j, '/job/serial/1/api/json')).result).toBe('UNSTABLE')
    j.setHostile({ text: '::error::x', fields: ['name'] })
    expect((await getJson<Json>(j, '/job/serial/api/json')).name).toBe('::error::xserial')
  })

  it('a build echoes what its trigger request carried in each text asked for (echoTrigger)', async () => {
    const j = await start({
      hostile: {
        text: '',
        echoTrigger: ['description', 'displayName', 'parameter', 'stage', 'test', 'console']
      },
      jobs: {
        echo: {
          type: 'pipeline',
          authToken: 'job-token-1234',
          parameters: [
            { name: 'NOTE', default: '' },
            { name: 'PW', type: 'password', default: '' }
          ],
          script: {
            description: 'deploys',
            stages: [{ name: 'Build', durationMs: 10 }],
            tests: { suites: [{ name: 's', cases: [{ className: 'a.B', name: 'works' }] }] }
          }
        }
      }
    })
    const session = await crumbSession(j)
    const res = await post(j, '/job/echo/buildWithParameters?delay=0sec', {
      auth: PASSWORD,
      body: 'NOTE=note-value&PW=pw-value&token=job-token-1234',
      headers: { cookie: session.cookie, [session.field]: session.crumb, 'x-proxy-key': 'proxy-1' }
    })
    expect(res.status).toBe(201)
    const build = await waitFor(async () => {
      const b = await getJson<Json>(j, '/job/echo/1/api/json')
      return b.building === false ? b : undefined
    }, 'build #1 to end')
    const cookie = session.cookie.slice(session.cookie.indexOf('=') + 1)
    const echo = `echo: ${ADMIN.password} ${cookie} ${session.crumb} proxy-1 job-token-1234 note-value`
    expect(build.description).toBe(`${echo} deploys`)
    expect(build.displayName).toBe(`${echo} #1`)
    const parameters = (build.actions as Json[]).find(a => a.parameters)?.parameters
    expect(parameters).toEqual([
      { _class: 'hudson.model.StringParameterValue', name: 'NOTE', value: `${echo} note-value` },
      { _class: 'hudson.model.PasswordParameterValue', name: 'PW' }
    ])
    const run = (await (await get(j, '/job/echo/1/wfapi/describe')).json()) as { stages: Json[] }
    expect(run.stages.map(stage => stage.name)).toEqual([`${echo} Build`])
    const report = await getJson<{ suites: Array<{ cases: Json[] }> }>(
      j,
      '/job/echo/1/testReport/api/json'
    )
    expect(report.suites[0]?.cases[0]?.name).toBe(`${echo} works`)
    const console = await (await get(j, '/job/echo/1/consoleText')).text()
    // A line of its own after the cause (the stage's lines quote its name too).
    expect(console.split('\n').slice(1, 2)).toEqual([echo])
  })

  it("exports a password's value where Jenkins never does (passwordValues)", async () => {
    const j = await start({
      jobs: { pw: { parameters: [{ name: 'PW', type: 'password' }], script: { durationMs: 10 } } }
    })
    await post(j, '/job/pw/buildWithParameters?delay=0sec', { body: 'PW=hunter2' })
    await waitFor(() => j.builds('pw')[0], 'build #1')
    const parameters = async () =>
      ((await getJson<Json>(j, '/job/pw/1/api/json')).actions as Json[]).find(a => a.parameters)
        ?.parameters
    expect(await parameters()).toEqual([
      { _class: 'hudson.model.PasswordParameterValue', name: 'PW' }
    ])
    j.setHostile({ text: '', passwordValues: 'exported' })
    expect(await parameters()).toEqual([
      { _class: 'hudson.model.PasswordParameterValue', name: 'PW', value: 'hunter2' }
    ])
    j.setHostile({ text: '', passwordValues: 'as-string' })
    expect(await parameters()).toEqual([
      { _class: 'hudson.model.StringParameterValue', name: 'PW', value: 'hunter2' }
    ])
  })
})
