import { describe, expect, it } from 'vitest'
import { abortRemote } from '../../src/follow/cancel.js'
import { JenkinsError } from '../../src/jenkins/transport/errors.js'
import type { QueueItem } from '../../src/jenkins/reads/reads.js'
import type { Logger } from '../../src/util/logger.js'
import { silentLogger } from '../fixtures/recording-logger.js'
import { FakeApi, notFound } from '../fixtures/fake-api.js'

const timings = { stopWaitMs: 5, termWaitMs: 5, killWaitMs: 5, pollMs: 1, shareCheckMs: 50 }
const job = ['pipe']
const build = { job, number: 4, url: 'u' }

/** A CauseAction as Jenkins exports it: one cause per request (the same user's repeated). */
function causeAction(requests: number) {
  const cause = { _class: 'hudson.model.Cause$UserIdCause', userId: 'alice' }
  return {
    _class: 'hudson.model.CauseAction',
    causes: Array.from({ length: requests }, () => cause)
  }
}

/** A queue item still waiting for its build. */
function queued(requests: number): QueueItem {
  return { _class: 'hudson.model.Queue$BlockedItem', id: 9, actions: [causeAction(requests)] }
}

describe('abortRemote', () => {
  it('cancels a queued item that answers for our request alone', async () => {
    const api = new FakeApi()
    api.queueAnswers = [queued(1)]
    expect(await abortRemote(api, { job, queueId: 9 }, silentLogger, { timings })).toBe(
      'cancelled Jenkins queue item 9'
    )
    expect(api.calls).toEqual(['getQueueItem 9', 'cancelQueueItem 9'])
  })

  it('leaves a queued item another request folded into (two causes): no cancel', async () => {
    const api = new FakeApi()
    api.queueAnswers = [queued(2)]
    expect(await abortRemote(api, { job, queueId: 9 }, silentLogger, { timings })).toBe(
      'left queue item 9 running: shared with another request'
    )
    expect(api.calls).toEqual(['getQueueItem 9'])
  })

  it("the step's own requests folded together (a job listed twice) are not another request's", async () => {
    const api = new FakeApi()
    api.queueAnswers = [queued(2)]
    expect(
      await abortRemote(api, { job, queueId: 9, ownRequests: 2 }, silentLogger, { timings })
    ).toBe('cancelled Jenkins queue item 9')
    const shared = new FakeApi()
    shared.queueAnswers = [queued(3)]
    expect(
      await abortRemote(shared, { job, queueId: 9, ownRequests: 2 }, silentLogger, { timings })
    ).toBe('left queue item 9 running: shared with another request')
  })

  it('leaves work Jenkins merged our request into (303) without a request', async () => {
    const api = new FakeApi()
    expect(
      await abortRemote(api, { job, queueId: 9, shared: true }, silentLogger, { timings })
    ).toBe('left queue item 9 running: shared with another request')
    expect(await abortRemote(api, { job, build, shared: true }, silentLogger, { timings })).toBe(
      'left build #4 running: shared with another request'
    )
    expect(api.calls).toEqual([])
  })

  it('leaves a running build whose causes show another request: no stop', async () => {
    const api = new FakeApi()
    api.buildAnswers = [{ building: true, actions: [{}, causeAction(2)] }]
    expect(await abortRemote(api, { job, build }, silentLogger, { timings })).toBe(
      'left build #4 running: shared with another request'
    )
    expect(api.calls).toEqual(['getBuild 4 tree'])
  })

  it('stops the build when the item left between the look and the cancel', async () => {
    const api = new FakeApi()
    api.queueAnswers = [queued(1), { id: 9, executable: { number: 4, url: '' } }]
    api.cancelOutcome = 'already-left'
    api.buildAnswers = [{ building: true, actions: [causeAction(1)] }]
    api.onStop = () => (api.buildAnswers = [{ building: false, result: 'ABORTED' }])
    expect(await abortRemote(api, { job, queueId: 9 }, silentLogger, { timings })).toBe(
      'stopped Jenkins build #4 (stop; result ABORTED)'
    )
    expect(api.calls.slice(0, 3)).toEqual(['getQueueItem 9', 'cancelQueueItem 9', 'getQueueItem 9'])
  })

  it('stops the build when the item had already left the queue', async () => {
    const api = new FakeApi()
    api.cancelOutcome = 'already-left'
    api.queueAnswers = [{ id: 9, executable: { number: 4, url: '' } }]
    api.buildAnswers = [{ building: true }]
    api.onStop = () => (api.buildAnswers = [{ building: false, result: 'ABORTED' }])
    expect(await abortRemote(api, { job, queueId: 9 }, silentLogger, { timings })).toBe(
      'stopped Jenkins build #4 (stop; result ABORTED)'
    )
    expect(api.calls).toContain('stop')
    // A LeftItem cannot be cancelled (jenkins-api.md 4): nothing is asked.
    expect(api.calls).not.toContain('cancelQueueItem 9')
  })

  it('finds the build by queue id when the left item expired', async () => {
    const api = new FakeApi()
    api.cancelOutcome = 'not-found'
    api.queueAnswers = [notFound()]
    api.recent = [{ number: 4, queueId: 9 }]
    api.buildAnswers = [{ building: true }]
    api.onStop = () => (api.buildAnswers = [{ building: false, result: 'ABORTED' }])
    expect(await abortRemote(api, { job, queueId: 9 }, silentLogger, { timings })).toMatch(
      /stopped Jenkins build #4/
    )
  })

  it('escalates a Pipeline from stop to term to kill', async () => {
    const api = new FakeApi()
    api.buildAnswers = [{ building: true }]
    api.onStop = how => {
      if (how === 'kill') api.buildAnswers = [{ building: false, result: 'ABORTED' }]
    }
    expect(await abortRemote(api, { job, build }, silentLogger, { timings })).toBe(
      'stopped Jenkins build #4 (kill; result ABORTED)'
    )
    expect(api.calls.filter(c => ['stop', 'term', 'kill'].includes(c))).toEqual([
      'stop',
      'term',
      'kill'
    ])
  })

  it('stops escalating when term does not exist (freestyle)', async () => {
    const api = new FakeApi()
    api.buildAnswers = [{ building: true }]
    api.stopErrors.term = notFound()
    expect(await abortRemote(api, { job, build }, silentLogger, { timings })).toMatch(
      /still running/
    )
    expect(api.calls).not.toContain('kill')
  })

  it('looks at the build briefly before acting: one that had already finished is left as it is', async () => {
    const api = new FakeApi()
    api.buildAnswers = [{ building: false, result: 'SUCCESS' }]
    expect(await abortRemote(api, { job, build }, silentLogger, { timings })).toBe(
      'build #4 had already finished (SUCCESS)'
    )
    expect(api.calls).toEqual(['getBuild 4 tree'])
  })

  it('a look that never answers does not keep stop from being sent', async () => {
    const api = new FakeApi()
    api.hangingReads = 1
    api.buildAnswers = [{ building: false, result: 'ABORTED' }]
    expect(await abortRemote(api, { job, build }, silentLogger, { timings })).toBe(
      'stopped Jenkins build #4 (stop; result ABORTED)'
    )
    expect(api.calls.slice(0, 2)).toEqual(['getBuild 4 tree', 'stop'])
  })

  it('a queue item whose look never answers is still cancelled', async () => {
    const api = new FakeApi()
    api.hangingReads = 1
    expect(await abortRemote(api, { job, queueId: 8 }, silentLogger, { timings })).toBe(
      'cancelled Jenkins queue item 8'
    )
    expect(api.calls).toEqual(['getQueueItem 8', 'cancelQueueItem 8'])
  })

  it('stop was sent but the build cannot be read: says stop was sent, and why it could not see it end', async () => {
    const api = new FakeApi()
    api.buildAnswers = [new JenkinsError('timeout', 'Jenkins stopped sending build #4')]
    expect(await abortRemote(api, { job, build }, silentLogger, { timings })).toBe(
      'sent stop to Jenkins build #4, but could not see it end: Jenkins stopped sending build #4'
    )
  })

  it('a lost trigger: finds its queue item by its parameters and cancels it', async () => {
    const api = new FakeApi()
    api.lostFound = { queueId: 31 }
    const lostTrigger = { job, parameters: new Map<string, string | undefined>() }
    expect(await abortRemote(api, { job, lostTrigger }, silentLogger, { timings })).toBe(
      "cancelled Jenkins queue item 31 (found by its parameters: the trigger's answer never came)"
    )
    expect(api.calls).toEqual(['findLostTrigger', 'getQueueItem 31', 'cancelQueueItem 31'])
  })

  it('a lost trigger that already started a build: stops that build', async () => {
    const api = new FakeApi()
    api.lostFound = { queueId: 31, buildNumber: 4 }
    api.buildAnswers = [{ building: true }]
    api.onStop = () => (api.buildAnswers = [{ building: false, result: 'ABORTED' }])
    const lostTrigger = { job, parameters: new Map<string, string | undefined>() }
    expect(await abortRemote(api, { job, lostTrigger }, silentLogger, { timings })).toMatch(
      /^stopped Jenkins build #4 \(stop; result ABORTED\) \(found by its parameters/
    )
  })

  it('a lost trigger that Jenkins shows nothing for: nothing to cancel, nothing sent', async () => {
    const api = new FakeApi()
    const lostTrigger = { job, parameters: new Map<string, string | undefined>() }
    expect(await abortRemote(api, { job, lostTrigger }, silentLogger, { timings })).toMatch(
      /shows no queued item or build for it: nothing to cancel/
    )
    expect(api.calls).toEqual(['findLostTrigger'])
  })

  it('warns instead of throwing when Jenkins refuses', async () => {
    const api = new FakeApi()
    api.buildAnswers = [{ building: true }]
    api.stopErrors.stop = new JenkinsError('forbidden', 'alice lacks Job/Cancel', 403)
    const warnings: string[] = []
    const logger: Logger = { ...silentLogger, warning: m => warnings.push(m) }
    expect(await abortRemote(api, { job, build }, logger, { timings })).toMatch(/could not abort/)
    expect(warnings[0]).toMatch(/alice lacks Job\/Cancel/)
  })
})
