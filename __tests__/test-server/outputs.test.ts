/**
 * The test server's test reports, Pipeline stages and input steps, and
 * artifacts, against what the plugins' and core's sources say.
 */
import { createHash } from 'node:crypto'
import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generatedBytes, startJenkins, type TestJenkins } from '../../test-server/index.js'
import { ADMIN, get, getJson, post, TOKEN, waitFor } from './helpers.js'

let jenkins: TestJenkins

beforeAll(async () => {
  jenkins = await startJenkins({
    users: [
      { ...ADMIN, permissions: ['admin'] },
      { name: 'viewer', apiToken: 'tok-v', permissions: ['read'] }
    ],
    quietPeriodSec: 0,
    executors: 6,
    jobs: {
      tests: {
        script: {
          durationMs: 50,
          result: 'UNSTABLE',
          tests: {
            suites: [
              {
                name: 'com.example.CalcTest',
                cases: [
                  { className: 'com.example.CalcTest', name: 'adds' },
                  {
                    className: 'com.example.CalcTest',
                    name: 'divides by zero',
                    status: 'FAILED',
                    errorDetails: 'boom'
                  },
                  {
                    className: 'com.example.CalcTest',
                    name: 'divides-by zero',
                    status: 'REGRESSION'
                  },
                  { className: 'com.example.CalcTest', name: 'later', status: 'SKIPPED' },
                  { className: 'Rooted', name: 'x y' }
                ]
              }
            ]
          }
        }
      },
      generated: {
        script: {
          durationMs: 20,
          tests: { total: 250, failed: 3, skipped: 2, casesPerSuite: 100, failuresAt: 'end' }
        }
      },
      stages: {
        type: 'pipeline',
        script: {
          stages: [
            { name: 'Build', durationMs: 30 },
            { name: 'Approve', durationMs: 10, input: { message: 'Deploy to prod?' } },
            { name: 'Test', durationMs: 30, result: 'FAILURE' },
            { name: 'Deploy', durationMs: 30 }
          ]
        }
      },
      files: {
        script: {
          durationMs: 20,
          artifacts: [
            { path: 'b/z.txt', content: 'zzz' },
            { path: 'a.jar', size: 300_000 },
            { path: 'b/a/deep.html', content: '<html></html>' },
            { path: 'x/z.txt', content: 'other z' }
          ]
        }
      },
      freestyle: { script: { durationMs: 20 } },
      // As the sample team/service/deploy: someone proceeds by themselves.
      reviewed: {
        type: 'pipeline',
        script: {
          stages: [
            { name: 'Approve', durationMs: 10, input: { message: 'Ship?', proceedAfterMs: 30 } }
          ]
        }
      }
    }
  })
})

afterAll(async () => {
  await jenkins.close()
})

/** Triggers the job and resolves with its new build's number once `done(build)` holds. */
async function run(job: string, done: (b: { building: boolean }) => boolean = b => !b.building) {
  const before = jenkins.builds(job).length
  const res = await post(jenkins, `/job/${job}/build?delay=0sec`)
  expect(res.status).toBe(201)
  return waitFor(() => {
    const build = jenkins.builds(job)[before]
    return build && done(build) ? build.number : undefined
  }, `${job} build`)
}

describe('JUnit test report (testReport)', () => {
  it('the action carries the counts; failed = FAILED + REGRESSION', async () => {
    const n = await run('tests')
    const build = await getJson<{ actions: Array<Record<string, unknown>> }>(
      jenkins,
      `/job/tests/${n}/api/json`
    )
    expect(build.actions).toContainEqual({
      _class: 'hudson.tasks.junit.TestResultAction',
      failCount: 2,
      skipCount: 1,
      totalCount: 5,
      urlName: 'testReport'
    })
  })

  it('api/json is a TestResult; tree and ranges bound suites and cases', async () => {
    const n = await run('generated')
    const whole = await getJson<Record<string, unknown>>(
      jenkins,
      `/job/generated/${n}/testReport/api/json`
    )
    expect(whole).toMatchObject({
      _class: 'hudson.tasks.junit.TestResult',
      empty: false,
      failCount: 3,
      passCount: 245,
      skipCount: 2
    })
    const tree = encodeURIComponent(
      'suites[name,cases[className,name,status,errorDetails]{48,50}]{2,3}'
    )
    const page = await getJson<{ suites: Array<{ name: string; cases: unknown[] }> }>(
      jenkins,
      `/job/generated/${n}/testReport/api/json?tree=${tree}`
    )
    expect(page).toEqual({
      _class: 'hudson.tasks.junit.TestResult',
      suites: [
        {
          name: 'com.example.module02.Generated00002Test',
          cases: [
            {
              className: 'com.example.module02.Generated00002Test',
              name: 'case000248',
              status: 'FAILED',
              errorDetails: 'expected: <248> but was: <249>'
            },
            {
              className: 'com.example.module02.Generated00002Test',
              name: 'case000249',
              status: 'FAILED',
              errorDetails: 'expected: <249> but was: <250>'
            }
          ]
        }
      ]
    })
  })

  it('case pages are where the plugin names them (safe names, uniquified in order); others 404', async () => {
    const n = await run('tests')
    const page = (path: string) =>
      get(jenkins, `/job/tests/${n}/testReport/${path}`).then(r => r.status)
    expect(await page('')).toBe(200)
    expect(await page('com.example/')).toBe(200)
    expect(await page('com.example/CalcTest/')).toBe(200)
    expect(await page('com.example/CalcTest/divides_by_zero/')).toBe(200)
    expect(await page('com.example/CalcTest/divides_by_zero_2/')).toBe(200)
    expect(await page('com.example/CalcTest/divides_by_zero_3/')).toBe(404)
    expect(await page('com.example/CalcTest/divides%20by%20zero/')).toBe(404)
    expect(await page('(root)/Rooted/x_y/')).toBe(200)
    expect(await page('nope/')).toBe(404)
    // A build without a report has no testReport action.
    const f = await run('freestyle')
    expect((await get(jenkins, `/job/freestyle/${f}/testReport/api/json`)).status).toBe(404)
  })
})

interface Describe {
  _links: Record<string, { href: string }>
  id: string
  name: string
  status: string
  stages: Array<Record<string, unknown>>
}

describe('Pipeline stages (wfapi/describe) and the input step', () => {
  it('stages change while the build runs; an input pauses its stage until someone proceeds', async () => {
    const n = await run('stages', () => true)
    const describe = () => getJson<Describe>(jenkins, `/job/stages/${n}/wfapi/describe`)
    const paused = await waitFor(async () => {
      const d = await describe()
      return d.status === 'PAUSED_PENDING_INPUT' ? d : undefined
    }, 'the input pause')
    expect(paused).toMatchObject({
      _links: {
        self: { href: `/job/stages/${n}/wfapi/describe` },
        pendingInputActions: { href: `/job/stages/${n}/wfapi/pendingInputActions` }
      },
      id: String(n),
      name: `#${n}`
    })
    expect(paused.stages.map(s => [s.name, s.status])).toEqual([
      ['Build', 'SUCCESS'],
      ['Approve', 'PAUSED_PENDING_INPUT']
    ])
    expect(paused.stages[0]).toMatchObject({
      _links: {
        self: {
          href: expect.stringMatching(/^\/job\/stages\/\d+\/execution\/node\/\d+\/wfapi\/describe$/)
        }
      },
      execNode: '',
      startTimeMillis: expect.any(Number),
      durationMillis: expect.any(Number),
      pauseDurationMillis: 0
    })
    // The input page lists it; GET cannot answer it; a reader cannot either.
    expect((await get(jenkins, `/job/stages/${n}/input/`)).status).toBe(200)
    const id = createHash('md5').update('Deploy to prod?').digest('hex')
    const idCapitalised = id.charAt(0).toUpperCase() + id.slice(1)
    expect(
      (await get(jenkins, `/job/stages/${n}/input/${idCapitalised}/proceedEmpty`)).status
    ).toBe(405)
    const viewer = 'Basic ' + Buffer.from('viewer:tok-v').toString('base64')
    expect(
      (
        await post(jenkins, `/job/stages/${n}/input/${idCapitalised}/proceedEmpty`, {
          auth: viewer
        })
      ).status
    ).toBe(403)
    expect(
      (await post(jenkins, `/job/stages/${n}/input/${idCapitalised}/proceedEmpty`)).status
    ).toBe(200)
    const done = await waitFor(async () => {
      const d = await describe()
      return d.status === 'FAILED' ? d : undefined
    }, 'the end')
    expect(done.stages.map(s => [s.name, s.status])).toEqual([
      ['Build', 'SUCCESS'],
      ['Approve', 'SUCCESS'],
      ['Test', 'FAILED']
    ])
    expect(done.stages[2]?.error).toEqual({
      message: 'script returned exit code 1',
      type: 'hudson.AbortException'
    })
    expect((done.stages[1]?.pauseDurationMillis as number) >= 0).toBe(true)
    expect(jenkins.builds('stages')[n - 1]?.result).toBe('FAILURE')
    // Answered: the input is gone.
    expect(
      (await post(jenkins, `/job/stages/${n}/input/${idCapitalised}/proceedEmpty`)).status
    ).toBe(404)
  })

  it('abort at the input ends the stage and the build ABORTED', async () => {
    const n = await run('stages', () => true)
    const id = await waitFor(
      () =>
        jenkins.builds('stages')[n - 1] &&
        (
          jenkins.builds('stages')[n - 1] as unknown as {
            inputs: Array<{ id: string; settled: boolean }>
          }
        ).inputs.find(i => !i.settled)?.id,
      'input'
    )
    expect((await post(jenkins, `/job/stages/${n}/input/${id}/abort`)).status).toBe(200)
    await waitFor(() => (jenkins.builds('stages')[n - 1]?.building === false ? true : undefined))
    const d = await getJson<Describe>(jenkins, `/job/stages/${n}/wfapi/describe`)
    expect(d.status).toBe('ABORTED')
    expect(d.stages.map(s => s.status)).toEqual(['SUCCESS', 'ABORTED'])
    // Rejection.getShortDescription, with the user who aborted.
    expect(await (await get(jenkins, `/job/stages/${n}/consoleText`)).text()).toContain(
      '\nRejected by admin\n'
    )
  })

  it('an input that proceeds by itself is approved by the user who started the build, who exists', async () => {
    const n = await run('reviewed')
    const log = await (await get(jenkins, `/job/reviewed/${n}/consoleText`)).text()
    expect(log).toContain('Ship?\nProceed or Abort\nApproved by admin\n')
    expect(log).not.toContain('demo')
    expect(jenkins.builds('reviewed')[n - 1]?.result).toBe('SUCCESS')
  })

  it('a freestyle build has no wfapi, nor a Jenkins without the plugin', async () => {
    const f = await run('freestyle')
    expect((await get(jenkins, `/job/freestyle/${f}/wfapi/describe`)).status).toBe(404)
    expect((await get(jenkins, `/job/freestyle/${f}/input/`)).status).toBe(404)
    const bare = await startJenkins({
      stageView: false,
      quietPeriodSec: 0,
      users: [{ ...ADMIN, permissions: ['admin'] }],
      jobs: { p: { type: 'pipeline', script: { durationMs: 10 } } }
    })
    try {
      expect((await post(bare, '/job/p/build?delay=0sec')).status).toBe(201)
      await waitFor(() => (bare.builds('p')[0] ? true : undefined))
      expect((await get(bare, '/job/p/1/wfapi/describe')).status).toBe(404)
    } finally {
      await bare.close()
    }
  })
})

describe('artifacts', () => {
  it('listed in the build JSON in Run.addArtifacts order, with displayPath', async () => {
    const n = await run('files')
    const build = await getJson<{ artifacts: unknown[] }>(jenkins, `/job/files/${n}/api/json`)
    expect(build.artifacts).toEqual([
      { displayPath: 'a.jar', fileName: 'a.jar', relativePath: 'a.jar' },
      { displayPath: 'deep.html', fileName: 'deep.html', relativePath: 'b/a/deep.html' },
      { displayPath: 'b/z.txt', fileName: 'z.txt', relativePath: 'b/z.txt' },
      { displayPath: 'x/z.txt', fileName: 'z.txt', relativePath: 'x/z.txt' }
    ])
    const tree = encodeURIComponent('artifacts[relativePath]{1,3}')
    expect(await getJson(jenkins, `/job/files/${n}/api/json?tree=${tree}`)).toEqual({
      _class: 'hudson.model.FreeStyleBuild',
      artifacts: [{ relativePath: 'b/a/deep.html' }, { relativePath: 'b/z.txt' }]
    })
  })

  it('served with Content-Length and their type; folders listed; absent 404; /../ 400', async () => {
    const n = await run('files')
    const jar = await get(jenkins, `/job/files/${n}/artifact/a.jar`)
    expect(jar.status).toBe(200)
    expect(jar.headers.get('content-length')).toBe('300000')
    expect(jar.headers.get('content-type')).toBe('application/java-archive')
    expect(jar.headers.get('content-security-policy')).toContain('sandbox')
    expect(Buffer.from(await jar.arrayBuffer()).equals(generatedBytes(0, 300_000, 300_000))).toBe(
      true
    )
    const html = await get(jenkins, `/job/files/${n}/artifact/b/a/deep.html`)
    expect(html.headers.get('content-type')).toBe('text/html;charset=UTF-8')
    expect(await html.text()).toBe('<html></html>')
    expect((await get(jenkins, `/job/files/${n}/artifact/b/`)).status).toBe(200)
    expect((await get(jenkins, `/job/files/${n}/artifact/nope.txt`)).status).toBe(404)
    // fetch would resolve the dots itself: a raw request, as a hostile client sends it.
    const raw = await new Promise<number>((resolve, reject) => {
      const url = new URL(jenkins.url)
      request(
        {
          host: url.hostname,
          port: url.port,
          path: `/job/files/${n}/artifact/b/../a.jar`,
          headers: { authorization: TOKEN }
        },
        res => {
          res.resume()
          resolve(res.statusCode ?? 0)
        }
      )
        .on('error', reject)
        .end()
    })
    expect(raw).toBe(400)
  })

  it('an aimed reset fault cuts an artifact part-way, its Content-Length still announced', async () => {
    const n = await run('files')
    const fault = jenkins.aim({
      kind: 'artifact',
      job: 'files',
      effect: { type: 'reset', afterBytes: 1000 },
      times: 1
    })
    try {
      const res = await get(jenkins, `/job/files/${n}/artifact/a.jar`)
      expect(res.headers.get('content-length')).toBe('300000')
      await expect(res.arrayBuffer()).rejects.toThrow()
      expect(fault.hits).toBe(1)
    } finally {
      fault.remove()
    }
    const whole = await get(jenkins, `/job/files/${n}/artifact/a.jar`)
    expect((await whole.arrayBuffer()).byteLength).toBe(300_000)
  })
})
