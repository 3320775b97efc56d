import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { BuildsFollower } from '../../src/follow/follow-builds.js'
import {
  ONE_BUILD_POLICY,
  type ConsoleFollower,
  type StartSeen
} from '../../src/follow/schedule.js'
import type { Build, BuildRef, JobPath } from '../../src/jenkins/model/types.js'
import { Interrupted, JenkinsError } from '../../src/jenkins/transport/errors.js'
import type { ConsolePoll } from '../../src/follow/log-stream.js'
import type { Logger } from '../../src/util/logger.js'
import { silentLogger } from '../fixtures/recording-logger.js'
import { DEFAULT_POLL_POLICY, type PollPolicy } from '../../src/follow/poll-policy.js'
import { StepAborted } from '../../src/util/wait.js'
import { FakeApi, networkError, notFound } from '../fixtures/fake-api.js'

/**
 * The follower's clock and waits, virtual: Date moves only by the
 * waits it asks for, exactly, so the policy's few milliseconds (a 40 ms
 * follow-up, a 5 ms confirmation) pass the same on a loaded machine, where
 * one real poll can take longer than the whole bound. Each wait still yields
 * to the event loop (a real timer, such as the abort below, can fire) and
 * ends early on the signal, as util/wait.ts's sleep does.
 */
vi.mock('../../src/util/wait.js', async importOriginal => {
  const actual = await importOriginal<typeof import('../../src/util/wait.js')>()
  const { vi: clock } = await import('vitest')
  return {
    ...actual,
    sleep: async (ms: number, signal?: AbortSignal): Promise<void> => {
      actual.throwIfAborted(signal)
      await new Promise(resolve => setImmediate(resolve))
      actual.throwIfAborted(signal)
      clock.setSystemTime(Date.now() + Math.max(0, ms))
    }
  }
})
/** Only Date is virtual: a real timer (the abort below) still fires. */
beforeEach(() => vi.useFakeTimers({ toFake: ['Date'], now: 1_700_000_000_000 }))
afterEach(() => vi.useRealTimers())

/** The default policy in milliseconds instead of seconds. */
const fast: PollPolicy = {
  ...DEFAULT_POLL_POLICY,
  liveMs: 2,
  quietAfterMs: 10,
  quietMaxMs: 5,
  youngMs: 1,
  slowMs: 5,
  nearMs: 1,
  spreadFloorMs: 1,
  gapAimMs: 1,
  followUpMs: 1,
  confirmAfterMs: 5,
  followUpForMs: 40,
  hintPauseMs: 10,
  queueMaxMs: 2
}

/** A console that answers the scripted polls in order (the last one repeats) and records notices. */
function scriptedConsole(answers: Array<Partial<ConsolePoll>>) {
  const notices: string[] = []
  let polls = 0
  return {
    notices,
    get polls() {
      return polls
    },
    async poll(): Promise<ConsolePoll> {
      const answer = answers[Math.min(polls++, answers.length - 1)] ?? {}
      return { moreData: true, grew: false, finished: false, ...answer }
    },
    notice: (message: string) => void notices.push(message)
  }
}
const job = ['team', 'deploy']

interface OneBuildOptions {
  logger?: Logger
  signal?: AbortSignal
  leftWithoutBuildMs?: number
}

/**
 * One build on the engine (follow-builds.ts) with ONE_BUILD_POLICY, as the
 * step follows a lone `job`: its queue item to its start, and its build to
 * its end; what cannot be followed further ends run() with the error.
 */
function follower(api: FakeApi, o: OneBuildOptions = {}) {
  const logger = o.logger ?? silentLogger
  type Hooks = ConstructorParameters<typeof BuildsFollower>[0]['hooks']
  // What cannot be followed further ends the run with the error, as a lone `job` fails the step.
  let lost: Error | undefined
  const engine = (hooks: Partial<Hooks>) => ({
    follower: new BuildsFollower({
      api: Object.assign(api, { describeRun: async () => undefined }),
      logger,
      signal: o.signal ?? new AbortController().signal,
      policy: {
        ...ONE_BUILD_POLICY,
        poll: fast,
        leftWithoutBuildMs: o.leftWithoutBuildMs ?? ONE_BUILD_POLICY.leftWithoutBuildMs
      },
      hooks: {
        waiting: () => undefined,
        started: () => undefined,
        ended: () => undefined,
        inputs: () => undefined,
        failed: (_, error) => void (lost ??= error),
        ...hooks
      }
    }),
    async run(): Promise<void> {
      await this.follower.run()
      if (lost) throw lost
    }
  })
  return {
    async waitForStart(queueId: number): Promise<StartSeen & { ref: BuildRef }> {
      let started: (StartSeen & { ref: BuildRef }) | undefined
      const f = engine({
        waiting: (_, why) => logger.info(`Waiting in the Jenkins queue: ${why}`),
        started: (track, ref, start) => {
          started = { ref, ...start }
          f.follower.drop(track)
        }
      })
      f.follower.addQueued(job as JobPath, queueId)
      await f.run()
      if (!started) throw new Error('no start')
      return started
    },
    async waitForEnd(
      ref: BuildRef,
      { console }: { console?: ConsoleFollower } = {}
    ): Promise<Build> {
      let final: Build | undefined
      const f = engine({ ended: (_, build) => void (final = build) })
      f.follower.addRunning(ref, { console })
      await f.run()
      if (!final) throw new Error('no end')
      return final
    }
  }
}

function recorder(): Logger & { lines: string[] } {
  const lines: string[] = []
  return {
    lines,
    debug: m => lines.push(`debug ${m}`),
    info: m => lines.push(`info ${m}`),
    warning: m => lines.push(`warning ${m}`)
  }
}

describe('waitForStart', () => {
  it('polls the queue item until it has an executable, logging each new why once', async () => {
    const api = new FakeApi()
    api.queueAnswers = [
      { id: 7, why: 'In the quiet period. Expires in 4.9 sec' },
      { id: 7, why: 'In the quiet period. Expires in 4.9 sec' },
      { id: 7, why: 'Waiting for next available executor' },
      { _class: 'hudson.model.Queue$LeftItem', id: 7, why: null, executable: null },
      {
        _class: 'hudson.model.Queue$LeftItem',
        id: 7,
        executable: { number: 12, url: 'http://other/job/x/12/' }
      }
    ]
    const log = recorder()
    const started = await follower(api, { logger: log }).waitForStart(7)
    expect(started.ref).toEqual({
      job,
      number: 12,
      url: 'https://ci.example.com/jenkins/job/team/job/deploy/12/'
    })
    expect(api.calls.filter(c => c.startsWith('getQueueItem'))).toHaveLength(5)
    expect(log.lines.filter(l => l.startsWith('info'))).toEqual([
      'info Waiting in the Jenkins queue: In the quiet period. Expires in 4.9 sec',
      'info Waiting in the Jenkins queue: Waiting for next available executor'
    ])
    expect(api.calls).not.toContain('getBuild lastBuild')
  })

  it('fails clearly when the queue item was cancelled', async () => {
    const api = new FakeApi()
    api.queueAnswers = [
      { _class: 'hudson.model.Queue$LeftItem', id: 3, cancelled: true, executable: null }
    ]
    await expect(follower(api).waitForStart(3)).rejects.toThrow(
      /queue item 3 of team\/deploy was cancelled/
    )
  })

  it('takes the decoded queue item as it is (jenkins/reads refuses a number that is no build number)', async () => {
    const api = new FakeApi()
    api.queueAnswers = [{ id: 3, inQueueSince: 1000, executable: { number: 4, url: '' } }]
    const started = await follower(api).waitForStart(3)
    expect(started.ref.number).toBe(4)
    expect(started.inQueueSince).toBe(1000)
  })

  it('rides out transient errors', async () => {
    const api = new FakeApi()
    api.queueAnswers = [
      networkError(),
      networkError(),
      { id: 3, executable: { number: 4, url: '' } }
    ]
    expect((await follower(api).waitForStart(3)).ref.number).toBe(4)
  })

  it('does not ride out other errors', async () => {
    const api = new FakeApi()
    api.queueAnswers = [new JenkinsError('bad-credentials', 'rejected', 401)]
    await expect(follower(api).waitForStart(3)).rejects.toThrow('rejected')
  })

  it('finds the build by queue id when the item expired', async () => {
    const api = new FakeApi()
    api.queueAnswers = [notFound()]
    api.recent = [
      { number: 9, queueId: 5 },
      { number: 8, queueId: 3 }
    ]
    expect((await follower(api).waitForStart(3)).ref.number).toBe(8)
  })

  it('says so when the item expired and no build has its queue id', async () => {
    const api = new FakeApi()
    api.queueAnswers = [notFound()]
    api.recent = [{ number: 9, queueId: 5 }]
    await expect(follower(api).waitForStart(3)).rejects.toThrow(/Queue item 3 .* gone/)
  })

  it('gives up on an item that left without a build after the bound', async () => {
    const api = new FakeApi()
    api.queueAnswers = [{ _class: 'hudson.model.Queue$LeftItem', id: 3, executable: null }]
    await expect(follower(api, { leftWithoutBuildMs: 5 }).waitForStart(3)).rejects.toThrow(
      /left the queue without starting a build/
    )
  })

  it('stops waiting when the signal fires', async () => {
    const api = new FakeApi()
    api.queueAnswers = [{ id: 3, why: 'Waiting for next available executor' }]
    const controller = new AbortController()
    setTimeout(() => controller.abort('timeout'), 20)
    const error = await follower(api, { signal: controller.signal })
      .waitForStart(3)
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(StepAborted)
    expect((error as StepAborted).reason).toBe('timeout')
  })
})

describe('waitForEnd', () => {
  const ref = { job, number: 12, url: 'u' }

  it('keeps polling while a Pipeline has a result but is still building', async () => {
    const api = new FakeApi()
    api.buildAnswers = [
      { building: true, result: null },
      { building: true, result: 'FAILURE' },
      { building: true, result: 'FAILURE' },
      { building: false, result: 'FAILURE', duration: 1234 },
      { building: false, result: 'FAILURE', duration: 1234, displayName: 'full' }
    ]
    const build = await follower(api).waitForEnd(ref)
    expect(build.result).toBe('FAILURE')
    expect(build.displayName).toBe('full')
    // Four narrow polls, then one full read of the finished build.
    expect(api.calls).toEqual([
      'getBuild 12 tree',
      'getBuild 12 tree',
      'getBuild 12 tree',
      'getBuild 12 tree',
      'getBuild 12'
    ])
  })

  it('with a console, polls only the console until it is complete, then reads the build once', async () => {
    const api = new FakeApi()
    const console = scriptedConsole([{ grew: true }, {}, { grew: true }, { moreData: false }])
    api.buildAnswers = [{ building: false, result: 'SUCCESS' }]
    const build = await follower(api).waitForEnd(ref, { console })
    expect(console.polls).toBe(4)
    expect(build.result).toBe('SUCCESS')
    expect(api.calls).toEqual(['getBuild 12'])
  })

  it('with a complete console but a build still finishing, polls the build until it is over', async () => {
    const api = new FakeApi()
    const console = scriptedConsole([{ moreData: false }])
    api.buildAnswers = [
      { building: true },
      { building: true },
      { building: false, result: 'UNSTABLE' }
    ]
    const build = await follower(api).waitForEnd(ref, { console })
    expect(build.result).toBe('UNSTABLE')
    expect(api.calls).toEqual(['getBuild 12', 'getBuild 12', 'getBuild 12'])
  })

  it('after a Finished: line, follows the console up and confirms the end once if the log stays open', async () => {
    const api = new FakeApi()
    const open = Array.from({ length: 12 }, () => ({ finished: true }))
    const console = scriptedConsole([{ grew: true }, ...open, { moreData: false }])
    api.buildAnswers = [
      { building: false, result: 'FAILURE' },
      { building: false, result: 'FAILURE', displayName: 'final' }
    ]
    const build = await follower(api).waitForEnd(ref, { console })
    expect(build.displayName).toBe('final')
    expect(api.calls).toEqual(['getBuild 12 tree', 'getBuild 12'])
    expect(console.polls).toBe(14)
  })

  it('takes a Finished: line the build printed itself back when the build says it is running', async () => {
    const api = new FakeApi()
    const spoof = Array.from({ length: 8 }, () => ({ finished: true }))
    const console = scriptedConsole([...spoof, { grew: true }, {}, { moreData: false }])
    api.buildAnswers = [{ building: true }, { building: false, result: 'SUCCESS' }]
    const build = await follower(api).waitForEnd(ref, { console })
    expect(build.result).toBe('SUCCESS')
    expect(api.calls).toEqual(['getBuild 12 tree', 'getBuild 12'])
  })

  it('gives up on a log Jenkins keeps open long after the build finished, and says so', async () => {
    const api = new FakeApi()
    const console = scriptedConsole([{ finished: true }])
    api.buildAnswers = [{ building: false, result: 'SUCCESS' }]
    const build = await follower(api).waitForEnd(ref, { console })
    expect(build.result).toBe('SUCCESS')
    expect(api.calls).toEqual(['getBuild 12 tree', 'getBuild 12'])
    expect(console.notices).toEqual([
      'Jenkins has not closed the console of #12 40 ms after the build finished; the rest is at uconsole'
    ])
  })

  it('a console that keeps failing: the build JSON tells the end, the rest of the console is given up after the bound', async () => {
    const api = new FakeApi()
    const notices: string[] = []
    let polls = 0
    const console = {
      async poll(): Promise<ConsolePoll> {
        polls++
        throw networkError()
      },
      notice: (message: string) => void notices.push(message)
    }
    api.buildAnswers = [
      { building: true },
      { building: false, result: 'SUCCESS' },
      { building: false, result: 'SUCCESS', displayName: 'final' }
    ]
    const build = await follower(api).waitForEnd(ref, { console })
    expect(build.displayName).toBe('final')
    // A build read after each failed console read until the end shows, then
    // none until the give-up's final read.
    expect(api.calls).toEqual(['getBuild 12 tree', 'getBuild 12 tree', 'getBuild 12'])
    expect(polls).toBeGreaterThan(2)
    expect(notices).toEqual([
      'Could not read the rest of the console of #12 40 ms after the build finished (socket hang up); it is at uconsole'
    ])
  })

  it('one failed console read while the build runs: one build read, then the console again to its end', async () => {
    const api = new FakeApi()
    let polls = 0
    const console = {
      async poll(): Promise<ConsolePoll> {
        polls++
        if (polls === 2) throw networkError()
        return { moreData: polls < 4, grew: true, finished: false }
      },
      notice: () => undefined
    }
    api.buildAnswers = [{ building: true }, { building: false, result: 'SUCCESS' }]
    const build = await follower(api).waitForEnd(ref, { console })
    expect(build.result).toBe('SUCCESS')
    expect(polls).toBe(4)
    expect(api.calls).toEqual(['getBuild 12 tree', 'getBuild 12'])
  })

  it('rides out a socket hang up hours into the build', async () => {
    const api = new FakeApi()
    api.buildAnswers = [{ building: true }, networkError(), { building: false, result: 'SUCCESS' }]
    expect((await follower(api).waitForEnd(ref)).result).toBe('SUCCESS')
  })

  it('stopped while a read is in flight: ends with what the read threw (what the step was waiting for)', async () => {
    const controller = new AbortController()
    const api = new FakeApi()
    // The client cuts its request when the step's signal fires.
    api.getBuild = () =>
      new Promise((_, reject) => {
        controller.signal.addEventListener('abort', () =>
          reject(
            new Interrupted('Stopped waiting for Jenkins at ci: timed out', {
              sent: true,
              lastFailure: 'HTTP 503'
            })
          )
        )
        setImmediate(() => controller.abort('timeout'))
      })
    const error = await follower(api, { signal: controller.signal })
      .waitForEnd(ref)
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Interrupted)
    expect((error as Interrupted).lastFailure).toBe('HTTP 503')
  })
})
