import nock from 'nock'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { actionsOf, jobNamesFromUrl } from '../../../src/jenkins/reads/decode.js'
import {
  causedBy,
  expectedParameters,
  findTriggered,
  reconcile,
  sameParameters
} from '../../../src/jenkins/trigger/reconcile.js'
import { USER_ID_CAUSE } from '../../../src/jenkins/trigger/shared-work.js'
import { jobUrl, sameJob } from '../../../src/jenkins/model/job-path.js'
import type { JobInfo, QueuedTask } from '../../../src/jenkins/model/types.js'
import type { RecentBuild } from '../../../src/jenkins/reads/decode.js'
import { Requester } from '../../../src/jenkins/transport/requester.js'
import type { LostTrigger } from '../../../src/jenkins/transport/errors.js'
import {
  BASE,
  JENKINS_404,
  ORIGIN,
  TOKEN,
  USER,
  makeClient,
  netError,
  recordingLogger,
  useNock
} from '../helpers.js'

/**
 * The reconciliation's decisions where answers compete: several matching
 * candidates (which one is ours), near misses (a prefix of our job, a value
 * Jenkins does not export, a boolean `false`), and odd data. The trigger
 * tests in reconcile.test.ts offer one match at a time; these decide
 * between them.
 */

useNock()

afterEach(() => {
  vi.restoreAllMocks()
})

/** A queued item as the reconciliation reads it. */
type QueuedCandidate = Pick<QueuedTask, 'id' | 'job' | 'parameters'>
/** A build since the trigger, with its users and parameters. */
type BuildCandidate = Pick<RecentBuild, 'number' | 'queueId' | 'userIds'> &
  Pick<QueuedTask, 'parameters'>

/**
 * A Jenkins whose queue and job builds are these (each read answered from
 * them as they are then), with a client to it and a count of what the look
 * asked for.
 */
function jenkins(queue: QueuedCandidate[], builds: BuildCandidate[] = []) {
  const calls = { queue: 0, builds: 0 }
  // One Jenkins at a time: a test's second replaces its first.
  nock.cleanAll()
  nock(ORIGIN)
    .persist()
    .get(/\/api\/json$/)
    .query(true)
    .reply(uri => {
      if (uri.startsWith('/jenkins/queue/')) {
        calls.queue++
        const items = queue.map(({ id, job, parameters }) => ({
          id,
          task: { url: jobUrl(BASE, job) },
          actions: [{ parameters }]
        }))
        return [200, { items }]
      }
      calls.builds++
      const exported = builds.map(({ userIds = [], parameters, ...build }) => ({
        ...build,
        actions: [
          { parameters },
          { causes: userIds.map(userId => ({ _class: USER_ID_CAUSE, userId })) }
        ]
      }))
      return [200, { builds: exported }]
    })
  const http = new Requester({
    url: `${BASE}/`,
    user: USER,
    token: TOKEN,
    logger: recordingLogger(),
    requestTimeoutMs: 2000,
    retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 2 }
  })
  return { http, calls }
}

const ENV_PROD = [
  { name: 'ENV', value: 'prod' },
  { name: 'DRY', value: false }
]
const ENV_DEV = [
  { name: 'ENV', value: 'dev' },
  { name: 'DRY', value: false }
]

const ours: LostTrigger = {
  job: ['team', 'deploy'],
  parameters: new Map([
    ['ENV', 'prod'],
    ['DRY', 'false']
  ]),
  user: 'alice',
  firstBuildNumber: 10
}

describe('findTriggered: which of several candidates is ours', () => {
  it('adopts the oldest matching queue item, whatever order the queue lists them in', async () => {
    const { http, calls } = jenkins([
      { id: 44, job: ['team', 'deploy'], parameters: ENV_PROD },
      { id: 41, job: ['team', 'deploy'], parameters: ENV_DEV },
      { id: 42, job: ['team', 'deploy'], parameters: ENV_PROD },
      { id: 43, job: ['team', 'deploy'], parameters: ENV_PROD }
    ])
    expect(await findTriggered(http, ours)).toEqual({ queueId: 42, from: 'queue' })
    // A queued item decides: the builds are not read.
    expect(calls).toEqual({ queue: 1, builds: 0 })
  })

  it('adopts the lowest matching build from nextBuildNumber on, Jenkins listing the newest first', async () => {
    const { http } = jenkins(
      [],
      [
        { number: 14, queueId: 74, parameters: ENV_PROD, userIds: ['alice'] },
        { number: 13, queueId: 73, parameters: ENV_PROD, userIds: ['alice'] },
        { number: 12, queueId: 72, parameters: ENV_DEV, userIds: ['alice'] },
        { number: 11, queueId: 71, parameters: ENV_PROD, userIds: ['alice'] },
        { number: 9, queueId: 69, parameters: ENV_PROD, userIds: ['alice'] }
      ]
    )
    expect(await findTriggered(http, ours)).toEqual({ queueId: 71, from: 'build', buildNumber: 11 })
  })

  it('counts a build numbered nextBuildNumber itself, and none below it', async () => {
    const at = jenkins(
      [],
      [
        { number: 10, queueId: 70, parameters: ENV_PROD, userIds: ['alice'] },
        { number: 9, queueId: 69, parameters: ENV_PROD, userIds: ['alice'] }
      ]
    )
    expect(await findTriggered(at.http, ours)).toEqual({
      queueId: 70,
      from: 'build',
      buildNumber: 10
    })
    const below = jenkins(
      [],
      [{ number: 9, queueId: 69, parameters: ENV_PROD, userIds: ['alice'] }]
    )
    expect(await findTriggered(below.http, ours)).toBeUndefined()
  })

  it('passes over a build without a queueId (Jenkins before 1.601) for a later one that has it', async () => {
    const { http } = jenkins(
      [],
      [
        { number: 11, queueId: 71, parameters: ENV_PROD, userIds: ['alice'] },
        { number: 10, parameters: ENV_PROD, userIds: ['alice'] }
      ]
    )
    expect(await findTriggered(http, ours)).toEqual({ queueId: 71, from: 'build', buildNumber: 11 })
    const only = jenkins([], [{ number: 10, parameters: ENV_PROD, userIds: ['alice'] }])
    expect(await findTriggered(only.http, ours)).toBeUndefined()
  })

  it("passes over another user's build with our parameters for ours", async () => {
    const { http } = jenkins(
      [],
      [
        { number: 11, queueId: 71, parameters: ENV_PROD, userIds: ['ALICE'] },
        { number: 10, queueId: 70, parameters: ENV_PROD, userIds: ['mallory'] }
      ]
    )
    expect(await findTriggered(http, ours)).toEqual({ queueId: 71, from: 'build', buildNumber: 11 })
  })

  it('reads no builds without nextBuildNumber (no floor), and finds nothing', async () => {
    const { firstBuildNumber: _floor, ...noFloor } = ours
    void _floor
    const { http, calls } = jenkins(
      [{ id: 40, job: ['team', 'deploy'], parameters: ENV_DEV }],
      [{ number: 11, queueId: 71, parameters: ENV_PROD, userIds: ['alice'] }]
    )
    expect(await findTriggered(http, noFloor)).toBeUndefined()
    expect(calls).toEqual({ queue: 1, builds: 0 })
  })

  it("never adopts a queued item of a job whose path is a prefix of ours (a multibranch project's scan)", async () => {
    const branch: LostTrigger = {
      job: ['mb', 'main'],
      parameters: new Map(),
      user: 'alice',
      firstBuildNumber: 3
    }
    const { http } = jenkins([
      // The project's scan: no parameters, like our branch job's build.
      { id: 50, job: ['mb'], parameters: [] },
      { id: 51, job: ['mb', 'main', 'extra'], parameters: [] },
      { id: 52, job: ['MB', 'Main'], parameters: [] }
    ])
    expect(await findTriggered(http, branch)).toEqual({ queueId: 52, from: 'queue' })
    const scanOnly = jenkins([{ id: 50, job: ['mb'], parameters: [] }])
    expect(await findTriggered(scanOnly.http, branch)).toBeUndefined()
  })
})

describe('reconcile: one look, the settle period, one more', () => {
  it('returns the first look at once, without waiting', async () => {
    const { http, calls } = jenkins([{ id: 42, job: ['team', 'deploy'], parameters: ENV_PROD }])
    const pause = vi.spyOn(http, 'pause')
    expect(await reconcile(http, ours, 1500)).toEqual({ queueId: 42, from: 'queue' })
    expect(pause).not.toHaveBeenCalled()
    expect(calls.queue).toBe(1)
  })

  it('waits the settle period once and looks again', async () => {
    const queue: QueuedCandidate[] = []
    const { http } = jenkins(queue)
    const pause = vi.spyOn(http, 'pause').mockImplementation(async () => {
      queue.push({ id: 43, job: ['team', 'deploy'], parameters: ENV_PROD })
    })
    expect(await reconcile(http, ours, 4000)).toEqual({ queueId: 43, from: 'queue' })
    expect(pause.mock.calls.map(([ms]) => ms)).toEqual([4000])
  })
})

describe('sameJob', () => {
  it.each<[string[], string[], boolean]>([
    [['team', 'deploy'], ['team', 'deploy'], true],
    [['Team', 'DEPLOY'], ['team', 'deploy'], true],
    [['mb'], ['mb', 'main'], false],
    [['mb', 'main'], ['mb'], false],
    [[], ['mb'], false],
    [['team', 'deploy'], ['team', 'deploy2'], false],
    [['other', 'deploy'], ['team', 'deploy'], false]
  ])('%j and %j: %s', (a, b, same) => {
    expect(sameJob(a, b)).toBe(same)
  })
})

describe('causedBy', () => {
  const build = (userIds?: Array<string | null>): BuildCandidate => ({
    number: 1,
    parameters: [],
    ...(userIds ? { userIds } : {})
  })

  it.each<[Array<string | null> | undefined, string | undefined, boolean]>([
    [['alice'], 'alice', true],
    [['Alice'], 'aLICE', true],
    [['mallory'], 'alice', false],
    [['mallory', 'alice'], 'alice', true],
    // An anonymous cause is no one's: not ours when we have a user.
    [[null], 'alice', false],
    [[null, 'alice'], 'alice', true],
    // Nothing to tell by: no user of ours, no cause exported, or an empty list.
    [['mallory'], undefined, true],
    [undefined, 'alice', true],
    [[], 'alice', true]
  ])('userIds %j, user %s: %s', (userIds, user, mine) => {
    expect(causedBy(build(userIds), user)).toBe(mine)
  })
})

describe('expectedParameters: what Jenkins will store', () => {
  it('normalises a boolean as Boolean.parseBoolean does: only "true", in any case, is true', () => {
    const definitions = [
      { name: 'A', type: 'BooleanParameterDefinition', defaultValue: true },
      { name: 'B', type: 'BooleanParameterDefinition', defaultValue: true },
      { name: 'C', type: 'BooleanParameterDefinition', defaultValue: false },
      { name: 'D', type: 'BooleanParameterDefinition', defaultValue: false },
      { name: 'E', type: 'BooleanParameterDefinition', defaultValue: true }
    ]
    const expected = expectedParameters(definitions, {
      A: 'false',
      B: 'yes',
      C: 'True',
      D: 'FALSE'
    })
    expect([...expected]).toEqual([
      ['A', 'false'],
      ['B', 'false'],
      ['C', 'true'],
      ['D', 'false'],
      ['E', 'true']
    ])
  })

  it('keeps a string value as given, however it reads as a boolean', () => {
    const expected = expectedParameters(
      [{ name: 'S', type: 'StringParameterDefinition', defaultValue: 'x' }],
      { S: 'FALSE' }
    )
    expect([...expected]).toEqual([['S', 'FALSE']])
  })

  it('joins a multi-value parameter with commas, and reads numbers and booleans as text', () => {
    const expected = expectedParameters(
      [
        { name: 'M', type: 'ExtendedChoiceParameterDefinition' },
        { name: 'N', type: 'StringParameterDefinition', defaultValue: 3 },
        { name: 'F', type: 'BooleanParameterDefinition', defaultValue: false },
        { name: 'O', type: 'StringParameterDefinition', defaultValue: { nested: 'x' } },
        { name: 'Z', type: 'StringParameterDefinition', defaultValue: null }
      ],
      { M: ['a', 'b'] }
    )
    expect([...expected]).toEqual([
      ['M', 'a,b'],
      ['N', '3'],
      ['F', 'false'],
      ['O', undefined],
      ['Z', undefined]
    ])
  })

  it('fills a choice without default with its first choice, and nothing when it has none', () => {
    const expected = expectedParameters(
      [
        { name: 'C', type: 'ChoiceParameterDefinition', choices: ['dev', 'prod'] },
        { name: 'D', type: 'ChoiceParameterDefinition', defaultValue: 'prod', choices: ['dev'] },
        { name: 'E', type: 'ChoiceParameterDefinition', choices: [] },
        { name: 'S', type: 'StringParameterDefinition', choices: ['not', 'a', 'choice'] }
      ],
      {}
    )
    expect([...expected]).toEqual([
      ['C', 'dev'],
      ['D', 'prod'],
      ['E', undefined],
      ['S', undefined]
    ])
  })

  it('never expects a password value, given or defaulted: Jenkins does not export it', () => {
    const expected = expectedParameters(
      [
        { name: 'P', type: 'PasswordParameterDefinition', password: true, defaultValue: 'dflt' },
        { name: 'Q', type: 'PasswordParameterDefinition', password: true }
      ],
      { Q: 'hunter2' }
    )
    expect([...expected]).toEqual([
      ['P', undefined],
      ['Q', undefined]
    ])
  })

  it("reads only the parameters' own names, not what every object inherits", () => {
    const expected = expectedParameters(
      [
        { name: 'constructor', type: 'StringParameterDefinition', defaultValue: 'c' },
        { name: 'toString', type: 'StringParameterDefinition' }
      ],
      {}
    )
    expect([...expected]).toEqual([
      ['constructor', 'c'],
      ['toString', undefined]
    ])
  })
})

describe('sameParameters', () => {
  const expected = new Map<string, string | undefined>([
    ['ENV', 'prod'],
    ['COUNT', '3'],
    ['DRY', 'false'],
    ['SECRET', undefined]
  ])

  it('matches values as Jenkins exports them: numbers and booleans as text', () => {
    expect(
      sameParameters(expected, [
        { name: 'ENV', value: 'prod' },
        { name: 'COUNT', value: 3 },
        { name: 'DRY', value: false },
        { name: 'SECRET' }
      ])
    ).toBe(true)
  })

  it('lets a value we cannot know match anything, and only such a value', () => {
    // A password we do not expect a value for: whatever Jenkins shows matches.
    expect(
      sameParameters(expected, [
        { name: 'ENV', value: 'prod' },
        { name: 'COUNT', value: 3 },
        { name: 'DRY', value: false },
        { name: 'SECRET', value: '********' }
      ])
    ).toBe(true)
    // A value Jenkins exports as something that is not text (a file, a run): matches.
    expect(
      sameParameters(expected, [
        { name: 'ENV', value: { file: 'x' } },
        { name: 'COUNT', value: 3 },
        { name: 'DRY', value: false },
        { name: 'SECRET' }
      ])
    ).toBe(true)
    expect(
      sameParameters(expected, [
        { name: 'ENV', value: 'prod' },
        { name: 'COUNT', value: 3 },
        { name: 'DRY' },
        { name: 'SECRET' }
      ])
    ).toBe(true)
    // Both known and different: not ours, whichever parameter it is.
    for (const [name, value] of [
      ['ENV', 'dev'],
      ['COUNT', 4],
      ['DRY', true],
      ['DRY', 'true']
    ] as const) {
      const actual = [
        { name: 'ENV', value: 'prod' },
        { name: 'COUNT', value: 3 as unknown },
        { name: 'DRY', value: false as unknown },
        { name: 'SECRET' }
      ].map(p => (p.name === name ? { name, value } : p))
      expect(sameParameters(expected, actual)).toBe(false)
    }
  })

  it('refuses a name given twice in place of another, and a name we do not expect', () => {
    expect(
      sameParameters(expected, [
        { name: 'ENV', value: 'prod' },
        { name: 'ENV', value: 'prod' },
        { name: 'DRY', value: false },
        { name: 'SECRET' }
      ])
    ).toBe(false)
    expect(
      sameParameters(expected, [
        { name: 'ENV', value: 'prod' },
        { name: 'COUNT', value: 3 },
        { name: 'DRY', value: false },
        { name: 'OTHER' }
      ])
    ).toBe(false)
    expect(sameParameters(new Map(), [])).toBe(true)
    expect(sameParameters(new Map(), [{ name: 'A', value: 'x' }])).toBe(false)
  })
})

describe('reading the exported JSON', () => {
  it('jobNamesFromUrl refuses what is not a job URL', () => {
    expect(jobNamesFromUrl('http://h/job/a/')).toEqual(['a'])
    expect(jobNamesFromUrl('/ci/job/a/job/b/')).toEqual(['a', 'b'])
    expect(jobNamesFromUrl('http://h/job/a/ws/')).toBeUndefined()
    expect(jobNamesFromUrl('http://h/job/')).toBeUndefined()
    expect(jobNamesFromUrl('http://h/job/a/job/')).toBeUndefined()
    expect(jobNamesFromUrl('http://h/job/%E0%A4%A/')).toBeUndefined()
    expect(jobNamesFromUrl('http://[::1/job/a/')).toBeUndefined()
  })

  it('actionsOf keeps named parameters, with or without a value, from any action', () => {
    expect(actionsOf(undefined).parameters).toEqual([])
    expect(actionsOf({ parameters: [{ name: 'A', value: '1' }] }).parameters).toEqual([])
    expect(
      actionsOf([
        null,
        {},
        { parameters: 'no' },
        {
          parameters: [
            null,
            { value: 'nameless' },
            { name: 7, value: 'x' },
            { name: 'A', value: '1' },
            { name: 'P' },
            { name: 'N', value: null }
          ]
        },
        { parameters: [{ name: 'B', value: false }] }
      ]).parameters
    ).toEqual([
      { name: 'A', value: '1' },
      { name: 'P' },
      { name: 'N', value: null },
      { name: 'B', value: false }
    ])
  })

  it('actionsOf keeps string and anonymous (null) ids, and nothing else', () => {
    expect(actionsOf(undefined).userIds).toBeUndefined()
    expect(actionsOf({ causes: [{ userId: 'alice' }] }).userIds).toBeUndefined()
    expect(
      actionsOf([{ causes: [{ _class: 'hudson.triggers.TimerTrigger$TimerTriggerCause' }] }])
        .userIds
    ).toBeUndefined()
    expect(
      actionsOf([
        null,
        { causes: 'no' },
        {
          causes: [
            null,
            { userId: 7 },
            { userId: 'alice' },
            { userId: null },
            { shortDescription: 'Started by timer' }
          ]
        },
        { causes: [{ userId: 'bob' }] }
      ]).userIds
    ).toEqual(['alice', null, 'bob'])
  })

  it("actionsOf lists every cause's class", () => {
    expect(actionsOf(undefined).causes).toEqual([])
    expect(actionsOf({ causes: [{ _class: 'A' }] }).causes).toEqual([])
    expect(
      actionsOf([
        null,
        { causes: 'no' },
        { causes: [null, { _class: 7 }, { _class: 'hudson.model.Cause$UserIdCause' }] },
        { causes: [{ _class: 'hudson.triggers.TimerTrigger$TimerTriggerCause' }] }
      ]).causes
    ).toEqual(['hudson.model.Cause$UserIdCause', 'hudson.triggers.TimerTrigger$TimerTriggerCause'])
  })
})

describe('a lost trigger of a branch job, with its project being scanned', () => {
  const JOB_PATH = '/jenkins/job/mb/job/main'
  const info: JobInfo = {
    name: 'main',
    url: `${BASE}/job/mb/job/main/`,
    isFolder: false,
    nextBuildNumber: 3,
    parameterDefinitions: []
  }

  it("sends again rather than adopt the scan's queue item", async () => {
    nock(ORIGIN)
      .get('/jenkins/crumbIssuer/api/json')
      .reply(...JENKINS_404)
    const { client: c } = makeClient({ triggerSettleMs: 5 })
    nock(ORIGIN).post(`${JOB_PATH}/build`).query(true).replyWithError(netError('ECONNRESET'))
    const scan = {
      _class: 'hudson.model.Queue$BuildableItem',
      id: 60,
      task: {
        _class: 'org.jenkinsci.plugins.workflow.multibranch.WorkflowMultiBranchProject',
        name: 'mb',
        url: `${BASE}/job/mb/`
      },
      actions: [{ _class: 'hudson.model.CauseAction', causes: [{ userId: USER }] }]
    }
    for (let look = 0; look < 2; look++) {
      nock(ORIGIN)
        .get('/jenkins/queue/api/json')
        .query(true)
        .reply(200, { _class: 'hudson.model.Queue', items: [scan] })
      nock(ORIGIN).get(`${JOB_PATH}/api/json`).query(true).reply(200, { builds: [] })
    }
    nock(ORIGIN)
      .post(`${JOB_PATH}/build`)
      .query(true)
      .reply(201, '', { Location: `${ORIGIN}/jenkins/queue/item/61/` })
    const result = await c.trigger(info, ['mb', 'main'], {})
    expect(result.queueId).toBe(61)
    expect(result.adopted).toBeUndefined()
    expect(c.http.requestCounts['trigger']).toBe(2)
  })
})
