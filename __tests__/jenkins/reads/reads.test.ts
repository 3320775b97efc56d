import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import nock from 'nock'
import { afterEach, describe, expect, it } from 'vitest'
import { JOB_TREE, listTree, QUEUE_TREE } from '../../../src/jenkins/reads/reads.js'
import {
  BASE,
  JENKINS_404,
  ORIGIN,
  TOKEN,
  USER,
  jenkinsError,
  makeClient,
  netError,
  useNock
} from '../helpers.js'

useNock()

describe('job URLs', () => {
  it('percent-encodes each segment once and keeps the context path', () => {
    const { client } = makeClient()
    expect(client.baseUrl).toBe(BASE)
    expect(client.jobUrl(['mb', 'feature%2Fx'])).toBe(`${BASE}/job/mb/job/feature%252Fx/`)
    expect(client.jobUrl(['my job', 'café'])).toBe(`${BASE}/job/my%20job/job/caf%C3%A9/`)
    expect(client.buildUrl(['a'], 12)).toBe(`${BASE}/job/a/12/`)
  })
})

describe('getJob', () => {
  it('asks only for the fields it needs and rebases the url onto the configured base', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/crumbIssuer/api/json')
      .reply(...JENKINS_404)
    nock(ORIGIN)
      .get('/jenkins/job/mb/job/feature%252Fx/api/json')
      .query({ tree: JOB_TREE })
      .reply(200, {
        _class: 'org.jenkinsci.plugins.workflow.job.WorkflowJob',
        name: 'feature%2Fx',
        fullName: 'mb/feature%2Fx',
        url: 'http://jenkins.internal:8080/job/mb/job/feature%252Fx/',
        buildable: true,
        disabled: false,
        property: [
          {
            _class: 'hudson.model.ParametersDefinitionProperty',
            parameterDefinitions: [
              {
                _class: 'hudson.model.ChoiceParameterDefinition',
                name: 'ENV',
                type: 'ChoiceParameterDefinition',
                defaultParameterValue: { value: 'dev' },
                choices: ['dev', 'prod']
              },
              {
                name: 'FLAG',
                type: 'BooleanParameterDefinition',
                defaultParameterValue: { value: true }
              }
            ]
          },
          { _class: 'jenkins.model.BuildDiscarderProperty' }
        ]
      })
    const info = await client.getJob(['mb', 'feature%2Fx'])
    expect(info).toEqual({
      _class: 'org.jenkinsci.plugins.workflow.job.WorkflowJob',
      name: 'feature%2Fx',
      url: `${BASE}/job/mb/job/feature%252Fx/`,
      buildable: true,
      disabled: false,
      isFolder: false,
      parameterDefinitions: [
        {
          name: 'ENV',
          type: 'ChoiceParameterDefinition',
          defaultValue: 'dev',
          choices: ['dev', 'prod']
        },
        { name: 'FLAG', type: 'BooleanParameterDefinition', defaultValue: true }
      ]
    })
  })

  it.each([
    ['com.cloudbees.hudson.plugins.folder.Folder', undefined],
    ['org.jenkinsci.plugins.workflow.multibranch.WorkflowMultiBranchProject', undefined],
    ['jenkins.branch.OrganizationFolder', undefined],
    ['some.plugin.CustomGroup', []]
  ])('tells a folder (%s) from a job', async (cls, jobs) => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/crumbIssuer/api/json')
      .reply(...JENKINS_404)
    nock(ORIGIN)
      .get('/jenkins/job/f/api/json')
      .query(true)
      .reply(200, { _class: cls, name: 'f', ...(jobs ? { jobs } : {}) })
    expect((await client.getJob(['f'])).isFolder).toBe(true)
  })

  it.each([
    ['with credentials', { user: USER, token: TOKEN }, ''],
    ['no credentials', {}, '; if it exists, anonymous users may not see it: set user and token'],
    [
      'a job token alone',
      { jobToken: 'job-token-1' },
      '; if it exists, anonymous users may not see it, and a job token alone cannot reach a job they cannot read: give user/token'
    ]
  ])(
    '404 names the job and the server (%s), and whether it may be hidden',
    async (_, given, hint) => {
      const { client } = makeClient({ user: undefined, token: undefined, ...given })
      // The crumb is fetched alongside the job's read when a POST may follow.
      nock(ORIGIN)
        .get('/jenkins/crumbIssuer/api/json')
        .optionally()
        .reply(...JENKINS_404)
      nock(ORIGIN)
        .get('/jenkins/job/team/job/nope/api/json')
        .query(true)
        .reply(...JENKINS_404)
      const error = await jenkinsError(client.getJob(['team', 'nope']), 'not-found')
      expect(error.message).toBe(
        `Job 'team/nope' was not found on Jenkins at https://ci.example.com/jenkins (404)${hint}`
      )
    }
  )
})

describe('listJobs', () => {
  it('walks the tree in one request and returns the full names of jobs only', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/api/json')
      .query({ tree: listTree(10) })
      .reply(200, {
        _class: 'hudson.model.Hudson',
        jobs: [
          { _class: 'hudson.model.FreeStyleProject', name: 'alpha' },
          {
            _class: 'com.cloudbees.hudson.plugins.folder.Folder',
            name: 'team',
            jobs: [
              { _class: 'org.jenkinsci.plugins.workflow.job.WorkflowJob', name: 'deploy' },
              {
                _class: 'org.jenkinsci.plugins.workflow.multibranch.WorkflowMultiBranchProject',
                name: 'svc',
                jobs: [
                  { _class: 'org.jenkinsci.plugins.workflow.job.WorkflowJob', name: 'feature%2Fx' }
                ]
              },
              { _class: 'com.cloudbees.hudson.plugins.folder.Folder', name: 'empty', jobs: [] }
            ]
          }
        ]
      })
    expect(await client.listJobs([])).toEqual(['alpha', 'team/deploy', 'team/svc/feature%2Fx'])
    expect(client.http.requestCounts['total']).toBe(1)
  })

  it('lists below a folder with the folder prefix', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/job/team/api/json')
      .query(true)
      .reply(200, { jobs: [{ _class: 'hudson.model.FreeStyleProject', name: 'deploy' }] })
    expect(await client.listJobs(['team'])).toEqual(['team/deploy'])
  })

  it('an answer nested far deeper than asked (200 levels) is walked to 10 levels, no deeper', async () => {
    const { client, logger } = makeClient()
    let body = '{"name":"leaf","_class":"hudson.model.FreeStyleProject"}'
    for (let i = 0; i < 200; i++) body = `{"name":"f","jobs":[${body}]}`
    nock(ORIGIN)
      .get('/jenkins/api/json')
      .query(true)
      .reply(200, `{"jobs":[{"name":"top","_class":"hudson.model.FreeStyleProject"},${body}]}`, {
        'Content-Type': 'application/json'
      })
    expect(await client.listJobs([])).toEqual(['top'])
    expect(logger.lines.some(l => /nested deeper than the 10 levels/.test(l.message))).toBe(true)
  })

  it('an answer nested 100 000 levels deep is refused before it is parsed, saying so', async () => {
    const { client } = makeClient()
    let body = '{"name":"leaf","_class":"hudson.model.FreeStyleProject"}'
    for (let i = 0; i < 100_000; i++) body = `{"name":"f","jobs":[${body}]}`
    nock(ORIGIN)
      .get('/jenkins/api/json')
      .query(true)
      .reply(200, `{"jobs":[${body}]}`, { 'Content-Type': 'application/json' })
    const error = await jenkinsError(client.listJobs([]), 'protocol')
    expect(error.message).toMatch(
      /^Jenkins at https:\/\/ci\.example\.com\/jenkins answered .* with JSON nested more than 500 levels deep \(at character \d+\)/
    )
  })

  it('nests the tree to a fixed bound', () => {
    expect(listTree(1)).toBe('jobs[name,_class]')
    expect(listTree(3)).toBe('jobs[name,_class,jobs[name,_class,jobs[name,_class]]]')
    expect(listTree(10).match(/jobs\[/g)).toHaveLength(10)
  })
})

describe('answers that are not objects', () => {
  it('a null or a list where an object belongs is refused, not read as an empty queue or job', async () => {
    const { client } = makeClient()
    const json = { 'Content-Type': 'application/json' }
    nock(ORIGIN).get('/jenkins/queue/api/json').query(true).reply(200, 'null', json)
    const queue = await jenkinsError(client.getQueue(), 'protocol')
    expect(queue.message).toBe(`Jenkins at ${BASE} answered the queue without an object`)
    nock(ORIGIN)
      .get('/jenkins/crumbIssuer/api/json')
      .reply(...JENKINS_404)
    nock(ORIGIN).get('/jenkins/job/deploy/api/json').query(true).reply(200, '[]', json)
    const job = await jenkinsError(client.getJob(['deploy']), 'protocol')
    expect(job.message).toBe(`Jenkins at ${BASE} answered job 'deploy' without an object`)
  })
})

describe('queue', () => {
  it('reads a queue item', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/queue/item/12/api/json')
      .reply(200, {
        _class: 'hudson.model.Queue$LeftItem',
        id: 12,
        cancelled: false,
        executable: { number: 4, url: 'http://elsewhere/job/a/4/' }
      })
    expect((await client.getQueueItem(12)).executable).toEqual({
      number: 4,
      url: 'http://elsewhere/job/a/4/'
    })
  })

  it('leaves out the url of an executable that Jenkins sent without one, rather than make one up', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/queue/item/6/api/json')
      .reply(200, { id: 6, executable: { number: 4 } })
    const item = await client.getQueueItem(6)
    expect(item.executable).toEqual({ number: 4 })
    expect(
      item.executable !== null && item.executable !== undefined && 'url' in item.executable
    ).toBe(false)
  })

  it('refuses an executable whose number is not a build number, and drops a bogus inQueueSince', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/queue/item/3/api/json')
      .reply(200, { id: 3, executable: { number: 1e21, url: '' } })
    const error = await jenkinsError(client.getQueueItem(3), 'protocol')
    expect(error.message).toBe(
      `Jenkins at ${BASE} answered queue item 3 with a build whose number is 1e+21: expected a whole number from 1 to 9007199254740991`
    )
    nock(ORIGIN)
      .get('/jenkins/queue/item/4/api/json')
      .reply(200, { id: 4, inQueueSince: -1e300, executable: { number: 4 } })
    const item = await client.getQueueItem(4)
    expect(item.inQueueSince).toBeUndefined()
    expect(item.executable).toEqual({ number: 4 })
    nock(ORIGIN)
      .get('/jenkins/queue/item/5/api/json')
      .reply(200, { id: 5, why: null, executable: {} })
    expect((await client.getQueueItem(5)).executable).toBeNull()
  })

  it.each([
    [{ cancelled: 'yes' }, 'with cancelled "yes": expected true or false'],
    [{ why: 5 }, 'with why 5: expected a text or null'],
    [{ task: 'deploy' }, 'with task "deploy": expected an object or null'],
    [{ actions: { causes: [] } }, 'with actions {"causes":[]}: expected a list'],
    [{ executable: 4 }, 'with executable 4: expected an object or null'],
    [{ _class: ['Queue$LeftItem'] }, 'with _class ["Queue$LeftItem"]: expected a class name'],
    [[{ id: 2 }], 'without an id']
  ])('refuses a queue item with %j, saying which field is wrong', async (fields, what) => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/queue/item/2/api/json')
      .reply(200, Array.isArray(fields) ? fields : { id: 2, ...fields })
    const error = await jenkinsError(client.getQueueItem(2), 'protocol')
    expect(error.message).toBe(`Jenkins at ${BASE} answered queue item 2 ${what}`)
  })

  it('keeps only what a queue item says in the types it says it in', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/queue/item/2/api/json')
      .reply(200, {
        _class: 'hudson.model.Queue$WaitingItem',
        id: 2,
        why: null,
        cancelled: false,
        actions: [{ causes: [] }],
        task: { name: 'deploy', url: 7 }
      })
    const item = await client.getQueueItem(2)
    expect(item).toEqual({
      _class: 'hudson.model.Queue$WaitingItem',
      id: 2,
      why: null,
      cancelled: false,
      actions: [{ causes: [] }],
      task: {}
    })
    expect('executable' in item).toBe(false)
  })

  it('404 explains that left items expire', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/queue/item/12/api/json')
      .reply(...JENKINS_404)
    const error = await jenkinsError(client.getQueueItem(12), 'not-found')
    expect(error.message).toContain('Queue item 12')
  })

  it.each([
    [204, 'cancelled'],
    [302, 'cancelled'],
    [500, 'already-left'],
    [404, 'not-found']
  ] as const)('cancelItem %i → %s', async (status, outcome) => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/crumbIssuer/api/json')
      .reply(...JENKINS_404)
    nock(ORIGIN).post('/jenkins/queue/cancelItem').query({ id: '12' }).reply(status)
    expect(await client.cancelQueueItem(12)).toBe(outcome)
    expect(client.http.requestCounts['cancel']).toBe(1)
  })

  it('cancelItem 422 is a forbidden error (no Job/Cancel)', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/crumbIssuer/api/json')
      .reply(...JENKINS_404)
    nock(ORIGIN).post('/jenkins/queue/cancelItem').query({ id: '12' }).reply(422)
    const error = await jenkinsError(client.cancelQueueItem(12), 'forbidden')
    expect(error.message).toContain('Job/Cancel')
  })
})

describe('getBuild', () => {
  it('reads a numbered build with a tree', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/job/a/job/b/5/api/json')
      .query({ tree: 'number,result,building' })
      .reply(200, { number: 5, result: null, building: true })
    const build = await client.getBuild(['a', 'b'], 5, { tree: 'number,result,building' })
    expect(build).toMatchObject({ number: 5, building: true })
  })

  it('decodes its ParametersAction once: names, values, and which are passwords', async () => {
    const { client } = makeClient()
    const actions = [
      { _class: 'hudson.model.CauseAction', causes: [] },
      {
        _class: 'hudson.model.ParametersAction',
        parameters: [
          { _class: 'hudson.model.StringParameterValue', name: 'ENV', value: 'prod' },
          { _class: 'hudson.model.PasswordParameterValue', name: 'DB' },
          { _class: 'hudson.model.StringParameterValue', value: 'no name' }
        ]
      }
    ]
    nock(ORIGIN).get('/jenkins/job/a/5/api/json').reply(200, { number: 5, result: null, actions })
    nock(ORIGIN).get('/jenkins/job/a/6/api/json').reply(200, { number: 6, result: null })
    const build = await client.getBuild(['a'], 5)
    expect(build.parameters).toEqual([
      { name: 'ENV', value: 'prod' },
      { name: 'DB', password: true }
    ])
    expect(build.actions).toEqual(actions)
    expect((await client.getBuild(['a'], 6)).parameters).toBeUndefined()
  })

  it("takes a password from the job's definition: a build of that job never keeps its value", async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/crumbIssuer/api/json')
      .reply(...JENKINS_404)
    nock(ORIGIN)
      .get('/jenkins/job/a/api/json')
      .query(true)
      .reply(200, {
        name: 'a',
        property: [
          {
            parameterDefinitions: [
              {
                name: 'DB',
                type: 'PasswordParameterDefinition',
                defaultParameterValue: { value: 'default-pw' }
              },
              { name: 'ENV', type: 'StringParameterDefinition' }
            ]
          }
        ]
      })
    const parameters = [
      // A plugin, an older or a hostile Jenkins: a password's value under another class.
      { _class: 'hudson.model.StringParameterValue', name: 'DB', value: 'hunter2-db' },
      { _class: 'hudson.model.StringParameterValue', name: 'ENV', value: 'prod' }
    ]
    nock(ORIGIN)
      .get('/jenkins/job/a/5/api/json')
      .twice()
      .reply(200, { number: 5, result: 'SUCCESS', actions: [{ parameters }] })
    // Before the job was read, Jenkins' class is all there is.
    expect((await client.getBuild(['a'], 5)).parameters).toEqual([
      { name: 'DB', value: 'hunter2-db' },
      { name: 'ENV', value: 'prod' }
    ])
    const info = await client.getJob(['a'])
    expect(info.parameterDefinitions).toEqual([
      { name: 'DB', type: 'PasswordParameterDefinition', password: true },
      { name: 'ENV', type: 'StringParameterDefinition' }
    ])
    const build = await client.getBuild(['a'], 5)
    expect(build.parameters).toEqual([
      { name: 'DB', password: true },
      { name: 'ENV', value: 'prod' }
    ])
    expect(JSON.stringify(build.json)).not.toContain('hunter2')
  })

  it.each(['SUCCESS', 'UNSTABLE', 'FAILURE', 'NOT_BUILT', 'ABORTED', null])(
    'accepts the result %j',
    async result => {
      const { client } = makeClient()
      nock(ORIGIN).get('/jenkins/job/a/5/api/json').reply(200, { number: 5, result })
      expect((await client.getBuild(['a'], 5)).result).toBe(result)
    }
  )

  it.each(['success', 'PASSED', '::error::x', '\n::stop-commands::x', 3, { r: 1 }])(
    'refuses any other result (%j) as an unexpected result, quoted inertly',
    async result => {
      const { client } = makeClient()
      nock(ORIGIN).get('/jenkins/job/a/5/api/json').reply(200, { number: 5, result })
      const error = await jenkinsError(client.getBuild(['a'], 5), 'protocol')
      expect(error.message).toContain(
        `build #5 of 'a' with an unexpected result ${JSON.stringify(result)}`
      )
      expect(error.message).toContain(
        'expected one of SUCCESS, UNSTABLE, FAILURE, NOT_BUILT, ABORTED'
      )
      expect(error.message).not.toMatch(/[\r\n]/)
    }
  )

  it.each([
    [1e21, '1e+21'],
    [2 ** 53, '9007199254740992'],
    [0, '0'],
    [-3, '-3'],
    [2.5, '2.5']
  ])('refuses a build number that is not one (%s): it would address no build', async (n, shown) => {
    const { client } = makeClient()
    nock(ORIGIN).get('/jenkins/job/a/lastBuild/api/json').reply(200, { number: n, result: null })
    const error = await jenkinsError(client.getBuild(['a'], 'lastBuild'), 'protocol')
    expect(error.message).toBe(
      `Jenkins at ${BASE} answered a build of 'a' with the number ${shown}: expected a whole number from 1 to 9007199254740991`
    )
  })

  it('404 on lastSuccessfulBuild says the job has none', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/job/a/lastSuccessfulBuild/api/json')
      .reply(...JENKINS_404)
    const error = await jenkinsError(client.getBuild(['a'], 'lastSuccessfulBuild'), 'not-found')
    expect(error.message).toContain("Job 'a' has no last successful build")
  })

  it('404 on lastBuild says the job has no builds', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/job/a/lastBuild/api/json')
      .reply(...JENKINS_404)
    const error = await jenkinsError(client.getBuild(['a'], 'lastBuild'), 'not-found')
    expect(error.message).toContain("Job 'a' has no builds")
  })

  it('lists recent builds with their queue ids', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/job/a/api/json')
      .query({ tree: 'builds[number,queueId]{0,3}' })
      .reply(200, { builds: [{ number: 9, queueId: 40 }, { number: 8 }] })
    expect(await client.recentBuilds(['a'], 3)).toEqual([{ number: 9, queueId: 40 }, { number: 8 }])
  })

  it('lists recent builds with the causes, user ids and parameters of their actions when asked', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/job/a/api/json')
      .query({
        tree: 'builds[number,queueId,actions[causes[_class,userId],parameters[name,value]]]{0,5}'
      })
      .reply(200, {
        builds: [
          {
            number: 9,
            queueId: 40,
            actions: [
              { causes: [{ _class: 'hudson.model.Cause$UserIdCause', userId: 'ci-bot' }] },
              { parameters: [{ name: 'ENV', value: 'qa' }] }
            ]
          }
        ]
      })
    expect(await client.recentBuilds(['a'], 5, { actions: true })).toEqual([
      {
        number: 9,
        queueId: 40,
        causes: ['hudson.model.Cause$UserIdCause'],
        userIds: ['ci-bot'],
        parameters: [{ name: 'ENV', value: 'qa' }]
      }
    ])
  })

  it('lists recent builds with their outcome when asked', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/job/a/api/json')
      .query({ tree: 'builds[number,queueId,result,duration,building]{0,16}' })
      .reply(200, {
        builds: [
          { number: 9, queueId: 40, result: null, duration: 0, building: true },
          { number: 8, result: 'FAILURE', duration: 1200, building: false },
          { number: 7, result: 'bogus', duration: 'long' }
        ]
      })
    expect(await client.recentBuilds(['a'], 16, { outcome: true })).toEqual([
      { number: 9, queueId: 40, result: null, duration: 0, building: true },
      { number: 8, result: 'FAILURE', duration: 1200, building: false },
      { number: 7 }
    ])
  })
})

describe('progressiveText', () => {
  it('returns the body stream with X-Text-Size and X-More-Data', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/job/a/3/logText/progressiveText')
      .query({ start: '100' })
      .reply(200, 'line one\r\nline two\r\n', { 'X-Text-Size': '118', 'X-More-Data': 'true' })
    const chunk = await client.progressiveText(
      { job: ['a'], number: 3, url: 'http://elsewhere/job/a/3/' },
      100
    )
    expect(chunk.textSize).toBe(118)
    expect(chunk.moreData).toBe(true)
    let text = ''
    for await (const part of chunk.body) text += String(part)
    expect(text).toBe('line one\r\nline two\r\n')
  })

  it('treats an absent X-More-Data as the end of the log', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/job/a/3/logText/progressiveText')
      .query({ start: '0' })
      .reply(200, 'done\r\n', { 'X-Text-Size': '5' })
    const chunk = await client.progressiveText(
      { job: ['a'], number: 3, url: `${BASE}/job/a/3/` },
      0
    )
    chunk.body.resume()
    expect(chunk.moreData).toBe(false)
  })

  describe('on a real loopback server', () => {
    let server: Server | undefined
    afterEach(async () => {
      await new Promise(resolve => server?.close(resolve))
      server = undefined
    })

    it('hands the body on before it is complete (a huge console is streamed, not buffered)', async () => {
      let finish!: () => void
      const finished = new Promise<void>(resolve => (finish = resolve))
      server = createServer((req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain', 'X-Text-Size': '999999' })
        res.write('first part\n')
        // The rest only comes once the client got the stream: a buffering client would wait forever.
        void finished.then(() => res.end('second part\n'))
      })
      await new Promise<void>(resolve => server?.listen(0, '127.0.0.1', resolve))
      const port = (server.address() as AddressInfo).port
      const { client } = makeClient({ url: `http://127.0.0.1:${port}/`, requestTimeoutMs: 10_000 })
      const chunk = await Promise.race([
        client.progressiveText({ job: ['a'], number: 1, url: '' }, 0),
        new Promise<undefined>(resolve => setTimeout(() => resolve(undefined), 5000))
      ])
      finish()
      expect(chunk).toBeDefined()
      let text = ''
      for await (const part of chunk!.body) text += String(part)
      expect(text).toBe('first part\nsecond part\n')
      client.http.dispose()
    })

    it('a request that gets no answer in time is a timeout error', async () => {
      server = createServer(() => undefined)
      await new Promise<void>(resolve => server?.listen(0, '127.0.0.1', resolve))
      const port = (server.address() as AddressInfo).port
      const { client } = makeClient({
        url: `http://127.0.0.1:${port}`,
        requestTimeoutMs: 100,
        retry: { attempts: 1 }
      })
      const error = await jenkinsError(client.getQueueItem(1), 'timeout')
      expect(error.message).toContain(`127.0.0.1:${port}`)
      server.closeAllConnections()
      client.http.dispose()
    })
  })
})

describe('read retries', () => {
  it('retries 503/429/502/504/500 and network errors, then succeeds', async () => {
    const { client, logger } = makeClient({ retry: { attempts: 8, baseDelayMs: 1, maxDelayMs: 2 } })
    nock(ORIGIN)
      .get('/jenkins/queue/item/1/api/json')
      .reply(503, 'restarting', { 'Retry-After': '0' })
      .get('/jenkins/queue/item/1/api/json')
      .reply(429, '', { 'Retry-After': new Date(Date.now() - 1000).toUTCString() })
      .get('/jenkins/queue/item/1/api/json')
      .reply(502)
      .get('/jenkins/queue/item/1/api/json')
      .replyWithError(netError('ECONNRESET'))
      .get('/jenkins/queue/item/1/api/json')
      .replyWithError(netError('EAI_AGAIN'))
      .get('/jenkins/queue/item/1/api/json')
      .reply(504)
      .get('/jenkins/queue/item/1/api/json')
      .reply(500)
      .get('/jenkins/queue/item/1/api/json')
      .reply(200, { id: 1 })
    expect((await client.getQueueItem(1)).id).toBe(1)
    expect(client.http.requestCounts['queue']).toBe(8)
    expect(
      logger.lines.filter(l => l.level === 'debug' && /retry \d\/7/.test(l.message))
    ).toHaveLength(7)
  })

  it('caps a Retry-After past the deadline by the time left, and tries again within it', async () => {
    const { client } = makeClient({ deadline: Date.now() + 1500 })
    nock(ORIGIN)
      .get('/jenkins/queue/item/1/api/json')
      .reply(503, '', { 'Retry-After': '3600' })
      .get('/jenkins/queue/item/1/api/json')
      .reply(200, { id: 1 })
    expect((await client.getQueueItem(1)).id).toBe(1)
    expect(client.http.requestCounts['queue']).toBe(2)
  })

  it('a Retry-After that leaves no time gives up before the deadline, naming it', async () => {
    const deadline = Date.now() + 1200
    const { client } = makeClient({ deadline })
    nock(ORIGIN)
      .get('/jenkins/queue/item/1/api/json')
      .times(3)
      .reply(503, '', { 'Retry-After': '3600' })
    const error = await jenkinsError(client.getQueueItem(1), 'server')
    expect(error.message).toContain('no time left before the deadline')
    expect(Date.now()).toBeLessThanOrEqual(deadline + 100)
    nock.cleanAll()
  })

  it('gives up after the attempts with a server error', async () => {
    const { client } = makeClient({ retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 1 } })
    nock(ORIGIN)
      .get('/jenkins/job/a/7/api/json')
      .twice()
      .reply(500, 'oops', { 'Content-Type': 'text/plain' })
    const error = await jenkinsError(client.getBuild(['a'], 7), 'server')
    expect(error.message).toMatch(/500.*after 2 attempts/)
  })

  it('does not retry a 404', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/job/a/7/api/json')
      .reply(...JENKINS_404)
    await jenkinsError(client.getBuild(['a'], 7), 'not-found')
    expect(client.http.requestCounts['build']).toBe(1)
  })
})

describe('stop and disable', () => {
  const build = { job: ['a'], number: 3, url: `${BASE}/job/a/3/` }

  it.each(['stop', 'term', 'kill'] as const)('POST %s: 302 is success', async how => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/crumbIssuer/api/json')
      .reply(...JENKINS_404)
    nock(ORIGIN)
      .post(`/jenkins/job/a/3/${how}`)
      .reply(302, '', { Location: `${BASE}/job/a/3/` })
    await client.stopBuild(build, how)
  })

  it('stop is retried on 502 and after a reset', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/crumbIssuer/api/json')
      .reply(...JENKINS_404)
    nock(ORIGIN)
      .post('/jenkins/job/a/3/stop')
      .reply(502)
      .post('/jenkins/job/a/3/stop')
      .replyWithError(netError('ECONNRESET'))
      .post('/jenkins/job/a/3/stop')
      .reply(200)
    await client.stopBuild(build, 'stop')
    expect(client.http.requestCounts['stop']).toBe(3)
  })

  it('stop retries a 503 within the client deadline (an abort budget), honouring a capped Retry-After', async () => {
    const { client } = makeClient({ deadline: Date.now() + 2000 })
    nock(ORIGIN)
      .get('/jenkins/crumbIssuer/api/json')
      .reply(...JENKINS_404)
    nock(ORIGIN)
      .post('/jenkins/job/a/3/stop')
      .reply(503, '', { 'Retry-After': '50' })
      .post('/jenkins/job/a/3/stop')
      .reply(302)
    await client.stopBuild(build, 'stop')
    expect(client.http.requestCounts['stop']).toBe(2)
  })

  it('stop 404 is not-found; term explains it is Pipeline-only', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/crumbIssuer/api/json')
      .reply(...JENKINS_404)
    nock(ORIGIN)
      .post('/jenkins/job/a/3/term')
      .reply(...JENKINS_404)
    const error = await jenkinsError(client.stopBuild(build, 'term'), 'not-found')
    expect(error.message).toContain('Pipeline')
  })

  it('disable: 302 and 303 are success', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/crumbIssuer/api/json')
      .reply(...JENKINS_404)
    nock(ORIGIN).post('/jenkins/job/a/disable').reply(302).post('/jenkins/job/a/disable').reply(303)
    await client.disableJob(['a'])
    await client.disableJob(['a'])
  })
})

describe('getQueue', () => {
  it('one request for every waiting item: its job from the task URL, causes, parameters and why', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get('/jenkins/queue/api/json')
      .query({ tree: QUEUE_TREE })
      .reply(200, {
        _class: 'hudson.model.Queue',
        items: [
          {
            _class: 'hudson.model.Queue$BlockedItem',
            id: 7,
            task: { url: 'http://jenkins.internal/job/mono/job/api/', name: 'api' },
            actions: [
              { causes: [{ _class: 'hudson.model.Cause$UserIdCause' }] },
              { parameters: [{ name: 'SHA', value: 'abc' }] }
            ],
            why: 'Build #3 is already in progress (ETA: 1 min 3 sec)'
          },
          { id: 8, task: { url: 'http://jenkins.internal/job/web/' }, actions: [], why: null },
          { id: 'x', task: null }
        ]
      })
    expect(await client.getQueue()).toEqual([
      {
        id: 7,
        job: ['mono', 'api'],
        causes: ['hudson.model.Cause$UserIdCause'],
        parameters: [{ name: 'SHA', value: 'abc' }],
        why: 'Build #3 is already in progress (ETA: 1 min 3 sec)'
      },
      { id: 8, job: ['web'], causes: [], parameters: [] }
    ])
  })
})
