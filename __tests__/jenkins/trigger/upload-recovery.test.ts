/**
 * What an upload whose answer was lost left in Jenkins (upload-recovery.ts),
 * with competing candidates and unusual data: the shared-work rule before
 * any cancel or stop (only one request of our user's, nothing merged in),
 * the filter to our job and to builds since the trigger, a complete and a
 * broken candidate together, a build the upload already started, and the
 * cancel or stop of a broken upload when Jenkins answers oddly. Never a
 * second POST.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import nock from 'nock'
import { afterAll, describe, expect, it } from 'vitest'
import type { JobInfo } from '../../../src/jenkins/model/types.js'
import type { UploadFile } from '../../../src/jenkins/transport/multipart.js'
import {
  BASE,
  ORIGIN,
  USER,
  crumbIssuer,
  jenkinsError,
  makeClient,
  netError,
  useNock
} from '../helpers.js'

useNock()

const dir = mkdtempSync(join(tmpdir(), 'upload-recovery-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
writeFileSync(join(dir, 'app.zip'), 'zip')
const files: UploadFile[] = [
  { name: 'PACKAGE', path: join(dir, 'app.zip'), fileName: 'app.zip', size: 3 }
]

const JOB_PATH = '/jenkins/job/deploy'
const info: JobInfo = {
  name: 'deploy',
  url: `${BASE}/job/deploy/`,
  isFolder: false,
  nextBuildNumber: 7,
  parameterDefinitions: [
    { name: 'PACKAGE', type: 'FileParameterDefinition' },
    { name: 'TARGET', type: 'StringParameterDefinition', defaultValue: 'staging' }
  ]
}
const DEFAULTS = [{ name: 'TARGET', value: 'staging' }]
const OURS = [{ name: 'PACKAGE' }, { name: 'TARGET', value: 'prod' }]

const USER_CAUSE = 'hudson.model.Cause$UserIdCause'
const TIMER_CAUSE = 'hudson.triggers.TimerTrigger$TimerTriggerCause'
const byUser = (userId: string | null) => ({ _class: USER_CAUSE, userId })
const timer = { _class: TIMER_CAUSE, shortDescription: 'Started by timer' }

function lostTrigger(anonymous = false) {
  if (anonymous) {
    nock(ORIGIN)
      .get('/jenkins/crumbIssuer/api/json')
      .reply(200, { crumb: 'c0ffee', crumbRequestField: 'Jenkins-Crumb' })
  } else crumbIssuer()
  nock(ORIGIN)
    .post(`${JOB_PATH}/buildWithParameters`)
    .query({ delay: '0sec' })
    .replyWithError(netError('ECONNRESET'))
}

function queue(items: unknown[]) {
  return nock(ORIGIN)
    .get('/jenkins/queue/api/json')
    .query(true)
    .reply(200, { _class: 'hudson.model.Queue', items })
}

function builds(list: unknown[]) {
  return nock(ORIGIN)
    .get(`${JOB_PATH}/api/json`)
    .query(q => typeof q.tree === 'string' && q.tree.startsWith('builds['))
    .reply(200, { builds: list })
}

const queued = (
  id: number,
  parameters: unknown[],
  causes: unknown[],
  url = `${BASE}/job/deploy/`
) => ({
  id,
  task: { url, name: 'deploy' },
  actions: [{ parameters }, { causes }]
})
const build = (
  number: number,
  queueId: number | undefined,
  parameters: unknown[],
  causes: unknown[]
) => ({
  number,
  ...(queueId === undefined ? {} : { queueId }),
  actions: [{ parameters }, { causes }]
})

function cancel(id: number, status = 204) {
  return nock(ORIGIN)
    .post('/jenkins/queue/cancelItem')
    .query({ id: String(id) })
    .reply(status)
}
function stop(number: number, status = 302) {
  return nock(ORIGIN)
    .post(`${JOB_PATH}/${number}/stop`)
    .reply(status, '', {
      Location: `${BASE}/job/deploy/${number}/`
    })
}

async function recover(options: { user?: boolean } = {}) {
  const made = makeClient({ triggerSettleMs: 1, ...(options.user === false ? { user: '' } : {}) })
  const error = await jenkinsError(
    made.client.trigger(info, ['deploy'], { TARGET: 'prod' }, files),
    'network'
  )
  return { ...made, error }
}

const ITEM = (id: number) => `queue item ${id} (${BASE}/queue/item/${id}/)`
const BUILD = (n: number) => `build #${n} (${BASE}/job/deploy/${n}/)`

describe('a broken upload found alone: cancelled or stopped only when it is ours alone', () => {
  it("a queue item whose only cause is another user's is named and left alone", async () => {
    lostTrigger()
    queue([queued(77, DEFAULTS, [byUser('bob')])])
    builds([])
    const { client, error } = await recover()
    expect(error.message).toContain(
      `Jenkins shows ${ITEM(77)} with every parameter at its default and no file, as the broken upload would have queued it, but it is not a request of user '${USER}': it was left alone. Check it (it may run without the files); nothing was sent again.`
    )
    expect(client.http.requestCounts['cancel']).toBeUndefined()
    expect(client.http.requestCounts['trigger']).toBe(1)
  })

  it("a queue item where a timer's request and ours were merged is named and left alone", async () => {
    lostTrigger()
    queue([queued(78, DEFAULTS, [timer, byUser(USER)])])
    builds([])
    const { client, error } = await recover()
    expect(error.message).toContain(
      `${ITEM(78)} with every parameter at its default and no file, as the broken upload would have queued it, but 2 requests share it (another was merged with this step's): it was left alone.`
    )
    expect(client.http.requestCounts['cancel']).toBeUndefined()
  })

  it('a build whose causes are a timer and our user is named and not stopped', async () => {
    lostTrigger()
    queue([])
    builds([build(7, 80, DEFAULTS, [timer, byUser(USER)])])
    const { client, error } = await recover()
    expect(error.message).toContain(
      `${BUILD(7)} with every parameter at its default and no file, as the broken upload would have queued it, but 2 requests share it`
    )
    expect(client.http.requestCounts['stop']).toBeUndefined()
  })

  it('two requests of our own user merged (two causes) are not ours alone either', async () => {
    lostTrigger()
    queue([queued(79, DEFAULTS, [byUser(USER), byUser(USER)])])
    builds([])
    const { client, error } = await recover()
    expect(error.message).toContain('but 2 requests share it')
    expect(client.http.requestCounts['cancel']).toBeUndefined()
  })

  it.each([
    ['an anonymous request', [byUser(null)], `it is not a request of user '${USER}'`],
    ['a cause of another kind alone', [timer], `it is not a request of user '${USER}'`],
    ['no causes exported', [], 'Jenkins does not say whose request it is']
  ])('%s: left alone', async (_what, causes, why) => {
    lostTrigger()
    queue([queued(81, DEFAULTS, causes)])
    builds([])
    const { client, error } = await recover()
    expect(error.message).toContain(
      `as the broken upload would have queued it, but ${why}: it was left alone.`
    )
    expect(client.http.requestCounts['cancel']).toBeUndefined()
  })

  it('a step without a user (anonymous) never cancels what it cannot tell is its own', async () => {
    lostTrigger(true)
    queue([queued(82, DEFAULTS, [byUser(null)])])
    builds([])
    const made = makeClient({ triggerSettleMs: 1, user: undefined, token: undefined })
    const error = await jenkinsError(
      made.client.trigger(info, ['deploy'], { TARGET: 'prod' }, files),
      'network'
    )
    expect(error.message).toContain(
      'but this step has no user to tell its own requests by: it was left alone.'
    )
    expect(made.client.http.requestCounts['cancel']).toBeUndefined()
  })

  it('ours alone, still queued: cancelled', async () => {
    lostTrigger()
    queue([queued(83, DEFAULTS, [byUser('ALICE')])])
    builds([])
    const cancelled = cancel(83)
    const { error } = await recover()
    expect(cancelled.isDone()).toBe(true)
    expect(error.message).toContain(
      `Jenkins queued ${ITEM(83)} from the broken upload with every parameter at its default and no file: cancelled it. Nothing was sent again: run the step again to upload the files.`
    )
  })

  it('ours alone, already a build: stopped', async () => {
    lostTrigger()
    queue([])
    builds([build(8, 84, DEFAULTS, [byUser(USER)])])
    const stopped = stop(8)
    const { error } = await recover()
    expect(stopped.isDone()).toBe(true)
    expect(error.message).toContain(`Jenkins queued ${BUILD(8)} from the broken upload`)
    expect(error.message).toContain(': stopped build #8. Nothing was sent again')
  })

  it('ours alone when found, started before the cancel: the build is stopped', async () => {
    lostTrigger()
    queue([queued(85, DEFAULTS, [byUser(USER)])])
    builds([])
    cancel(85, 500)
    builds([build(9, 85, DEFAULTS, [byUser(USER)]), build(10, 86, DEFAULTS, [byUser(USER)])])
    const stopped = stop(9)
    const { error } = await recover()
    expect(stopped.isDone()).toBe(true)
    expect(error.message).toContain(`Jenkins queued ${ITEM(85)} from the broken upload`)
    expect(error.message).toContain(': stopped build #9.')
  })

  it('ours alone when found, but another request was merged before it started: the build is left running', async () => {
    lostTrigger()
    queue([queued(87, DEFAULTS, [byUser(USER)])])
    builds([])
    cancel(87, 500)
    builds([build(11, 87, DEFAULTS, [byUser(USER), timer])])
    const { client, error } = await recover()
    expect(error.message).toContain(
      `: it started as ${BUILD(11)} before it could be cancelled, and 2 requests share it (another was merged with this step's): it was left running; check it. Nothing was sent again`
    )
    expect(client.http.requestCounts['stop']).toBeUndefined()
  })

  it('left the queue and no build shows it: says so, stops nothing', async () => {
    lostTrigger()
    queue([queued(88, DEFAULTS, [byUser(USER)])])
    builds([])
    cancel(88, 500)
    builds([build(12, 99, DEFAULTS, [byUser(USER)])])
    const { client, error } = await recover()
    expect(error.message).toContain(
      `: it left the queue before it could be cancelled; check ${BASE}/job/deploy/. Nothing was sent again`
    )
    expect(client.http.requestCounts['stop']).toBeUndefined()
  })

  it('a cancel Jenkins refuses: says to stop it by hand', async () => {
    lostTrigger()
    queue([queued(89, DEFAULTS, [byUser(USER)])])
    builds([])
    cancel(89, 422)
    const { error } = await recover()
    expect(error.message).toContain(
      ': could not cancel or stop it (Jenkins at https://ci.example.com/jenkins refused to cancel queue item 89'
    )
    expect(error.message).toContain('stop it by hand. Nothing was sent again')
  })

  it('a stop Jenkins refuses: says to stop it by hand', async () => {
    lostTrigger()
    queue([])
    builds([build(13, 90, DEFAULTS, [byUser(USER)])])
    stop(13, 403)
    const { error } = await recover()
    expect(error.message).toMatch(
      /: could not cancel or stop it \(.+\): stop it by hand\. Nothing was sent again/
    )
  })
})

describe('competing candidates', () => {
  it('one complete and one broken candidate: neither is followed nor touched', async () => {
    lostTrigger()
    queue([queued(91, OURS, [byUser(USER)]), queued(92, DEFAULTS, [byUser(USER)])])
    builds([])
    const { client, error } = await recover()
    expect(error.message).toContain(
      `Jenkins shows several items of 'deploy' that this upload may have queued, and they cannot be told apart from other triggers: ${ITEM(91)}, ${ITEM(92)}. None was touched and nothing was sent again`
    )
    expect(client.http.requestCounts['cancel']).toBeUndefined()
    expect(client.http.requestCounts['stop']).toBeUndefined()
  })

  it('two complete candidates: neither is followed', async () => {
    lostTrigger()
    queue([queued(93, OURS, [byUser(USER)])])
    builds([build(7, 94, OURS, [byUser(USER)])])
    const { error } = await recover()
    expect(error.message).toContain(
      `cannot be told apart from other triggers: ${BUILD(7)}, ${ITEM(93)}.`
    )
  })

  it('items of other jobs, builds before the trigger and builds of other users are no candidates', async () => {
    lostTrigger()
    queue([
      queued(95, DEFAULTS, [byUser(USER)], `${BASE}/job/deploy-old/`),
      queued(96, DEFAULTS, [byUser(USER)], `${BASE}/job/team/job/deploy/`),
      queued(97, OURS, [byUser(USER)], `${BASE}/job/other/`)
    ])
    builds([build(6, 60, DEFAULTS, [byUser(USER)]), build(7, 61, OURS, [byUser('bob')])])
    queue([])
    builds([])
    const { client, error } = await recover()
    expect(error.message).toContain('Jenkins shows no build queued from it')
    expect(client.http.requestCounts['cancel']).toBeUndefined()
  })

  it('the job is matched case-insensitively, as Jenkins looks items up', async () => {
    lostTrigger()
    queue([queued(98, DEFAULTS, [byUser(USER)], `${BASE}/job/DEPLOY/`)])
    builds([])
    cancel(98)
    const { error } = await recover()
    expect(error.message).toContain(': cancelled it.')
  })

  it('the whole upload already started as a build: followed from that build, its queue item adopted', async () => {
    lostTrigger()
    // The same item shows in the queue and as the build it became: one candidate.
    queue([queued(100, OURS, [byUser(USER)])])
    builds([build(7, 100, OURS, [byUser(USER)]), build(8, 101, DEFAULTS, [byUser('bob')])])
    const { client, logger } = makeClient({ triggerSettleMs: 1 })
    const result = await client.trigger(info, ['deploy'], { TARGET: 'prod' }, files)
    expect(result).toEqual({
      queueId: 100,
      queueUrl: `${BASE}/queue/item/100/`,
      merged: false,
      adopted: 'build',
      unknownParameters: []
    })
    expect(logger.lines.map(l => l.message)).toContain(
      `Jenkins shows ${BUILD(7)} of 'deploy' with these parameters and files: following it.`
    )
  })

  it('the whole upload as a build Jenkins shows without its queue item: not followed', async () => {
    lostTrigger()
    queue([])
    builds([build(7, undefined, OURS, [byUser(USER)])])
    const { error } = await recover()
    expect(error.message).toContain(
      `Jenkins shows ${BUILD(7)} with these parameters and files, but not its queue item: check it; nothing was sent again.`
    )
  })

  it('nothing at the first look, the broken build at the second: cancelled', async () => {
    lostTrigger()
    queue([])
    builds([])
    queue([queued(102, DEFAULTS, [byUser(USER)])])
    builds([])
    cancel(102)
    const { error } = await recover()
    expect(error.message).toContain(`Jenkins queued ${ITEM(102)} from the broken upload`)
  })

  it('Jenkins cannot be asked: says what may be queued, sends nothing again', async () => {
    lostTrigger()
    nock(ORIGIN).get('/jenkins/queue/api/json').query(true).reply(403, 'no')
    const { client, error } = await recover()
    expect(error.message).toContain('and Jenkins could not be asked what it queued (')
    expect(error.message).toContain(
      `a build without the files may be queued or running. Check ${BASE}/job/deploy/; nothing was sent again.`
    )
    expect(client.http.requestCounts['trigger']).toBe(1)
  })
})

describe('unusual data and a cancel of the step during the recovery', () => {
  it('a broken item whose causes Jenkins does not export: named and left alone', async () => {
    lostTrigger()
    queue([
      {
        id: 88,
        task: { url: `${BASE}/job/deploy/`, name: 'deploy' },
        actions: [{ parameters: DEFAULTS }]
      }
    ])
    builds([])
    const { client, error } = await recover()
    expect(error.message).toContain(
      `Jenkins shows ${ITEM(88)} with every parameter at its default and no file, as the broken upload would have queued it, but Jenkins does not say whose request it is: it was left alone.`
    )
    expect(client.http.requestCounts['cancel']).toBeUndefined()
  })

  it("without the job's next build number, no build is a candidate and the builds are not read", async () => {
    lostTrigger()
    queue([queued(41, OURS, [byUser(USER)])])
    // No builds interceptor: a read of the builds would fail the look.
    const { client } = makeClient({ triggerSettleMs: 1 })
    const { nextBuildNumber: _unknown, ...withoutNext } = info
    const result = await client.trigger(withoutNext, ['deploy'], { TARGET: 'prod' }, files)
    expect(result.queueId).toBe(41)
    expect(client.http.requestCounts['trigger']).toBe(1)
  })

  it('the step cancelled while it looks: the cancel, not "Jenkins could not be asked"', async () => {
    lostTrigger()
    const controller = new AbortController()
    nock(ORIGIN)
      .get('/jenkins/queue/api/json')
      .query(true)
      .reply(() => {
        controller.abort('cancelled')
        return [200, { _class: 'hudson.model.Queue', items: [] }]
      })
    const { client } = makeClient({ triggerSettleMs: 1, signal: controller.signal })
    const error = await jenkinsError(
      client.trigger(info, ['deploy'], { TARGET: 'prod' }, files),
      'aborted'
    )
    expect(error.message).not.toContain('could not be asked')
  })

  it('the step cancelled while it cancels the broken item: the cancel, not "stop it by hand"', async () => {
    lostTrigger()
    queue([queued(99, DEFAULTS, [byUser(USER)])])
    builds([])
    const controller = new AbortController()
    nock(ORIGIN)
      .post('/jenkins/queue/cancelItem')
      .query({ id: '99' })
      .reply(() => {
        controller.abort('cancelled')
        return [204, '']
      })
    const { client } = makeClient({ triggerSettleMs: 1, signal: controller.signal })
    const error = await jenkinsError(
      client.trigger(info, ['deploy'], { TARGET: 'prod' }, files),
      'aborted'
    )
    expect(error.message).not.toContain('stop it by hand')
  })
})
