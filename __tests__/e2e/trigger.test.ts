/**
 * End to end: the bundle triggers and follows a build the way a workflow step
 * would, with every way of authenticating (password with crumb and session,
 * API token, another crumb header name, CSRF off) and a context path.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  startJenkins,
  type JobSpec,
  type ServerOptions,
  type TestJenkins
} from '../../test-server/index.js'
import { errorAnnotation } from '../../scripts/action-runner.js'
import { auth, describeRun, run, RUNTIMES } from './helpers.js'

const PARAMS: JobSpec = {
  parameters: [
    { name: 'BRANCH', type: 'string', default: 'main' },
    { name: 'DEBUG', type: 'boolean', default: false },
    { name: 'TARGET', type: 'choice', choices: ['staging', 'production'] },
    { name: 'NOTES', type: 'text', default: '' }
  ],
  script: { durationMs: 200, echoParameters: true }
}

const JOBS: Record<string, JobSpec> = {
  hello: { script: { durationMs: 300, consoleLines: ['Hello from Jenkins'] } },
  'params-lines': PARAMS,
  'params-json': PARAMS,
  'params-unknown': PARAMS,
  'params-multi': PARAMS
}

describe.each(RUNTIMES)('trigger and follow ($name)', ({ path: node }) => {
  let jenkins: TestJenkins
  beforeAll(async () => {
    jenkins = await startJenkins({
      contextPath: '/jenkins',
      // Jenkins' configured URL names another host: every URL the action
      // outputs must still be on the configured base (jenkins-api.md 9).
      rootUrl: 'http://jenkins-root.invalid:8080/ci/',
      // Jenkins' default quiet period: the action must not wait it out.
      quietPeriodSec: 5,
      jobs: JOBS
    })
  })
  afterAll(() => jenkins.close())

  describe.concurrent('outputs and parameters', () => {
    it('triggers once, starts without the quiet period and sets every output on the configured base', async () => {
      const r = await run(node, { ...auth(jenkins, 'password'), job: 'hello' })
      expect(r.code, describeRun(r)).toBe(0)

      expect(jenkins.triggerCount('hello')).toBe(1)
      const [build] = jenkins.builds('hello')
      expect(build).toBeDefined()
      if (!build) return
      expect(build.building).toBe(false)
      expect(build.result).toBe('SUCCESS')

      // delay=0sec: the queue item was due the moment it was queued, and the
      // build started long before a 5 s quiet period would have let it.
      const item = jenkins.state.queue.find(q => q.id === build.queueId)
      expect(item?.dueAt).toBe(item?.inQueueSince)
      expect(build.startedAt - build.queuedAt).toBeLessThan(2500)

      const base = jenkins.url
      expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/jenkins$/)
      expect(r.outputs.result).toBe('SUCCESS')
      expect(r.outputs['build-number']).toBe(String(build.number))
      expect(r.outputs['build-url']).toBe(`${base}/job/hello/${build.number}/`)
      expect(r.outputs['job-url']).toBe(`${base}/job/hello/`)
      expect(r.outputs['queue-url']).toBe(`${base}/queue/item/${build.queueId}/`)
      expect(r.outputs.duration).toBe(String(build.finishedAt! - build.startedAt))
      const json = JSON.parse(r.outputs.build ?? '') as { number: number; url: string }
      expect(json.number).toBe(build.number)
      // The JSON is Jenkins' own (its rootUrl), the outputs are not.
      expect(json.url).toContain('jenkins-root.invalid')
      for (const value of Object.entries(r.outputs)
        .filter(([name]) => name !== 'build')
        .map(([, v]) => v)) {
        expect(value).not.toContain('jenkins-root.invalid')
      }
      expect(r.stdout).not.toContain('jenkins-root.invalid')
    })

    it('passes parameters given as NAME=value lines', async () => {
      const r = await run(node, {
        ...auth(jenkins, 'password'),
        job: 'params-lines',
        parameters: 'BRANCH=feature/x\nDEBUG=true\nTARGET=production\nNOTES=a=b=c\n'
      })
      expect(r.code, describeRun(r)).toBe(0)
      expect(jenkins.triggerCount('params-lines')).toBe(1)
      const [build] = jenkins.builds('params-lines')
      expect(build?.parameters).toEqual({
        BRANCH: 'feature/x',
        DEBUG: true,
        TARGET: 'production',
        NOTES: 'a=b=c'
      })
      expect(r.stdout).toContain('BRANCH=feature/x')
    })

    it('passes parameters given as JSON, with a boolean', async () => {
      const r = await run(node, {
        ...auth(jenkins, 'token'),
        job: 'params-json',
        parameters: '{"BRANCH": "release/2", "DEBUG": true, "TARGET": "staging", "NOTES": "x\\ny"}'
      })
      expect(r.code, describeRun(r)).toBe(0)
      expect(jenkins.triggerCount('params-json')).toBe(1)
      const [build] = jenkins.builds('params-json')
      expect(build?.parameters).toEqual({
        BRANCH: 'release/2',
        DEBUG: true,
        TARGET: 'staging',
        NOTES: 'x\ny'
      })
      const json = JSON.parse(r.outputs.build ?? '{}') as { number?: number }
      expect(json.number).toBe(build?.number)
    })

    it('two values for a single-value parameter, or a boolean that is neither true nor false: refused before anything is sent', async () => {
      // Jenkins would answer the first with a 500 and run the second as false.
      for (const [parameters, said] of [
        [
          '{"BRANCH": ["eu", "us"]}',
          "Parameter 'BRANCH' of job 'params-multi' is given 2 values, but a string parameter takes one"
        ],
        [
          'DEBUG=maybe',
          "Parameter 'DEBUG' of job 'params-multi' is 'maybe', but a boolean parameter takes true or false: Jenkins would run it as false. Nothing was triggered."
        ]
      ] as const) {
        const r = await run(node, { ...auth(jenkins, 'password'), job: 'params-multi', parameters })
        expect(r.code, describeRun(r)).toBe(1)
        expect(errorAnnotation(r)).toContain(said)
      }
      const posts = jenkins.requests.filter(q => q.method === 'POST' && q.job === 'params-multi')
      expect(posts).toEqual([])
      expect(jenkins.builds('params-multi')).toHaveLength(0)
    })

    it('warns about a parameter the job does not define, naming the closest defined one', async () => {
      const r = await run(node, {
        ...auth(jenkins, 'token'),
        job: 'params-unknown',
        parameters: 'BRANCHE=topic\nTARGET=staging'
      })
      expect(r.code, describeRun(r)).toBe(0)
      expect(r.stdout).toMatch(
        /^::warning::.*params-unknown does not define parameter 'BRANCHE'.*Did you mean 'BRANCH'\?/m
      )
      const [build] = jenkins.builds('params-unknown')
      // Jenkins drops it; the defined one keeps its default.
      expect(build?.parameters.BRANCH).toBe('main')
      expect(build?.parameters).not.toHaveProperty('BRANCHE')
    })
  })
})

/** Server setups the action must work with, and what each needs from it. */
const VARIANTS: Array<{
  name: string
  server: ServerOptions
  secret: 'password' | 'token'
  crumb: boolean
}> = [
  { name: 'password, crumb Jenkins-Crumb', server: {}, secret: 'password', crumb: true },
  {
    name: 'password, crumb Automation-Crumb',
    server: { crumbField: 'Automation-Crumb' },
    secret: 'password',
    crumb: true
  },
  { name: 'password, CSRF off', server: { csrf: false }, secret: 'password', crumb: false },
  { name: 'API token', server: {}, secret: 'token', crumb: false },
  {
    name: 'API token, context path /jenkins',
    server: { contextPath: '/jenkins' },
    secret: 'token',
    crumb: false
  },
  {
    name: 'password, context path /jenkins, Automation-Crumb',
    server: { contextPath: '/jenkins', crumbField: 'Automation-Crumb' },
    secret: 'password',
    crumb: true
  }
]

describe.each(RUNTIMES)('authentication setups ($name)', ({ path: node }) => {
  describe.concurrent.each(VARIANTS)('$name', variant => {
    let jenkins: TestJenkins
    beforeAll(async () => {
      jenkins = await startJenkins({
        quietPeriodSec: 0,
        ...variant.server,
        jobs: { hello: { script: { durationMs: 150, consoleLines: ['hi'] } } }
      })
    })
    afterAll(() => jenkins.close())

    it('triggers and follows the build', async () => {
      const r = await run(node, { ...auth(jenkins, variant.secret), job: 'hello' })
      expect(r.code, describeRun(r)).toBe(0)
      expect(r.outputs.result).toBe('SUCCESS')
      expect(r.outputs['build-url']).toBe(`${jenkins.url}/job/hello/1/`)
      const triggers = jenkins.requests.filter(q => q.kind === 'trigger')
      expect(triggers).toHaveLength(1)
      expect(triggers[0]).toMatchObject({ status: 201, user: 'admin' })
      // Every request was authenticated as the user: none went out anonymous or was refused.
      expect(jenkins.requests.filter(q => q.user !== 'admin')).toEqual([])
      const crumbAnswers = jenkins.requests.filter(q => q.kind === 'crumb').map(q => q.status)
      if (variant.server.csrf === false) expect(crumbAnswers.every(s => s === 404)).toBe(true)
      if (variant.crumb) {
        expect(crumbAnswers).toContain(200)
        expect(r.stdout).toContain(
          `Got a CSRF crumb (header ${variant.server.crumbField ?? 'Jenkins-Crumb'})`
        )
      }
      const token = auth(jenkins).token
      const leaks = r.stdout
        .split('\n')
        .filter(l => l.includes(token) && !l.startsWith('::add-mask::'))
      expect(leaks).toEqual([])
    })
  })
})
