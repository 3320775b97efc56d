/**
 * abortRemote's decisions where answers compete, in virtual time: which
 * queue answers mean "left the queue" (each signal alone), how long a left
 * item without its build number yet is looked at again, which refusals of
 * stop, term and kill end the escalation, how each wait shares a budget, and
 * "had already finished" against "stopped". The waits are virtual
 * (virtualSleep, passed as abortRemote's sleep): Date moves only by what the
 * code asked to wait, exactly, so the shares below are exact on a loaded
 * machine; each wait still yields to the event loop.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { abortRemote, onCancelSignals, scanLeft } from '../../src/follow/cancel.js'
import { JenkinsError } from '../../src/jenkins/transport/errors.js'
import type { BuildRef } from '../../src/jenkins/model/types.js'
import type { QueueItem } from '../../src/jenkins/reads/reads.js'
import type { Logger } from '../../src/util/logger.js'
import { silentLogger } from '../fixtures/recording-logger.js'
import { FakeApi, notFound } from '../fixtures/fake-api.js'

/**
 * The waits, made virtual: Date moves on by exactly what the code asked to
 * wait, after yielding to the event loop. Passed to abortRemote rather than
 * mocking util/wait.js, which `npm run mutation` (one module graph across
 * test files) may have loaded before this file.
 */
async function virtualSleep(ms: number): Promise<void> {
  await new Promise(resolve => setImmediate(resolve))
  vi.setSystemTime(Date.now() + Math.max(0, ms))
}

/** abortRemote on the virtual clock. */
function abort(
  api: FakeApi,
  target: Parameters<typeof abortRemote>[1],
  logger: Logger,
  options: Parameters<typeof abortRemote>[3] = {}
): Promise<string> {
  return abortRemote(api, target, logger, { sleep: virtualSleep, ...options })
}

/** Only Date is virtual: briefly()'s real timer still bounds a look that never answers. */
beforeEach(() => vi.useFakeTimers({ toFake: ['Date'], now: 1_700_000_000_000 }))
afterEach(() => vi.useRealTimers())

const timings = { stopWaitMs: 30, termWaitMs: 20, killWaitMs: 10, pollMs: 10, shareCheckMs: 50 }
const job = ['pipe']
const build = { job, number: 4, url: 'u' }

/** A FakeApi that notes, in virtual ms from its creation, when each queue read and each stop/term/kill came. */
class TimedApi extends FakeApi {
  private readonly start = Date.now()
  readonly reads: number[] = []
  readonly sent: string[] = []

  override getQueueItem(queueId: number): Promise<QueueItem> {
    this.reads.push(Date.now() - this.start)
    return super.getQueueItem(queueId)
  }

  override stopBuild(ref: BuildRef, how: 'stop' | 'term' | 'kill'): Promise<void> {
    this.sent.push(`${how} at ${Date.now() - this.start}`)
    return super.stopBuild(ref, how)
  }
}

/** A LeftItem as Jenkins exports it: `executable` null until the run exists (jenkins-api.md 4). */
function left(number: number | null, cancelled = false): QueueItem {
  return {
    _class: 'hudson.model.Queue$LeftItem',
    id: 9,
    cancelled,
    executable: number === null ? null : { number, url: '' }
  }
}

function warnings(): { logger: Logger; said: string[] } {
  const said: string[] = []
  return { logger: { ...silentLogger, warning: m => void said.push(m) }, said }
}

describe('what says a queue item left the queue: each signal alone', () => {
  it('the LeftItem class alone (no executable, not cancelled): no cancel, and no build to stop', async () => {
    const api = new FakeApi()
    api.queueAnswers = [{ _class: 'hudson.model.Queue$LeftItem', id: 9 }]
    expect(await abort(api, { job, queueId: 9 }, silentLogger, { timings })).toBe(
      'queue item 9 was no longer queued and started no build'
    )
    expect(api.calls).toEqual(['getQueueItem 9'])
  })

  it('an executable alone (no class): no cancel, its build is stopped', async () => {
    const api = new FakeApi()
    api.queueAnswers = [{ id: 9, executable: { number: 4 } }]
    api.buildAnswers = [{ building: true }]
    api.onStop = () => (api.buildAnswers = [{ building: false, result: 'ABORTED' }])
    expect(await abort(api, { job, queueId: 9 }, silentLogger, { timings })).toBe(
      'stopped Jenkins build #4 (stop; result ABORTED)'
    )
    expect(api.calls).toEqual(['getQueueItem 9', 'getBuild 4 tree', 'stop', 'getBuild 4 tree'])
  })

  it('cancelled alone (no class, no executable): no cancel sent again, no build', async () => {
    const api = new FakeApi()
    api.queueAnswers = [{ id: 9, cancelled: true }]
    expect(await abort(api, { job, queueId: 9 }, silentLogger, { timings })).toBe(
      'queue item 9 was no longer queued and started no build'
    )
    expect(api.calls).toEqual(['getQueueItem 9'])
  })

  it('none of them (a waiting item, cancelled: false): cancelled', async () => {
    const api = new FakeApi()
    api.queueAnswers = [{ _class: 'hudson.model.Queue$WaitingItem', id: 9, cancelled: false }]
    expect(await abort(api, { job, queueId: 9 }, silentLogger, { timings })).toBe(
      'cancelled Jenkins queue item 9'
    )
    expect(api.calls).toEqual(['getQueueItem 9', 'cancelQueueItem 9'])
  })
})

describe('a left item whose build has no number yet', () => {
  it('is read again every 250 ms until the number shows, then that build is stopped at once', async () => {
    const api = new TimedApi()
    api.queueAnswers = [left(null), left(null), left(4)]
    api.buildAnswers = [{ building: true }]
    api.onStop = () => (api.buildAnswers = [{ building: false, result: 'ABORTED' }])
    expect(await abort(api, { job, queueId: 9 }, silentLogger, { timings })).toBe(
      'stopped Jenkins build #4 (stop; result ABORTED)'
    )
    expect(api.reads).toEqual([0, 250, 500])
    // No wait once the number shows: stop goes out when it was read.
    expect(api.sent).toEqual(['stop at 500'])
    expect(api.calls.slice(0, 4)).toEqual([
      'getQueueItem 9',
      'getQueueItem 9',
      'getQueueItem 9',
      'getBuild 4 tree'
    ])
  })

  it('after a cancel that came too late, the item is read again at once (not the look from before)', async () => {
    const api = new TimedApi()
    api.queueAnswers = [{ id: 9, _class: 'hudson.model.Queue$BuildableItem' }, left(null), left(4)]
    api.cancelOutcome = 'already-left'
    api.buildAnswers = [{ building: true }]
    api.onStop = () => (api.buildAnswers = [{ building: false, result: 'ABORTED' }])
    expect(await abort(api, { job, queueId: 9 }, silentLogger, { timings })).toBe(
      'stopped Jenkins build #4 (stop; result ABORTED)'
    )
    expect(api.reads).toEqual([0, 0, 250])
  })

  it('is read eight times in all, 250 ms apart, then given up without a build', async () => {
    const api = new TimedApi()
    api.queueAnswers = [left(null)]
    expect(await abort(api, { job, queueId: 9 }, silentLogger, { timings })).toBe(
      'queue item 9 was no longer queued and started no build'
    )
    expect(api.reads).toEqual([0, 250, 500, 750, 1000, 1250, 1500, 1750])
    // It is known to Jenkins: no search of the builds by queue id.
    expect(api.calls).not.toContain('recentBuilds')
  })

  it('a cancelled item (executable null) is not read again', async () => {
    const api = new TimedApi()
    api.queueAnswers = [left(null, true)]
    expect(await abort(api, { job, queueId: 9 }, silentLogger, { timings })).toBe(
      'queue item 9 was no longer queued and started no build'
    )
    expect(api.reads).toEqual([0])
  })

  it('an item Jenkins forgot between two reads: its build is found by queue id', async () => {
    const api = new TimedApi()
    api.queueAnswers = [left(null), notFound()]
    api.recent = [
      { number: 5, queueId: 10 },
      { number: 4, queueId: 9 }
    ]
    api.buildAnswers = [{ building: false, result: 'SUCCESS' }]
    expect(await abort(api, { job, queueId: 9 }, silentLogger, { timings })).toBe(
      'build #4 had already finished (SUCCESS)'
    )
    expect(api.reads).toEqual([0, 250])
    expect(api.calls).toEqual([
      'getQueueItem 9',
      'getQueueItem 9',
      'recentBuilds',
      'getBuild 4 tree'
    ])
  })
})

describe('stop, term and kill: which refusals end the escalation', () => {
  it('stop answered 404: the build cannot be stopped; a warning, no term', async () => {
    const api = new FakeApi()
    api.buildAnswers = [{ building: true }]
    api.stopErrors.stop = notFound()
    const { logger, said } = warnings()
    expect(await abort(api, { job, build }, logger, { timings })).toBe(
      'could not abort the Jenkins work (see the warning above)'
    )
    expect(said).toEqual(['Could not abort the Jenkins work: gone'])
    expect(api.calls).not.toContain('term')
  })

  it('kill answered 404 (no such action): the escalation ends there, the build still running', async () => {
    const api = new FakeApi()
    api.buildAnswers = [{ building: true }]
    api.stopErrors.kill = notFound()
    const { logger, said } = warnings()
    expect(await abort(api, { job, build }, logger, { timings })).toBe(
      'asked Jenkins to stop build #4, but it was still running when the step gave up'
    )
    expect(api.calls.filter(c => ['stop', 'term', 'kill'].includes(c))).toEqual([
      'stop',
      'term',
      'kill'
    ])
    expect(said).toEqual([])
  })

  it('term refused otherwise (403): says what was sent and why the end was not seen, no kill', async () => {
    const api = new FakeApi()
    api.buildAnswers = [{ building: true }]
    api.stopErrors.term = new JenkinsError('forbidden', 'alice lacks Job/Cancel', 403)
    expect(await abort(api, { job, build }, silentLogger, { timings })).toBe(
      'sent stop to Jenkins build #4, but could not see it end: alice lacks Job/Cancel'
    )
    expect(api.calls).not.toContain('kill')
  })
})

describe('what ended the build', () => {
  it('stop, then a result other than ABORTED: it had already finished', async () => {
    const api = new FakeApi()
    api.buildAnswers = [{ building: true }]
    api.onStop = () => (api.buildAnswers = [{ building: false, result: 'SUCCESS' }])
    expect(await abort(api, { job, build }, silentLogger, { timings })).toBe(
      'build #4 had already finished (SUCCESS)'
    )
  })

  it('term, then a result other than ABORTED: stopped by term', async () => {
    const api = new FakeApi()
    api.buildAnswers = [{ building: true }]
    api.onStop = how => {
      if (how === 'term') api.buildAnswers = [{ building: false, result: 'FAILURE' }]
    }
    expect(await abort(api, { job, build }, silentLogger, { timings })).toBe(
      'stopped Jenkins build #4 (term; result FAILURE)'
    )
  })

  it('stop, then no result at all: said as such', async () => {
    const api = new FakeApi()
    api.buildAnswers = [{ building: true }]
    api.onStop = () => (api.buildAnswers = [{ building: false, result: null }])
    expect(await abort(api, { job, build }, silentLogger, { timings })).toBe(
      'build #4 had already finished (no result)'
    )
  })
})

describe('the waits of the escalation', () => {
  it('without a budget: each step waits its own time, looking every pollMs', async () => {
    const api = new TimedApi()
    api.buildAnswers = [{ building: true }]
    expect(await abort(api, { job, build }, silentLogger, { timings })).toBe(
      'asked Jenkins to stop build #4, but it was still running when the step gave up'
    )
    expect(api.sent).toEqual(['stop at 0', 'term at 30', 'kill at 50'])
    // The look before acting, then stop's 30 ms (0..30), term's 20, kill's 10.
    expect(api.calls.filter(c => c === 'getBuild 4 tree')).toHaveLength(1 + 4 + 3 + 2)
  })

  it('with a budget: stop takes half of the time left, term half of the rest, kill the rest', async () => {
    const api = new TimedApi()
    api.buildAnswers = [{ building: true }]
    api.onStop = how => {
      if (how === 'kill') api.buildAnswers = [{ building: false, result: 'ABORTED' }]
    }
    const slow = {
      stopWaitMs: 60_000,
      termWaitMs: 60_000,
      killWaitMs: 60_000,
      pollMs: 50,
      shareCheckMs: 50
    }
    const until = Date.now() + 400
    expect(await abort(api, { job, build }, silentLogger, { timings: slow, until })).toBe(
      'stopped Jenkins build #4 (kill; result ABORTED)'
    )
    expect(api.sent).toEqual(['stop at 0', 'term at 200', 'kill at 300'])
  })

  it('a budget whose shares are longer than the waits: the waits as they are', async () => {
    const api = new TimedApi()
    api.buildAnswers = [{ building: true }]
    const until = Date.now() + 1000
    expect(await abort(api, { job, build }, silentLogger, { timings, until })).toMatch(
      /still running when the step gave up$/
    )
    expect(api.sent).toEqual(['stop at 0', 'term at 30', 'kill at 50'])
  })

  it('a budget already spent: each step is sent and looked at once', async () => {
    const api = new TimedApi()
    api.buildAnswers = [{ building: true }]
    const until = Date.now() - 1000
    expect(await abort(api, { job, build }, silentLogger, { timings, until })).toMatch(
      /still running when the step gave up$/
    )
    expect(api.sent).toEqual(['stop at 0', 'term at 0', 'kill at 0'])
    expect(api.calls.filter(c => c === 'getBuild 4 tree')).toHaveLength(1 + 3)
  })
})

describe('what the step knew of the work decides where to start', () => {
  const lostTrigger = { job, parameters: new Map<string, string | undefined>() }

  it('nothing at all: nothing to do, nothing asked', async () => {
    const api = new FakeApi()
    expect(await abort(api, { job }, silentLogger, { timings })).toBe(
      'nothing was running in Jenkins yet'
    )
    expect(api.calls).toEqual([])
  })

  it('a build and its queue item: the build is looked at, the queue is not', async () => {
    const api = new FakeApi()
    api.buildAnswers = [{ building: false, result: 'SUCCESS' }]
    expect(await abort(api, { job, queueId: 9, build }, silentLogger, { timings })).toBe(
      'build #4 had already finished (SUCCESS)'
    )
    expect(api.calls).toEqual(['getBuild 4 tree'])
  })

  it('a queue item known, and a lost trigger too: the item is what is cancelled, nothing looked for', async () => {
    const api = new FakeApi()
    api.queueAnswers = [{ id: 9 }]
    expect(await abort(api, { job, queueId: 9, lostTrigger }, silentLogger, { timings })).toBe(
      'cancelled Jenkins queue item 9'
    )
    expect(api.calls).toEqual(['getQueueItem 9', 'cancelQueueItem 9'])
  })

  it('a build known, and a lost trigger too: the build is what is stopped, nothing looked for', async () => {
    const api = new FakeApi()
    api.buildAnswers = [{ building: false, result: 'FAILURE' }]
    expect(await abort(api, { job, build, lostTrigger }, silentLogger, { timings })).toBe(
      'build #4 had already finished (FAILURE)'
    )
    expect(api.calls).toEqual(['getBuild 4 tree'])
  })
})

describe("the default timings (within the runner's 7.5 s between SIGINT and SIGTERM)", () => {
  it('stop waits 3 s, term 1.5 s, kill 1 s, looking every 250 ms', async () => {
    const api = new TimedApi()
    api.buildAnswers = [{ building: true }]
    expect(await abort(api, { job, build }, silentLogger)).toBe(
      'asked Jenkins to stop build #4, but it was still running when the step gave up'
    )
    expect(api.sent).toEqual(['stop at 0', 'term at 3000', 'kill at 4500'])
    expect(api.calls.filter(c => c === 'getBuild 4 tree')).toHaveLength(1 + 13 + 7 + 5)
  })
})

describe('the brief look before acting', () => {
  it('leaves no timer behind once answered (the post step exits without waiting on one)', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] })
    const api = new FakeApi()
    api.buildAnswers = [{ building: false, result: 'SUCCESS' }]
    expect(await abort(api, { job, build }, silentLogger, { timings })).toBe(
      'build #4 had already finished (SUCCESS)'
    )
    expect(vi.getTimerCount()).toBe(0)
  })
})

describe('onCancelSignals', () => {
  it("turns the runner's SIGINT into a cancel, says a second one is still being handled, and lets go", () => {
    const controller = new AbortController()
    const said: string[] = []
    const logger = { ...silentLogger, info: (m: string) => void said.push(m) }
    const before = { int: process.listeners('SIGINT'), term: process.listeners('SIGTERM') }
    const remove = onCancelSignals(controller, logger)
    // Only the handlers it added are called: the test runner may have its own.
    const added = (signal: NodeJS.Signals) =>
      process
        .listeners(signal)
        .filter(l => !before[signal === 'SIGINT' ? 'int' : 'term'].includes(l))
    expect(added('SIGINT')).toHaveLength(1)
    expect(added('SIGTERM')).toHaveLength(1)
    for (const handler of added('SIGINT')) handler('SIGINT')
    expect(controller.signal.aborted).toBe(true)
    expect(controller.signal.reason).toBe('cancelled')
    for (const handler of added('SIGTERM')) handler('SIGTERM')
    expect(said).toEqual([
      'Received SIGINT: the workflow was cancelled.',
      'Received SIGTERM again; still stopping the Jenkins work.'
    ])
    remove()
    expect(added('SIGINT')).toEqual([])
    expect(added('SIGTERM')).toEqual([])
  })

  it('a scan is named as left running, and why', () => {
    expect(scanLeft('org/repo')).toBe(
      "left the scan of org/repo running: shared by every request waiting for the project's branches"
    )
  })
})
