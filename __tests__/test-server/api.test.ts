import { afterEach, describe, expect, it } from 'vitest'
import {
  parseTree,
  pruneTree,
  sampleJobs,
  startJenkins,
  type ServerOptions,
  type TestJenkins
} from '../../test-server/index.js'
import { ADMIN, get, getJson, post } from './helpers.js'

let jenkins: TestJenkins | undefined

async function start(options: ServerOptions = {}): Promise<TestJenkins> {
  jenkins = await startJenkins({
    users: [{ ...ADMIN, permissions: ['admin'] }],
    quietPeriodSec: 0,
    jobs: sampleJobs,
    ...options
  })
  return jenkins
}

afterEach(async () => {
  await jenkins?.close()
  jenkins = undefined
})

describe('tree syntax', () => {
  it('prunes plain objects with nesting, * and ranges, keeping _class', () => {
    const value = {
      _class: 'X',
      a: 1,
      b: { _class: 'B', c: 2, d: { e: 3, f: 4 } },
      list: [{ n: 1, m: 0 }, { n: 2 }, { n: 3 }, { n: 4 }],
      obj: { _class: 'O', x: 1 }
    }
    expect(pruneTree(value, parseTree('a,b[c,d[e]],list[n]{1,3},obj'))).toEqual({
      _class: 'X',
      a: 1,
      b: { _class: 'B', c: 2, d: { e: 3 } },
      list: [{ n: 2 }, { n: 3 }],
      obj: { _class: 'O' }
    })
    expect(pruneTree(value, parseTree('list[*]{2}'))).toEqual({ _class: 'X', list: [{ n: 3 }] })
    expect(pruneTree(value, parseTree('list[n]{,1},nope'))).toEqual({
      _class: 'X',
      list: [{ n: 1 }]
    })
    expect(pruneTree(value, parseTree('list[n]{3,}'))).toEqual({ _class: 'X', list: [{ n: 4 }] })
    for (const bad of ['a[b', 'a]', 'a,,b', '', 'a{x}', 'a[]']) {
      expect(() => parseTree(bad), bad).toThrow(/Malformed tree expression/)
    }
  })
})

describe('job list and items (jenkins-api.md 5.5, 9)', () => {
  it('lists jobs at depth 0 sorted by name, folders without color or children', async () => {
    const j = await start({ rootUrl: 'https://jenkins.example.com/ci/' })
    const root = await getJson<{
      _class: string
      jobs: Array<Record<string, unknown>>
      url: string
    }>(j, '/api/json')
    expect(root._class).toBe('hudson.model.Hudson')
    expect(root.url).toBe('https://jenkins.example.com/ci/')
    expect(root.jobs.map(x => x.name)).toEqual([
      'café',
      'disabled',
      'failing',
      'failing-tests',
      'hello',
      'my job',
      'params',
      'pipeline-early',
      'release',
      'remote',
      'repo',
      'team',
      'upload',
      'with-tests'
    ])
    expect(root.jobs.find(x => x.name === 'café')).toEqual({
      _class: 'hudson.model.FreeStyleProject',
      name: 'café',
      url: 'https://jenkins.example.com/ci/job/caf%C3%A9/',
      color: 'notbuilt'
    })
    expect(root.jobs.find(x => x.name === 'team')).toEqual({
      _class: 'com.cloudbees.hudson.plugins.folder.Folder',
      name: 'team',
      url: 'https://jenkins.example.com/ci/job/team/'
    })
    expect(root.jobs.find(x => x.name === 'disabled')?.color).toBe('disabled')
  })

  it('walks nested folders with tree, and depth 1 shows children', async () => {
    const j = await start()
    const tree = encodeURIComponent('jobs[name,color,jobs[name,color,jobs[name,url]]]')
    const root = await getJson<{ jobs: Array<{ name: string; jobs?: unknown }> }>(
      j,
      `/api/json?tree=${tree}`
    )
    expect(Object.keys(root)).toEqual(['_class', 'jobs'])
    expect(root.jobs.find(x => x.name === 'team')).toEqual({
      _class: 'com.cloudbees.hudson.plugins.folder.Folder',
      name: 'team',
      jobs: [
        { _class: 'hudson.model.FreeStyleProject', name: 'build', color: 'notbuilt' },
        {
          _class: 'com.cloudbees.hudson.plugins.folder.Folder',
          name: 'service',
          jobs: [
            {
              _class: 'org.jenkinsci.plugins.workflow.job.WorkflowJob',
              name: 'deploy',
              url: `${j.url}/job/team/job/service/job/deploy/`
            }
          ]
        }
      ]
    })
    const depth1 = await getJson<{ jobs: Array<{ name: string; jobs?: unknown[] }> }>(
      j,
      '/api/json?depth=1'
    )
    expect(depth1.jobs.find(x => x.name === 'team')?.jobs).toHaveLength(2)
    expect((await get(j, '/api/json?tree=jobs[name')).status).toBe(500)
    expect((await get(j, '/api/json?depth=x')).status).toBe(500)
  })

  it('pretty-prints whenever pretty is present, even pretty=false', async () => {
    const j = await start()
    for (const q of ['pretty', 'pretty=true', 'pretty=false']) {
      const text = await (await get(j, `/job/hello/api/json?tree=name,color&${q}`)).text()
      expect(text).toBe(
        '{\n  "_class" : "hudson.model.FreeStyleProject",\n  "name" : "hello",\n  "color" : "notbuilt"\n}'
      )
    }
    const compact = await (await get(j, '/job/hello/api/json?tree=name')).text()
    expect(compact).toBe('{"_class":"hudson.model.FreeStyleProject","name":"hello"}')
  })

  it('exports job fields and parameter definitions', async () => {
    const j = await start()
    const job = await getJson<Record<string, unknown>>(j, '/job/params/api/json')
    expect(job).toMatchObject({
      _class: 'hudson.model.FreeStyleProject',
      name: 'params',
      fullName: 'params',
      displayName: 'params',
      buildable: true,
      disabled: false,
      color: 'notbuilt',
      inQueue: false,
      lastBuild: null,
      lastSuccessfulBuild: null,
      lastCompletedBuild: null,
      nextBuildNumber: 1,
      builds: []
    })
    const property = job.property as Array<{ parameterDefinitions: unknown[] }>
    expect(property[0]?.parameterDefinitions[0]).toEqual({
      _class: 'hudson.model.StringParameterDefinition',
      defaultParameterValue: {
        _class: 'hudson.model.StringParameterValue',
        name: 'BRANCH',
        value: 'main'
      },
      description: 'Branch to build',
      name: 'BRANCH',
      type: 'StringParameterDefinition'
    })
    expect(property[0]?.parameterDefinitions[1]).toMatchObject({
      type: 'BooleanParameterDefinition',
      defaultParameterValue: { _class: 'hudson.model.BooleanParameterValue', value: false }
    })
    expect(property[0]?.parameterDefinitions[2]).toMatchObject({
      type: 'ChoiceParameterDefinition',
      choices: ['staging', 'production'],
      defaultParameterValue: { value: 'staging' }
    })
    await post(j, '/job/hello/build')
    const running = await getJson<Record<string, unknown>>(j, '/job/hello/api/json')
    expect(running.color).toBe('notbuilt_anime')
    expect(running.lastBuild).toEqual({
      _class: 'hudson.model.FreeStyleBuild',
      number: 1,
      url: `${j.url}/job/hello/1/`
    })
    const deep = await getJson<{ lastBuild: Record<string, unknown> }>(
      j,
      '/job/hello/api/json?depth=1'
    )
    expect(deep.lastBuild.building).toBe(true)
  })
})

describe('names and paths (jenkins-api.md 3.8)', () => {
  it('finds items case-insensitively, with spaces, non-ASCII and encoded branch names', async () => {
    const j = await start({ contextPath: '/jenkins' })
    expect((await getJson(j, '/job/HELLO/api/json')).name).toBe('hello')
    expect((await getJson(j, '/job/my%20job/api/json')).name).toBe('my job')
    // '+' stays a plus in a path.
    expect((await get(j, '/job/my+job/api/json')).status).toBe(404)
    expect((await getJson(j, '/job/caf%C3%A9/api/json')).url).toBe(`${j.url}/job/caf%C3%A9/`)
    const branch = await getJson(j, '/job/repo/job/feature%252Fx/api/json')
    expect(branch).toMatchObject({
      _class: 'org.jenkinsci.plugins.workflow.job.WorkflowJob',
      name: 'feature%2Fx',
      fullName: 'repo/feature%2Fx',
      displayName: 'feature/x',
      url: `${j.url}/job/repo/job/feature%252Fx/`
    })
    expect((await getJson(j, '/job/repo/job/feature%2Fx/api/json')).name).toBe('feature%2Fx')
    const repo = await getJson(j, '/job/repo/api/json')
    expect(repo._class).toBe(
      'org.jenkinsci.plugins.workflow.multibranch.WorkflowMultiBranchProject'
    )
    expect(repo.color).toBeUndefined()
    const res = await post(j, '/job/repo/job/feature%252Fx/build')
    expect(res.status).toBe(201)
    expect(j.builds('repo/feature%2Fx')).toHaveLength(1)
    // Outside the context path there is no Jenkins.
    const outside = await fetch(j.url.replace('/jenkins', '') + '/api/json')
    expect(outside.status).toBe(404)
  })

  it('with a context path: Jetty answers outside it, Jenkins inside (winstone, Jetty 12)', async () => {
    const j = await start({ contextPath: '/jenkins' })
    const origin = new URL(j.url).origin
    // Nothing handles a path outside the webapp: Jetty's own 404, no Jenkins header, the root included.
    for (const path of ['/', '/job/hello/api/json', '/login']) {
      const res = await fetch(`${origin}${path}`, { redirect: 'manual' })
      expect(res.status, path).toBe(404)
      expect(res.headers.get('x-jenkins'), path).toBeNull()
      const page = await res.text()
      expect(page).toContain('<h2>HTTP ERROR 404 Not Found</h2>')
      expect(page).not.toContain('SERVLET')
    }
    // The context path itself: 301 to it plus '/', the query kept.
    const bare = await fetch(`${origin}/jenkins?x=1`, { redirect: 'manual' })
    expect(bare.status).toBe(301)
    expect(bare.headers.get('location')).toBe('/jenkins/?x=1')
    // Inside it, Jenkins' pages carry X-Jenkins, its own 404 too.
    const login = await fetch(`${j.url}/login`)
    expect(login.status).toBe(200)
    expect(login.headers.get('x-jenkins')).toBe('2.541.1')
    const missing = await get(j, '/job/nope/api/json')
    expect(missing.status).toBe(404)
    expect(missing.headers.get('x-jenkins')).toBe('2.541.1')
  })
})
