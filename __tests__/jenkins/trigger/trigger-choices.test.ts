/**
 * The trigger's decisions where answers compete: whether a lost answer is
 * looked for under a step deadline, how long it is given (longer after our
 * own request timeout or a proxy's 504), whose 500 or 502 it was (Jenkins'
 * own told by its header alone or by its error page alone), what is refused
 * before anything is sent, whom a 403 blames, and how long the abort path
 * waits before its second look. Date is frozen (virtual) where a deadline
 * is compared, so each comparison is exact on a loaded machine; requests
 * still run on real timers.
 */
import nock from 'nock'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { expectedParameters } from '../../../src/jenkins/trigger/reconcile.js'
import { Interrupted, JenkinsError } from '../../../src/jenkins/transport/errors.js'
import { Requester } from '../../../src/jenkins/transport/requester.js'
import type { JobInfo } from '../../../src/jenkins/model/types.js'
import {
  BASE,
  JENKINS_404,
  ORIGIN,
  USER,
  jenkinsError,
  makeClient,
  netError,
  recordingLogger,
  useNock
} from '../helpers.js'
import type { ClientOptions } from '../../../src/jenkins/client.js'

useNock()
afterEach(() => {
  vi.useRealTimers()
  vi.restoreAllMocks()
})

const job = ['team', 'deploy']
const JOB_PATH = '/jenkins/job/team/job/deploy'
const info: JobInfo = {
  name: 'deploy',
  url: `${BASE}/job/team/job/deploy/`,
  isFolder: false,
  nextBuildNumber: 10,
  parameterDefinitions: [{ name: 'ENV', type: 'StringParameterDefinition', defaultValue: 'dev' }]
}
const OURS = [{ _class: 'hudson.model.StringParameterValue', name: 'ENV', value: 'prod' }]
const LOGGING_ID = '0b5a3c1e-6f2d-4e8a-9c7b-1d2e3f4a5b6c'

/** Jenkins' error page (core jenkins/model/Jenkins/oops.jelly) without a stack trace, as 2.541 sends it. */
const OOPS_PAGE = `<!DOCTYPE html><html><head><title>Jenkins</title></head><body><div id="main-panel"><h1>Oops!</h1><div id="error-description"><h2 style="text-align: center">A problem occurred while processing the request</h2><p style="text-align: center">Logging ID=${LOGGING_ID}</p></div></div></body></html>`

/** Freezes Date: a deadline `ms` from now stays exactly `ms` away while the test runs. */
function frozenDeadline(ms: number): number {
  vi.useFakeTimers({ toFake: ['Date'] })
  return Date.now() + ms
}

/** A client (CSRF off, so only the trigger matters) with the default settle periods unless given. */
function client(options: Partial<ClientOptions> = {}) {
  nock(ORIGIN)
    .get('/jenkins/crumbIssuer/api/json')
    .reply(...JENKINS_404)
  return makeClient(options)
}

function trigger() {
  return nock(ORIGIN).post(`${JOB_PATH}/buildWithParameters`).query({ delay: '0sec' })
}

/** The queue, holding our item 42 (or nothing). */
function queue(ours = true) {
  const items = ours
    ? [
        {
          _class: 'hudson.model.Queue$BuildableItem',
          id: 42,
          task: { url: `${ORIGIN}${JOB_PATH}/`, name: 'deploy' },
          actions: [{ _class: 'hudson.model.ParametersAction', parameters: OURS }]
        }
      ]
    : []
  return nock(ORIGIN)
    .get('/jenkins/queue/api/json')
    .query(true)
    .reply(200, { _class: 'hudson.model.Queue', items })
}

function noBuilds() {
  return nock(ORIGIN)
    .get(`${JOB_PATH}/api/json`)
    .query(q => typeof q.tree === 'string' && q.tree.startsWith('builds[number,queueId'))
    .reply(200, { builds: [] })
}

describe('a lost answer under a step deadline', () => {
  it('is looked for, and adopted, when the settle period fits before the deadline', async () => {
    const { client: c, logger } = client({ deadline: frozenDeadline(60_000) })
    trigger().reply(502, 'Bad Gateway')
    queue()
    const result = await c.trigger(info, job, { ENV: 'prod' })
    expect(result).toMatchObject({ queueId: 42, adopted: 'queue' })
    expect(c.http.requestCounts['trigger']).toBe(1)
    expect(logger.lines).toContainEqual({
      level: 'info',
      message:
        "Trigger answer lost (502); Jenkins shows queue item 42 of 'team/deploy' with these parameters: following it."
    })
  })

  it('a settle period that ends exactly at the deadline still fits', async () => {
    const { client: c } = client({ deadline: frozenDeadline(60_000), triggerSettleMs: 60_000 })
    trigger().reply(502, 'Bad Gateway')
    queue()
    expect(await c.trigger(info, job, { ENV: 'prod' })).toMatchObject({ queueId: 42 })
  })

  it('one that ends a millisecond past it does not: the outcome is unknown, nothing is read', async () => {
    const { client: c } = client({ deadline: frozenDeadline(59_999), triggerSettleMs: 60_000 })
    trigger().reply(502, 'Bad Gateway')
    const error = await jenkinsError(c.trigger(info, job, { ENV: 'prod' }), 'server')
    expect(error.message).toBe(
      `Jenkins at ${BASE} failed the trigger of job 'team/deploy' (502: Bad Gateway). Jenkins also answers 500 to a parameter value it does not accept, such as several values for a plugin's parameter that takes one. while triggering job 'team/deploy' (no time left before the step timeout to check): the build may or may not have been queued. Check ${BASE}/job/team/job/deploy/ before running again.`
    )
    expect(c.http.requestCounts['queue'] ?? 0).toBe(0)
  })
})

describe('how long a lost answer is given (1.5 s; 4 s when Jenkins may still be working)', () => {
  it('a proxy 502: 1.5 s, which fits a deadline 1.5 s away', async () => {
    const { client: c } = client({ deadline: frozenDeadline(1500) })
    trigger().reply(502, 'Bad Gateway')
    queue()
    expect(await c.trigger(info, job, { ENV: 'prod' })).toMatchObject({ queueId: 42 })
  })

  it('a proxy 502: 1.5 s, which does not fit 1,499 ms', async () => {
    const { client: c } = client({ deadline: frozenDeadline(1499) })
    trigger().reply(502, 'Bad Gateway')
    const error = await jenkinsError(c.trigger(info, job, { ENV: 'prod' }), 'server')
    expect(error.message).toContain('no time left before the step timeout to check')
  })

  it('a reset: 1.5 s as well', async () => {
    const { client: c } = client({ deadline: frozenDeadline(1500) })
    trigger().replyWithError(netError('ECONNRESET'))
    queue()
    expect(await c.trigger(info, job, { ENV: 'prod' })).toMatchObject({ queueId: 42 })
  })

  it("a proxy's 504 (a gateway timeout): 4 s, which fits 4 s but not 3,999 ms", async () => {
    const { client: c } = client({ deadline: frozenDeadline(4000) })
    trigger().reply(504, 'Gateway Timeout')
    queue()
    expect(await c.trigger(info, job, { ENV: 'prod' })).toMatchObject({ queueId: 42 })
    vi.useRealTimers()

    const { client: d } = client({ deadline: frozenDeadline(3999) })
    trigger().reply(504, 'Gateway Timeout')
    const error = await jenkinsError(d.trigger(info, job, { ENV: 'prod' }), 'server')
    expect(error.message).toContain('no time left before the step timeout to check')
    expect(d.http.requestCounts['queue'] ?? 0).toBe(0)
  })

  it('our own request timeout: 4 s, and the outcome said as a network failure', async () => {
    const { client: c } = client({ deadline: frozenDeadline(4000), requestTimeoutMs: 100 })
    trigger()
      .delay(5000)
      .reply(201, '', { Location: `${ORIGIN}/jenkins/queue/item/41/` })
    queue()
    expect(await c.trigger(info, job, { ENV: 'prod' })).toMatchObject({ queueId: 42 })
    nock.abortPendingRequests()
    vi.useRealTimers()

    const { client: d } = client({ deadline: frozenDeadline(3999), requestTimeoutMs: 100 })
    trigger()
      .delay(5000)
      .reply(201, '', { Location: `${ORIGIN}/jenkins/queue/item/41/` })
    const error = await jenkinsError(d.trigger(info, job, { ENV: 'prod' }), 'network')
    expect(error.message).toContain('no time left before the step timeout to check')
    expect(d.http.requestCounts['trigger']).toBe(1)
    nock.abortPendingRequests()
  })

  it('without a deadline the wait is logged before the second look', async () => {
    const controller = new AbortController()
    const logger = recordingLogger()
    // The second look is not needed: the cancel, once the wait is said, ends it (not a
    // timer, which a busy machine can fire before the line).
    const said = logger.debug
    logger.debug = message => {
      said(message)
      if (message.startsWith('No queued item')) controller.abort('cancelled')
    }
    const { client: c } = client({ signal: controller.signal, logger })
    trigger().reply(504, 'Gateway Timeout')
    queue(false)
    nock(ORIGIN).get(`${JOB_PATH}/api/json`).query(true).reply(200, { builds: [] })
    await c.trigger(info, job, { ENV: 'prod' }).catch(() => undefined)
    expect(logger.lines.map(l => l.message)).toContain(
      'No queued item or new build with these parameters yet; looking again in 4000 ms'
    )
  })
})

describe("whose error a 500 or 502 is: Jenkins' own (its answer) or a proxy's (maybe lost)", () => {
  it("Jenkins' header alone (a plain body): Jenkins refused, nothing looked for", async () => {
    const { client: c } = client()
    trigger().reply(500, 'Server Error', { 'Content-Type': 'text/plain', 'X-Jenkins': '2.541.1' })
    const error = await jenkinsError(c.trigger(info, job, { ENV: 'prod' }), 'bad-request')
    expect(error.message).toBe(
      `Jenkins at ${BASE} refused to trigger job 'team/deploy' (500): its error page gives no reason (a parameter value it does not accept, such as several values for a plugin's parameter that takes one, is the usual one).`
    )
    expect(c.http.requestCounts['queue'] ?? 0).toBe(0)
  })

  it("Jenkins' error page alone (a proxy stripped the header): Jenkins refused, with its Logging ID", async () => {
    const { client: c } = client()
    trigger().reply(500, OOPS_PAGE, { 'Content-Type': 'text/html;charset=utf-8' })
    const error = await jenkinsError(c.trigger(info, job, { ENV: 'prod' }), 'bad-request')
    expect(error.message).toBe(
      `Jenkins at ${BASE} refused to trigger job 'team/deploy' (500): its error page gives no reason; its log has it under Logging ID ${LOGGING_ID} (a parameter value it does not accept, such as several values for a plugin's parameter that takes one, is the usual one).`
    )
    expect(c.http.requestCounts['queue'] ?? 0).toBe(0)
  })

  it('the reason quoted from the page with its character references read (util/html.ts decodes them)', async () => {
    const { client: c } = client()
    const page = `<pre>java.lang.IllegalArgumentException: Illegal choice for parameter ENV: &#39;qa&#x27; &amp; &#x10FFFF; &bogus; &quot;x&quot; &apos; &gt; &lt;b&gt;</pre>`
    trigger().reply(500, page, { 'Content-Type': 'text/html' })
    const error = await jenkinsError(c.trigger(info, job, { ENV: 'prod' }), 'bad-request')
    expect(error.message).toBe(
      `Jenkins at ${BASE} refused to trigger job 'team/deploy' (500): Illegal choice for parameter ENV: 'qa' & \u{10FFFF} &bogus; "x" ' >.`
    )
  })

  it('neither: a proxy 500, looked for', async () => {
    const { client: c } = client()
    trigger().reply(500, '<html>proxy</html>', { 'Content-Type': 'text/html' })
    queue()
    expect(await c.trigger(info, job, { ENV: 'prod' })).toMatchObject({ adopted: 'queue' })
  })

  it.each([502, 504])(
    "a %i with Jenkins' header is Jenkins' answer: an error, nothing looked for",
    async status => {
      const { client: c } = client()
      trigger().reply(status, 'Bad Gateway', {
        'Content-Type': 'text/plain',
        'X-Jenkins': '2.541.1'
      })
      const error = await jenkinsError(c.trigger(info, job, { ENV: 'prod' }), 'server')
      expect(error.message).not.toContain('may or may not have been queued')
      expect(error.message).not.toContain('refused to trigger')
      expect(c.http.requestCounts['trigger']).toBe(1)
      expect(c.http.requestCounts['queue'] ?? 0).toBe(0)
    }
  )
})

describe('refused before anything is sent', () => {
  it.each<[string, Partial<JobInfo>]>([
    ['disabled alone', { disabled: true }],
    ['not buildable alone', { buildable: false }]
  ])('%s', async (_, flags) => {
    const { client: c } = makeClient()
    const error = await jenkinsError(c.trigger({ ...info, ...flags }, job, {}), 'conflict')
    expect(error.message).toBe(
      `Job 'team/deploy' on Jenkins at ${BASE} is disabled (not buildable): enable it first`
    )
    expect(c.http.requestCounts['total'] ?? 0).toBe(0)
  })

  it('enabled and buildable: sent', async () => {
    const { client: c } = client()
    trigger().reply(201, '', { Location: `${ORIGIN}/jenkins/queue/item/7/` })
    const result = await c.trigger({ ...info, disabled: false, buildable: true }, job, {})
    expect(result.queueId).toBe(7)
  })
})

describe('a 403 on the trigger', () => {
  it('without a job token: the user lacks Job/Build; no token is blamed', async () => {
    const { client: c } = client()
    trigger().reply(403, 'Forbidden', { 'Content-Type': 'text/plain' })
    const error = await jenkinsError(c.trigger(info, job, { ENV: 'prod' }), 'forbidden')
    expect(error.message).toBe(
      `Jenkins at ${BASE} denied the trigger of job 'team/deploy' to user '${USER}' (403): the user lacks Job/Build`
    )
  })
})

describe("the abort path's look for a lost trigger (findLostTrigger)", () => {
  const lost = {
    job,
    parameters: expectedParameters(info.parameterDefinitions, { ENV: 'prod' }),
    user: USER,
    firstBuildNumber: 10
  }

  it('waits a quarter of the time left before its second look, when that is under 1 s', async () => {
    const pause = vi.spyOn(Requester.prototype, 'pause')
    const { client: c, logger } = makeClient({ deadline: frozenDeadline(2000) })
    queue(false)
    noBuilds()
    queue(false)
    noBuilds()
    expect(await c.findLostTrigger(lost)).toBeUndefined()
    expect(pause.mock.calls).toEqual([[500, 'look for the lost trigger again']])
    expect(logger.lines.map(l => l.message)).toContain(
      'No queued item or new build with these parameters yet; looking again in 500 ms'
    )
  })

  it('waits 1 s without a deadline, and finds a queue item without a build number', async () => {
    const pause = vi.spyOn(Requester.prototype, 'pause')
    const { client: c } = makeClient()
    queue(false)
    noBuilds()
    queue()
    expect(await c.findLostTrigger(lost)).toStrictEqual({ queueId: 42, from: 'queue' })
    expect(pause.mock.calls).toEqual([[1000, 'look for the lost trigger again']])
  })

  it('waits 1 s with time to spare', async () => {
    const pause = vi.spyOn(Requester.prototype, 'pause')
    const { client: c } = makeClient({ deadline: frozenDeadline(60_000) })
    queue()
    expect(await c.findLostTrigger(lost)).toStrictEqual({ queueId: 42, from: 'queue' })
    expect(pause).not.toHaveBeenCalled()
    queue(false)
    noBuilds()
    queue()
    expect(await c.findLostTrigger(lost)).toStrictEqual({ queueId: 42, from: 'queue' })
    expect(pause.mock.calls).toEqual([[1000, 'look for the lost trigger again']])
  })
})

describe('what the POST itself ends with', () => {
  it('a cancel before anything was sent: interrupted as not sent, and nothing reaches Jenkins', async () => {
    const controller = new AbortController()
    controller.abort('cancelled')
    const crumb = nock(ORIGIN)
      .get('/jenkins/crumbIssuer/api/json')
      .reply(...JENKINS_404)
    const post = trigger().reply(201, '', { Location: `${ORIGIN}/jenkins/queue/item/41/` })
    const { client: c } = makeClient({ signal: controller.signal })
    const error = await c.trigger(info, job, { ENV: 'prod' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Interrupted)
    expect((error as Interrupted).sent).toBe(false)
    expect((error as Interrupted).message).toMatch(
      /^Did not send GET the CSRF crumb to Jenkins at /
    )
    expect([crumb.isDone(), post.isDone()]).toEqual([false, false])
    nock.cleanAll()
  })

  it('a cancel after the crumb is known: the POST itself is not sent, and says so', async () => {
    const controller = new AbortController()
    const { client: c } = client({ signal: controller.signal })
    trigger().reply(201, '', { Location: `${ORIGIN}/jenkins/queue/item/41/` })
    await c.trigger(info, job, { ENV: 'prod' })
    controller.abort('cancelled')
    const post = trigger().reply(201, '', { Location: `${ORIGIN}/jenkins/queue/item/42/` })
    const error = await c.trigger(info, job, { ENV: 'prod' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Interrupted)
    expect((error as Interrupted).sent).toBe(false)
    expect((error as Interrupted).message).toMatch(/^Did not send POST /)
    expect(post.isDone()).toBe(false)
    nock.cleanAll()
  })

  it('a cancel while the POST is in flight: interrupted as sent, with what to look for, nothing read', async () => {
    const controller = new AbortController()
    const { client: c } = client({ signal: controller.signal })
    trigger()
      .delay(5000)
      .reply(201, '', { Location: `${ORIGIN}/jenkins/queue/item/41/` })
      .on('request', () => controller.abort('cancelled'))
    const error = await c.trigger(info, job, { ENV: 'prod' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Interrupted)
    expect((error as Interrupted).sent).toBe(true)
    expect((error as Interrupted).lostTrigger?.job).toEqual(job)
    expect((error as Interrupted).message).toMatch(/may have queued a build\)$/)
    expect((error as Interrupted).message).not.toMatch(/^Did not send/)
    expect(c.http.requestCounts['queue'] ?? 0).toBe(0)
    nock.abortPendingRequests()
  })

  // A POST keeps the client's tries within the step's deadline too: only reads get more.
  it.each([
    ['', {}],
    [', within a deadline', { deadline: Date.now() + 600_000 }]
  ])(
    '503 on every try%s (refused without acting): that refusal after 3, nothing looked for',
    async (_, given) => {
      const { client: c } = client(given)
      trigger().times(3).reply(503, 'Service Unavailable', { 'Retry-After': '0' })
      const error = await c.trigger(info, job, { ENV: 'prod' }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(JenkinsError)
      expect((error as JenkinsError).status).toBe(503)
      expect(c.http.requestCounts['trigger']).toBe(3)
      expect(c.http.requestCounts['queue'] ?? 0).toBe(0)
    }
  )

  it('a 200 with a queue Location is not a queued build (only 201 and 303 are)', async () => {
    const { client: c } = client()
    trigger().reply(200, '', { Location: `${ORIGIN}/jenkins/queue/item/5/` })
    const error = await jenkinsError(c.trigger(info, job, { ENV: 'prod' }), 'protocol')
    expect(error.message).toContain('it answered 200 with a redirect to /jenkins/queue/item/5/')
  })

  it.each([
    ['without its trailing slash', '/jenkins/queue/item/12', 12],
    ['relative to the request', '../../../queue/item/13/', 13]
  ])('reads a queue Location %s', async (_, location, id) => {
    const { client: c } = client()
    trigger().reply(201, '', { Location: location })
    expect((await c.trigger(info, job, { ENV: 'prod' })).queueId).toBe(id)
  })

  it.each([
    [
      'below a queue item',
      `${ORIGIN}/jenkins/queue/item/5/api/json`,
      '/jenkins/queue/item/5/api/json'
    ],
    ['that is no URL', 'http://[bad', '(invalid location)']
  ])('refuses a Location %s', async (_, location, shown) => {
    const { client: c } = client()
    trigger().reply(201, '', { Location: location })
    const error = await jenkinsError(c.trigger(info, job, { ENV: 'prod' }), 'protocol')
    expect(error.message).toContain(
      `it answered 201 with a redirect to ${shown} instead of a queue item`
    )
  })
})

describe('choices and folders, refused before anything is sent', () => {
  const choices = Array.from({ length: 25 }, (_, i) => `c${i + 1}`)

  it('names the first 20 choices of a long list and counts the rest', async () => {
    const { client: c } = makeClient()
    const long = {
      ...info,
      parameterDefinitions: [{ name: 'ENV', type: 'ChoiceParameterDefinition', choices }]
    }
    const error = await jenkinsError(c.trigger(long, job, { ENV: 'qa' }), 'bad-request')
    expect(error.message).toBe(
      `Parameter 'ENV' of job 'team/deploy' is 'qa', which is not one of its choices: ${choices
        .slice(0, 20)
        .map(choice => `'${choice}'`)
        .join(', ')} and 5 more. Nothing was triggered.`
    )
  })

  it('a choice parameter Jenkins lists without choices: not checked, sent', async () => {
    const { client: c } = client()
    const bare = {
      ...info,
      parameterDefinitions: [{ name: 'ENV', type: 'ChoiceParameterDefinition' }]
    }
    trigger().reply(201, '', { Location: `${ORIGIN}/jenkins/queue/item/9/` })
    expect((await c.trigger(bare, job, { ENV: 'qa' })).queueId).toBe(9)
  })

  it.each<[string, Partial<JobInfo>, string]>([
    [
      'a folder, by its class',
      { _class: 'com.cloudbees.hudson.plugins.folder.Folder' },
      `Jenkins item team/deploy is a folder, not a job (com.cloudbees.hudson.plugins.folder.Folder, on ${BASE}): name a job inside it, or list them with list-jobs`
    ],
    [
      'a multibranch project',
      { folderKind: 'multibranch' },
      `Jenkins item team/deploy is a multibranch project (folder, on ${BASE}): its jobs are its branches and pull requests. Set 'branch' to the one to build (for example \`branch: main\` or \`branch: PR-\${{ github.event.number }}\`).`
    ],
    [
      'an organization folder',
      { folderKind: 'organization' },
      `Jenkins item team/deploy is an organization folder (folder, on ${BASE}): name one of its repositories in 'job' (team/deploy/<repository>) and the branch or pull request in 'branch'.`
    ]
  ])('%s', async (_, kind, message) => {
    const { client: c } = makeClient()
    const error = await jenkinsError(
      c.trigger({ ...info, isFolder: true, ...kind }, job, {}),
      'bad-request'
    )
    expect(error.message).toBe(message)
    expect(c.http.requestCounts['total'] ?? 0).toBe(0)
  })
})
