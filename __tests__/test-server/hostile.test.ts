import { afterEach, describe, expect, it } from 'vitest'
import { startJenkins, type ServerOptions, type TestJenkins } from '../../test-server/index.js'
import { ADMIN, getJson, post, queueId, waitFor } from './helpers.js'

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
})
