/**
 * Multibranch scans as branch-api and cloudbees-folder run them: POST build
 * answers 302 and queues a scan, `indexing/` keeps the previous log until the
 * new scan starts, a new head gets a job and a build with the branch-indexing
 * cause, NameEncoder names.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { startJenkins, type ServerOptions, type TestJenkins } from '../../test-server/index.js'
import { decodeBranchName, encodeBranchName } from '../../test-server/model/name-encoder.js'
import { ADMIN, get, getJson, post, waitFor } from './helpers.js'

let jenkins: TestJenkins | undefined

async function start(options: ServerOptions = {}): Promise<TestJenkins> {
  jenkins = await startJenkins({
    users: [
      { ...ADMIN, permissions: ['admin'] },
      { name: 'reader', apiToken: 'tok-reader', permissions: ['read'] }
    ],
    quietPeriodSec: 0,
    jobs: {
      repo: {
        type: 'multibranch',
        scanDurationMs: 200,
        jobs: { main: { script: { durationMs: 50 } } },
        heads: {
          main: {},
          'feature/x': { script: { durationMs: 50 } },
          'PR-7': { script: { durationMs: 50 }, parameters: [{ name: 'P', default: 'd' }] },
          'quiet/one': { indexingBuild: false }
        }
      },
      off: { type: 'multibranch', disabled: true },
      plain: { type: 'folder', jobs: { a: {} } }
    },
    ...options
  })
  return jenkins
}

afterEach(async () => {
  await jenkins?.close()
  jenkins = undefined
})

describe('NameEncoder (branch-api)', () => {
  it('escapes only # % / ? [ ] \\ and the names "", ".", ".."', () => {
    expect(encodeBranchName('feature/x')).toBe('feature%2Fx')
    expect(encodeBranchName('a b#c%d?e[f]g\\h')).toBe('a b%23c%25d%3Fe%5Bf%5Dg%5Ch')
    expect(encodeBranchName('')).toBe('%00')
    expect(encodeBranchName('.')).toBe('%2E')
    expect(encodeBranchName('..')).toBe('%2E.')
    expect(decodeBranchName('feature%2Fx')).toBe('feature/x')
    expect(decodeBranchName('a%20b')).toBe('a%20b')
    expect(decodeBranchName('%2E.')).toBe('..')
  })
})

describe('POST <project>/build: a scan (ComputedFolder.doBuild)', () => {
  it('answers 302 to the Referer or the project, with no queue Location, and queues the project', async () => {
    const j = await start()
    const res = await post(j, '/job/repo/build?delay=0sec')
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe(`${j.url}/job/repo/`)
    const withReferer = await post(j, '/job/repo/build', {
      headers: { referer: `${j.url}/job/repo/indexing/` }
    })
    expect(withReferer.headers.get('location')).toBe(`${j.url}/job/repo/indexing/`)
    expect(j.requests.filter(r => r.kind === 'scan').map(r => r.status)).toEqual([302, 302])
    expect(j.triggerCount()).toBe(0)
  })

  it('checks POST first (405), then Job/Build (403), then refuses a disabled project (500)', async () => {
    // The refusal's reason shows on the error page when Jenkins shows stack traces.
    const j = await start({ showStackTrace: true })
    const getScan = await get(j, '/job/repo/build')
    expect(getScan.status).toBe(405)
    expect(getScan.headers.get('allow')).toBe('POST')
    const reader = 'Basic ' + Buffer.from('reader:tok-reader').toString('base64')
    const denied = await post(j, '/job/repo/build', { auth: reader })
    expect(denied.status).toBe(403)
    expect(denied.headers.get('x-required-permission')).toBe('hudson.model.Item.Build')
    const off = await post(j, '/job/off/build')
    expect(off.status).toBe(500)
    expect(await off.text()).toContain('off cannot be recomputed')
    // A plain folder is not a computed folder: nothing to build.
    expect((await post(j, '/job/plain/build')).status).toBe(404)
  })

  it('creates jobs for new heads mid-scan and builds them with the branch-indexing cause', async () => {
    const j = await start()
    const before = await get(j, '/job/repo/indexing/logText/progressiveText')
    expect(before.headers.get('x-more-data')).toBeNull()
    const previous = await before.text()
    expect(previous).toContain('Finished: SUCCESS')
    await post(j, '/job/repo/build?delay=0sec')
    const running = await waitFor(async () => {
      const r = await get(j, '/job/repo/indexing/logText/progressiveText')
      return r.headers.get('x-more-data') === 'true' ? r : undefined
    }, 'the scan to start')
    expect(await running.text()).toMatch(/Starting branch indexing/)
    // The branch job exists under its encoded name, reachable decoded too.
    const branch = await waitFor(async () => {
      const r = await get(j, '/job/repo/job/feature%252Fx/api/json')
      return r.status === 200 ? ((await r.json()) as Record<string, unknown>) : undefined
    }, 'the branch job')
    expect(branch).toMatchObject({ name: 'feature%2Fx', displayName: 'feature/x', buildable: true })
    expect((await get(j, '/job/repo/job/feature%2Fx/api/json')).status).toBe(200)
    await waitFor(async () => {
      const r = await get(j, '/job/repo/indexing/logText/progressiveText')
      return r.headers.get('x-more-data') === null ? true : undefined
    }, 'the scan to end')
    const log = await (await get(j, '/job/repo/indexing/consoleText')).text()
    expect(log).toMatch(
      /^Started by user admin\n\[\w{3} \w{3} \d\d [\d:]{8} UTC \d{4}\] Starting branch indexing/
    )
    expect(log).toContain('Scheduled build for branch: feature/x')
    expect(log).toContain('Checking pull request #7')
    expect(log).toContain('Scheduled build for branch: PR-7')
    expect(log).toContain('No automatic build triggered for quiet/one')
    expect(log).toMatch(/No changes detected: main \(still at [0-9a-f]{40}\)/)
    expect(log).toMatch(/Finished branch indexing\. Indexing took .*\nFinished: SUCCESS\n$/)
    // consoleText strips the hyperlink notes.
    expect(log).not.toContain('\x1b')
    const build = await waitFor(() => j.builds('repo/PR-7')[0], 'the indexing build of PR-7')
    expect(build.causes).toEqual([
      { _class: 'jenkins.branch.BranchIndexingCause', shortDescription: 'Branch indexing' }
    ])
    // Scheduled without parameters: the defaults (ParameterizedJobMixIn.scheduleBuild2).
    expect(build.parameters).toEqual({ P: 'd' })
    expect(j.builds('repo/quiet%2Fone')).toEqual([])
    expect(j.builds('repo/main')).toEqual([])
    await waitFor(() => (j.builds('repo/PR-7')[0]?.building === false ? true : undefined))
    expect(j.builds('repo/PR-7')[0]?.consoleText()).toMatch(/^Branch indexing\n/)
  })

  it('shows the previous scan, complete, until a queued one starts; a second scan waits for the first', async () => {
    const j = await start({ quietPeriodSec: 0 })
    await post(j, '/job/repo/build?delay=0sec')
    await post(j, '/job/repo/build?delay=0sec')
    // The first is running; the second is queued (blocked), not merged into the running one.
    const queue = await getJson<{ items: Array<{ task: { name: string }; blocked: boolean }> }>(
      j,
      '/queue/api/json'
    )
    expect(queue.items).toMatchObject([{ task: { name: 'repo' }, blocked: true }])
    // A third merges into the queued one.
    await post(j, '/job/repo/build')
    expect(j.state.queue.filter(i => i.state !== 'left')).toHaveLength(1)
    // A delayed scan leaves `indexing/` on the previous (complete) log meanwhile.
    const project = j.state.findJob('repo')
    await waitFor(() => (j.state.queue.every(i => i.state === 'left') ? true : undefined), 'both')
    await waitFor(() => (project?.indexing?.result === 'SUCCESS' ? true : undefined), 'the end')
    await post(j, '/job/repo/build?delay=1sec')
    const stale = await get(j, '/job/repo/indexing/logText/progressiveText')
    expect(stale.headers.get('x-more-data')).toBeNull()
    expect(await stale.text()).toContain('Finished: SUCCESS')
    const left = j.state.queue.filter(i => i.job === project && i.state === 'left')
    expect(left.length).toBeGreaterThanOrEqual(2)
  })

  it('has no indexing/api/json (FolderComputation has no getApi), and no indexing on plain folders', async () => {
    const j = await start()
    expect((await get(j, '/job/repo/indexing/api/json')).status).toBe(404)
    expect((await get(j, '/job/repo/indexing/')).status).toBe(200)
    expect((await get(j, '/job/repo/computation/consoleText')).status).toBe(200)
    expect((await get(j, '/job/plain/indexing/consoleText')).status).toBe(404)
    const project = await getJson(j, '/job/repo/api/json')
    expect(project).toMatchObject({
      _class: 'org.jenkinsci.plugins.workflow.multibranch.WorkflowMultiBranchProject',
      buildable: true,
      sources: [{ _class: 'jenkins.branch.BranchSource' }]
    })
    expect(project.color).toBeUndefined()
  })

  it('addHead: a new pull request is found by the next scan', async () => {
    const j = await start()
    j.addHead('repo', 'PR-99', { script: { durationMs: 20 } })
    expect((await get(j, '/job/repo/job/PR-99/api/json')).status).toBe(404)
    await post(j, '/job/repo/build?delay=0sec')
    await waitFor(() => j.builds('repo/PR-99')[0], 'the build of PR-99')
  })
})
