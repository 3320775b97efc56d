import nock from 'nock'
import { describe, expect, it } from 'vitest'
import { Interrupted } from '../../../src/jenkins/transport/errors.js'
import { jobNamesFromUrl } from '../../../src/jenkins/reads/decode.js'
import { expectedParameters, sameParameters } from '../../../src/jenkins/trigger/reconcile.js'
import type { JobInfo } from '../../../src/jenkins/model/types.js'
import {
  BASE,
  JENKINS_404,
  ORIGIN,
  USER,
  jenkinsError,
  makeClient,
  netError,
  useNock
} from '../helpers.js'

useNock()

const job = ['team', 'deploy']
const JOB_PATH = '/jenkins/job/team/job/deploy'
const info: JobInfo = {
  name: 'deploy',
  url: `${BASE}/job/team/job/deploy/`,
  isFolder: false,
  nextBuildNumber: 10,
  parameterDefinitions: [
    { name: 'ENV', type: 'ChoiceParameterDefinition', choices: ['dev', 'prod'] },
    { name: 'DRY', type: 'BooleanParameterDefinition', defaultValue: false },
    { name: 'NOTE', type: 'StringParameterDefinition', defaultValue: 'none' }
  ]
}
/** How Jenkins stores our { ENV: 'prod' }: every definition, defaults filled in. */
const OURS = [
  { _class: 'hudson.model.StringParameterValue', name: 'ENV', value: 'prod' },
  { _class: 'hudson.model.BooleanParameterValue', name: 'DRY', value: false },
  { _class: 'hudson.model.StringParameterValue', name: 'NOTE', value: 'none' }
]
const OTHERS = OURS.map(p => (p.name === 'ENV' ? { ...p, value: 'dev' } : p))

const LOGGING_ID = '0b5a3c1e-6f2d-4e8a-9c7b-1d2e3f4a5b6c'

/** Jenkins' error page (core jenkins/model/Jenkins/oops.jelly), with a stack trace when Jenkins shows them. */
function oopsPage(trace?: string): string {
  const escaped = (trace ?? '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
  return `<!DOCTYPE html><html><head><title>Jenkins</title></head><body><div id="main-panel"><h1 style="text-align: center"><img src="/static/abc/images/rage.svg" height="179" width="154"/> <span style="font-size:50px">&nbsp;Oops!</span></h1><div id="error-description"><h2 style="text-align: center">A problem occurred while processing the request</h2><p style="text-align: center">Logging ID=${LOGGING_ID}</p></div>${trace ? `<h2>Stack trace</h2><pre style="margin:2em; clear:both">${escaped}</pre>` : ''}</div></body></html>`
}

/** A client whose settle period is short; CSRF is off so only the trigger matters. */
function client() {
  nock(ORIGIN)
    .get('/jenkins/crumbIssuer/api/json')
    .reply(...JENKINS_404)
  return makeClient({ triggerSettleMs: 5 })
}

function trigger() {
  return nock(ORIGIN).post(`${JOB_PATH}/buildWithParameters`).query({ delay: '0sec' })
}

function queueItem(id: number, parameters: unknown[], jobPath = JOB_PATH) {
  return {
    _class: 'hudson.model.Queue$BuildableItem',
    id,
    inQueueSince: 1,
    task: {
      _class: 'hudson.model.FreeStyleProject',
      name: 'x',
      url: `http://root.invalid${jobPath}/`
    },
    actions: [{ _class: 'hudson.model.ParametersAction', parameters }, {}]
  }
}

function queue(...items: unknown[]) {
  return nock(ORIGIN)
    .get('/jenkins/queue/api/json')
    .query(q => typeof q.tree === 'string' && q.tree.startsWith('items[id,task[url,name]'))
    .reply(200, { _class: 'hudson.model.Queue', items })
}

function builds(...list: unknown[]) {
  return nock(ORIGIN)
    .get(`${JOB_PATH}/api/json`)
    .query(q => typeof q.tree === 'string' && q.tree.startsWith('builds[number,queueId'))
    .reply(200, { builds: list })
}

function build(number: number, queueId: number, parameters: unknown[], userId: string | null) {
  return {
    number,
    queueId,
    actions: [
      { _class: 'hudson.model.ParametersAction', parameters },
      { _class: 'hudson.model.CauseAction', causes: [{ userId }] }
    ]
  }
}

describe('trigger reconciliation after a lost answer', () => {
  it('adopts a queued item of the job with exactly our parameters (defaults filled in), no resend', async () => {
    const { client: c, logger } = client()
    trigger().replyWithError(netError('ECONNRESET'))
    // Someone else's item with other values, an item of another job, then ours.
    queue(
      queueItem(40, OTHERS),
      queueItem(41, OURS, '/ci/job/team/job/other'),
      queueItem(42, OURS, '/ci/job/team/job/deploy')
    )
    const result = await c.trigger(info, job, { ENV: 'prod' })
    expect(result).toMatchObject({ queueId: 42, adopted: 'queue', merged: false })
    expect(result.queueUrl).toBe(`${BASE}/queue/item/42/`)
    expect(c.http.requestCounts['trigger']).toBe(1)
    expect(
      logger.lines.some(
        l => l.level === 'info' && /answer lost \(ECONNRESET\).*queue item 42/.test(l.message)
      )
    ).toBe(true)
  })

  it('adopts a build started since the trigger with our parameters and our user', async () => {
    const { client: c, logger } = client()
    trigger().reply(502, 'Bad Gateway')
    queue()
    builds(
      build(12, 72, OURS, 'mallory'), // same parameters, another user
      build(11, 71, OTHERS, USER), // our user, other parameters
      build(9, 69, OURS, USER) // older than nextBuildNumber: an earlier run's
    )
    // Nothing yet: Jenkins may still be working. The second look finds it.
    queue()
    builds(build(13, 73, OURS, USER), build(12, 72, OURS, 'mallory'))
    const result = await c.trigger(info, job, { ENV: 'prod' })
    expect(result).toMatchObject({ queueId: 73, adopted: 'build' })
    expect(c.http.requestCounts['trigger']).toBe(1)
    expect(logger.lines.some(l => /build #13 .*queue item 73/.test(l.message))).toBe(true)
  })

  it('sends again when Jenkins shows nothing after the settle period, and says so', async () => {
    const { client: c, logger } = client()
    trigger().reply(504, 'Gateway Timeout')
    queue(queueItem(40, OTHERS))
    builds()
    queue(queueItem(40, OTHERS))
    builds(build(10, 60, OTHERS, USER))
    trigger().reply(201, '', { Location: `${ORIGIN}/jenkins/queue/item/43/` })
    const result = await c.trigger(info, job, { ENV: 'prod' })
    expect(result).toMatchObject({ queueId: 43, merged: false })
    expect(result.adopted).toBeUndefined()
    expect(c.http.requestCounts['trigger']).toBe(2)
    expect(
      logger.lines.some(
        l =>
          l.level === 'info' &&
          l.message ===
            'Trigger answer lost (504); Jenkins shows no such queued item or build; sending it again.'
      )
    ).toBe(true)
  })

  it('treats a proxy 500 (no X-Jenkins) as lost, but a Jenkins 500 as a refusal', async () => {
    const { client: c } = client()
    trigger().reply(500, '<html>proxy</html>', { 'Content-Type': 'text/html' })
    queue(queueItem(44, OURS))
    expect((await c.trigger(info, job, { ENV: 'prod' })).queueId).toBe(44)

    // Jenkins' error page as 2.541 sends it: no stack trace, a Logging ID.
    const { client: d } = client()
    trigger().reply(500, oopsPage(), { 'Content-Type': 'text/html', 'X-Jenkins': '2.541.1' })
    const error = await jenkinsError(d.trigger(info, job, { ENV: 'prod' }), 'bad-request')
    expect(error.message).toBe(
      `Jenkins at ${BASE} refused to trigger job 'team/deploy' (500): its error page gives no reason; its log has it under Logging ID ${LOGGING_ID} (a parameter value it does not accept, such as several values for a plugin's parameter that takes one, is the usual one).`
    )
    expect(d.http.requestCounts['trigger']).toBe(1)
    expect(d.http.requestCounts['queue'] ?? 0).toBe(0)
  })

  it("Jenkins' refusal without its headers (a proxy stripped them) is still an answer: its reason, one send", async () => {
    const { client: c } = client()
    const trace =
      'jakarta.servlet.ServletException: java.lang.IllegalArgumentException: Illegal number of parameter values for ENV: 2\n\tat org.kohsuke.stapler.Function$InstanceFunction.invoke(Function.java:422)\nCaused by: java.lang.IllegalArgumentException: Illegal number of parameter values for ENV: 2\n\tat hudson.model.SimpleParameterDefinition.createValue(SimpleParameterDefinition.java:55)'
    trigger().reply(500, oopsPage(trace), { 'Content-Type': 'text/html;charset=utf-8' })
    const error = await jenkinsError(c.trigger(info, job, { ENV: 'prod' }), 'bad-request')
    expect(error.message).toBe(
      `Jenkins at ${BASE} refused to trigger job 'team/deploy' (500): Illegal number of parameter values for ENV: 2.`
    )
    expect(c.http.requestCounts['trigger']).toBe(1)
    expect(c.http.requestCounts['queue'] ?? 0).toBe(0)
    expect(c.http.requestCounts['builds'] ?? 0).toBe(0)
  })

  it("a value outside a choice parameter's list is refused before anything is sent, naming the choices", async () => {
    // No request at all, not even the crumb.
    const { client: c } = makeClient({ triggerSettleMs: 5 })
    const error = await jenkinsError(c.trigger(info, job, { ENV: 'qa' }), 'bad-request')
    expect(error.message).toBe(
      "Parameter 'ENV' of job 'team/deploy' is 'qa', which is not one of its choices: 'dev', 'prod'. Nothing was triggered."
    )
    expect(c.http.requestCounts['trigger'] ?? 0).toBe(0)
    // A plugin's choice parameter (Active Choices, Extended Choice) may take other values: sent.
    const { client: d } = client()
    const cascade = {
      ...info,
      parameterDefinitions: [{ name: 'ENV', type: 'CascadeChoiceParameter', choices: ['dev'] }]
    }
    trigger().reply(201, '', { Location: `${ORIGIN}/jenkins/queue/item/47/` })
    expect((await d.trigger(cascade, job, { ENV: 'qa' })).queueId).toBe(47)
  })

  it('sends again after 429 or 503 (refused without acting), with no reconciliation', async () => {
    const { client: c } = client()
    trigger().reply(429, 'Too Many Requests', { 'Retry-After': '0' })
    trigger().reply(503, 'Service Unavailable')
    trigger().reply(201, '', { Location: `${ORIGIN}/jenkins/queue/item/46/` })
    expect((await c.trigger(info, job, { ENV: 'prod' })).queueId).toBe(46)
    expect(c.http.requestCounts['trigger']).toBe(3)
    expect(c.http.requestCounts['queue'] ?? 0).toBe(0)
  })

  it('gives up after a bounded number of lost answers, saying the outcome is unknown', async () => {
    const { client: c } = client()
    for (let i = 0; i < 4; i++) {
      trigger().replyWithError(new Error('socket hang up'))
      queue()
      builds()
      queue()
      builds()
    }
    const error = await jenkinsError(c.trigger(info, job, { ENV: 'prod' }), 'network')
    expect(error.message).toMatch(/4 answers lost/)
    expect(error.message).toContain('may or may not have been queued')
    expect(c.http.requestCounts['trigger']).toBe(4)
  })

  it('does not resend when Jenkins cannot be asked what it did', async () => {
    const { client: c } = client()
    trigger().replyWithError(netError('ECONNRESET'))
    nock(ORIGIN).get('/jenkins/queue/api/json').query(true).reply(403, 'Forbidden')
    const error = await jenkinsError(c.trigger(info, job, { ENV: 'prod' }), 'network')
    expect(error.message).toMatch(/could not be asked.*may or may not have been queued/)
    expect(c.http.requestCounts['trigger']).toBe(1)
  })

  it('does not resend when the settle period would pass the step deadline', async () => {
    // Time for the two answers even on a loaded machine (50 ms was not, under
    // mutation testing); the settle period is far past the deadline either way.
    const { client: c } = makeClient({ deadline: Date.now() + 3000, triggerSettleMs: 60_000 })
    nock(ORIGIN)
      .get('/jenkins/crumbIssuer/api/json')
      .reply(...JENKINS_404)
    trigger().reply(502, 'Bad Gateway')
    const error = await jenkinsError(c.trigger(info, job, { ENV: 'prod' }), 'server')
    expect(error.message).toMatch(/no time left.*may or may not have been queued/)
    expect(c.http.requestCounts['trigger']).toBe(1)
  })

  it('considers only queued items without a nextBuildNumber (no build floor)', async () => {
    const { client: c } = client()
    const { nextBuildNumber: _drop, ...withoutFloor } = info
    void _drop
    trigger().replyWithError(netError('ECONNRESET'))
    queue()
    queue()
    trigger().reply(201, '', { Location: `${ORIGIN}/jenkins/queue/item/45/` })
    expect((await c.trigger(withoutFloor, job, { ENV: 'prod' })).queueId).toBe(45)
    expect(c.http.requestCounts['builds'] ?? 0).toBe(0)
  })
})

describe('parameter sets as Jenkins stores them', () => {
  it('fills defaults, normalises booleans and leaves passwords uncomparable', () => {
    const expected = expectedParameters(
      [
        { name: 'A', type: 'StringParameterDefinition', defaultValue: 'x' },
        { name: 'B', type: 'BooleanParameterDefinition', defaultValue: false },
        { name: 'C', type: 'ChoiceParameterDefinition', choices: ['one', 'two'] },
        { name: 'P', type: 'PasswordParameterDefinition', password: true }
      ],
      { B: 'TRUE', UNKNOWN: 'dropped' }
    )
    expect([...expected]).toEqual([
      ['A', 'x'],
      ['B', 'true'],
      ['C', 'one'],
      ['P', undefined]
    ])
    expect(
      sameParameters(expected, [
        { name: 'A', value: 'x' },
        { name: 'B', value: true },
        { name: 'C', value: 'one' },
        { name: 'P' }
      ])
    ).toBe(true)
    // A missing name, an extra name, a different value: not ours.
    expect(sameParameters(expected, [{ name: 'A', value: 'x' }])).toBe(false)
    expect(
      sameParameters(expected, [
        { name: 'A', value: 'x' },
        { name: 'B', value: true },
        { name: 'C', value: 'one' },
        { name: 'P' },
        { name: 'Q', value: '' }
      ])
    ).toBe(false)
    expect(
      sameParameters(expected, [
        { name: 'A', value: 'y' },
        { name: 'B', value: true },
        { name: 'C', value: 'one' },
        { name: 'P' }
      ])
    ).toBe(false)
  })

  it('reads job names from task URLs, decoded, after any context path', () => {
    expect(jobNamesFromUrl('http://h/ci/job/a/job/b%20c/')).toEqual(['a', 'b c'])
    expect(jobNamesFromUrl('http://h/job/mb/job/feature%252Fx/')).toEqual(['mb', 'feature%2Fx'])
    expect(jobNamesFromUrl('http://h/view/all/')).toBeUndefined()
  })
})

describe('reads within the step deadline', () => {
  it('ride out more failures than the POST attempts (a socket hang up hours into a build)', async () => {
    const { client: c } = makeClient({ deadline: Date.now() + 60_000 })
    const scope = nock(ORIGIN).get(`${JOB_PATH}/5/api/json`)
    scope.times(3).replyWithError(new Error('socket hang up'))
    nock(ORIGIN).get(`${JOB_PATH}/5/api/json`).times(3).reply(502, 'Bad Gateway')
    nock(ORIGIN).get(`${JOB_PATH}/5/api/json`).reply(200, { number: 5, building: false })
    expect((await c.getBuild(job, 5)).number).toBe(5)
  })

  it('without a deadline keep the configured attempts', async () => {
    const { client: c } = makeClient()
    nock(ORIGIN).get(`${JOB_PATH}/5/api/json`).times(3).reply(502, 'Bad Gateway')
    await jenkinsError(c.getBuild(job, 5), 'server')
  })
})

describe('a cancel during the trigger (the client signal fires)', () => {
  it('while the crumb is fetched: no POST is sent, and nothing is left to look for', async () => {
    const controller = new AbortController()
    const { client: c } = makeClient({ signal: controller.signal })
    nock(ORIGIN)
      .get('/jenkins/crumbIssuer/api/json')
      .delay(300)
      .reply(200, { crumb: 'c0ffee00c0ffee00', crumbRequestField: 'Jenkins-Crumb' })
    setTimeout(() => controller.abort('cancelled'), 50)
    const error = await c.trigger(info, job, { ENV: 'prod' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Interrupted)
    expect((error as Interrupted).sent).toBe(false)
    expect((error as Interrupted).lostTrigger).toBeUndefined()
    expect(c.http.requestCounts['trigger'] ?? 0).toBe(0)
  })

  it('while a lost answer is reconciled: no resend, and the error carries what to look for', async () => {
    const controller = new AbortController()
    nock(ORIGIN)
      .get('/jenkins/crumbIssuer/api/json')
      .reply(...JENKINS_404)
    const { client: c } = makeClient({ signal: controller.signal, triggerSettleMs: 5 })
    trigger().reply(502, '<html>proxy</html>', { 'Content-Type': 'text/html' })
    nock(ORIGIN).get('/jenkins/queue/api/json').query(true).delay(2000).reply(200, { items: [] })
    setTimeout(() => controller.abort('cancelled'), 100)
    const error = await c.trigger(info, job, { ENV: 'prod' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Interrupted)
    const lost = (error as Interrupted).lostTrigger
    expect(lost?.job).toEqual(job)
    expect(lost?.user).toBe(USER)
    expect(lost?.firstBuildNumber).toBe(10)
    expect([...(lost?.parameters ?? [])]).toEqual([
      ['ENV', 'prod'],
      ['DRY', 'false'],
      ['NOTE', 'none']
    ])
    expect(c.http.requestCounts['trigger']).toBe(1)
    nock.abortPendingRequests()
    nock.cleanAll()
  })

  it('during the settle wait before a resend: no resend', async () => {
    const controller = new AbortController()
    nock(ORIGIN)
      .get('/jenkins/crumbIssuer/api/json')
      .reply(...JENKINS_404)
    const { client: c } = makeClient({ signal: controller.signal, triggerSettleMs: 5000 })
    trigger().replyWithError(netError('ECONNRESET'))
    queue()
    // The cancel comes once the first look is done, inside the 5 s settle
    // wait, however slow the machine (a fixed 200 ms was not always there).
    nock(ORIGIN)
      .get(`${JOB_PATH}/api/json`)
      .query(q => typeof q.tree === 'string' && q.tree.startsWith('builds[number,queueId'))
      .reply(() => {
        setTimeout(() => controller.abort('cancelled'), 50)
        return [200, { builds: [] }]
      })
    const error = await c.trigger(info, job, { ENV: 'prod' }).catch((e: unknown) => e)
    expect((error as Interrupted).lostTrigger?.job).toEqual(job)
    expect(c.http.requestCounts['trigger']).toBe(1)
  })

  it('findLostTrigger (the abort path, another client) finds the queued item, reads only', async () => {
    const { client: c } = makeClient()
    queue(queueItem(77, OURS))
    const lost = {
      job,
      parameters: expectedParameters(info.parameterDefinitions, { ENV: 'prod' }),
      user: USER,
      firstBuildNumber: 10
    }
    expect(await c.findLostTrigger(lost)).toEqual({ queueId: 77, from: 'queue' })
    expect(c.http.requestCounts['trigger'] ?? 0).toBe(0)
  })

  it('findLostTrigger finds a build that already started, and looks twice before saying none', async () => {
    const { client: c } = makeClient()
    const lost = {
      job,
      parameters: expectedParameters(info.parameterDefinitions, { ENV: 'prod' }),
      user: USER,
      firstBuildNumber: 10
    }
    queue()
    builds(build(10, 78, OURS, USER))
    expect(await c.findLostTrigger(lost)).toEqual({ queueId: 78, from: 'build', buildNumber: 10 })
    queue()
    builds(build(10, 79, OTHERS, USER))
    queue()
    builds()
    expect(await c.findLostTrigger(lost)).toBeUndefined()
  })
})
