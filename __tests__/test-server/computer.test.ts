import { afterEach, describe, expect, it } from 'vitest'
import { startJenkins, type ServerOptions, type TestJenkins } from '../../test-server/index.js'
import { ADMIN, get, getJson, post, queueId, waitFor } from './helpers.js'

let jenkins: TestJenkins | undefined

async function start(options: ServerOptions = {}): Promise<TestJenkins> {
  jenkins = await startJenkins({
    users: [{ ...ADMIN, permissions: ['admin'] }],
    quietPeriodSec: 0,
    executors: 2,
    jobs: {
      free: { script: { durationMs: 300 } },
      pipe: { type: 'pipeline', script: { durationMs: 300 } }
    },
    ...options
  })
  return jenkins
}

afterEach(async () => {
  await jenkins?.close()
  jenkins = undefined
})

const TREE =
  'computer[executors[currentExecutable[url,number,queueId]],oneOffExecutors[currentExecutable[url,number,queueId]]]'

interface Executable {
  _class: string
  url: string
  number: number
  queueId?: number
}
interface ComputerSet {
  _class: string
  computer: Array<{
    _class: string
    executors: Array<{ _class: string; currentExecutable: Executable | null }>
    oneOffExecutors: Array<{ _class: string; currentExecutable: Executable | null }>
  }>
}

function computers(j: TestJenkins): Promise<ComputerSet> {
  return getJson<ComputerSet>(j, `/computer/api/json?tree=${encodeURIComponent(TREE)}`)
}

describe('computer/api/json (ComputerSet, Executor.getCurrentExecutableForApi)', () => {
  it('lists idle executors with a null executable, and nothing else with the tree', async () => {
    const j = await start()
    expect(await computers(j)).toEqual({
      _class: 'hudson.model.ComputerSet',
      computer: [
        {
          _class: 'hudson.model.Hudson$MasterComputer',
          executors: [
            { _class: 'hudson.model.Executor', currentExecutable: null },
            { _class: 'hudson.model.Executor', currentExecutable: null }
          ],
          oneOffExecutors: []
        }
      ]
    })
  })

  it('a freestyle build holds an executor; a Pipeline a one-off executor, its node block a regular one without queueId', async () => {
    const j = await start({
      jobs: {
        free: { script: { durationMs: 2000 } },
        pipe: { type: 'pipeline', script: { durationMs: 2000 } }
      }
    })
    const free = queueId((await post(j, '/job/free/build?delay=0sec')).headers.get('location'))
    const pipe = queueId((await post(j, '/job/pipe/build?delay=0sec')).headers.get('location'))
    await waitFor(() => (j.builds('pipe')[0] && j.builds('free')[0] ? true : undefined))
    const set = await computers(j)
    const node = set.computer[0]
    expect(node?.executors.map(e => e.currentExecutable)).toEqual([
      {
        _class: 'hudson.model.FreeStyleBuild',
        url: `${j.url}/job/free/1/`,
        number: 1,
        queueId: free
      },
      {
        _class:
          'org.jenkinsci.plugins.workflow.support.steps.ExecutorStepExecution$PlaceholderTask$PlaceholderExecutable',
        url: `${j.url}/job/pipe/1/`,
        number: 1
      }
    ])
    expect(node?.oneOffExecutors).toEqual([
      {
        _class: 'hudson.model.Executor',
        currentExecutable: {
          _class: 'org.jenkinsci.plugins.workflow.job.WorkflowRun',
          url: `${j.url}/job/pipe/1/`,
          number: 1,
          queueId: pipe
        }
      }
    ])
    // Stop both so the server closes fast.
    await post(j, '/job/free/1/stop')
    await post(j, '/job/pipe/1/stop')
  })

  it('a build leaves the list only once its log is closed (Executor.run returns after Run.execute)', async () => {
    const j = await start({ endGap: { finishedAfterMs: 150, closedAfterMs: 50 } })
    await post(j, '/job/free/build?delay=0sec')
    const build = await waitFor(() => j.builds('free')[0], 'the build')
    const seen: Array<{ listed: boolean; building: boolean; logClosed: boolean }> = []
    await waitFor(async () => {
      const listed = (await computers(j)).computer[0]?.executors.some(
        e => e.currentExecutable?.number === build.number
      )
      seen.push({
        listed: listed === true,
        building: build.building,
        logClosed: build.logClosedAt !== null
      })
      return listed ? undefined : true
    }, 'the build to leave the list')
    const gone = seen[seen.length - 1]
    expect(gone).toEqual({ listed: false, building: false, logClosed: true })
    // It stayed listed after `building` turned false, until the log was closed.
    expect(seen.some(s => s.listed && !s.building)).toBe(true)
  })

  it('executorsHidden: no build shows (a ComputerSource plugin that filters the list)', async () => {
    const j = await start({
      executorsHidden: true,
      jobs: { free: { script: { durationMs: 2000 } } }
    })
    await post(j, '/job/free/build?delay=0sec')
    await waitFor(() => j.builds('free')[0], 'the build')
    const set = await computers(j)
    expect(set.computer[0]?.executors.every(e => e.currentExecutable === null)).toBe(true)
    await post(j, '/job/free/1/stop')
  })

  it('needs Overall/Read: anonymous gets the login page, as for any page', async () => {
    const j = await start()
    const res = await get(j, '/computer/api/json', null)
    expect(res.status).toBe(403)
    expect(await res.text()).toContain('/login?from=')
    expect(j.requests.at(-1)?.kind).toBe('computer')
  })
})
