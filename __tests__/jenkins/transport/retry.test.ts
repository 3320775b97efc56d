import { afterEach, describe, expect, it, vi } from 'vitest'
import { Interrupted, JenkinsError } from '../../../src/jenkins/transport/errors.js'
import {
  pause,
  TransientFailure,
  parseRetryAfter,
  withRetry,
  type RetryOptions
} from '../../../src/jenkins/transport/retry.js'
import { silentLogger } from '../../fixtures/recording-logger.js'

function transient(retryAfterMs?: number): TransientFailure {
  return new TransientFailure(new JenkinsError('server', 'boom (503)', 503), '503', {
    retryAfterMs
  })
}

/**
 * A fake clock that only moves when the code waits; the waits are read back
 * from the debug log's "retry n/m in X ms" lines.
 */
function fakeTime(random = 0.5) {
  vi.useFakeTimers({ now: 1_000_000 })
  vi.spyOn(Math, 'random').mockReturnValue(random)
  const debug: string[] = []
  return {
    logger: { ...silentLogger, debug: (message: string) => debug.push(message) },
    sleeps: () => debug.map(line => Number(/ in (\d+) ms$/.exec(line)?.[1])),
    /** Runs a withRetry to its end, the fake clock moved through every wait. */
    async settle<T>(pending: Promise<T>): Promise<T | unknown> {
      const result = pending.catch((e: unknown) => e)
      await vi.runAllTimersAsync()
      return result
    }
  }
}

afterEach(() => {
  vi.useRealTimers()
  vi.restoreAllMocks()
})

function options(overrides: Partial<RetryOptions> = {}): RetryOptions {
  return {
    policy: { attempts: 4, baseDelayMs: 100, maxDelayMs: 1000 },
    logger: silentLogger,
    what: 'GET thing',
    ...overrides
  }
}

describe('parseRetryAfter', () => {
  it('reads delta-seconds', () => {
    expect(parseRetryAfter('0')).toBe(0)
    expect(parseRetryAfter('7')).toBe(7000)
  })

  it('reads an HTTP-date relative to now', () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('Wed, 21 Oct 2015 07:28:00 GMT') })
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:30 GMT')).toBe(30_000)
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:27:00 GMT')).toBe(0)
  })

  it('ignores absent or unreadable values', () => {
    expect(parseRetryAfter(undefined)).toBeUndefined()
    expect(parseRetryAfter('soon')).toBeUndefined()
    expect(parseRetryAfter('-5')).toBeUndefined()
  })
})

describe('withRetry', () => {
  it('retries transient failures until the operation succeeds', async () => {
    const time = fakeTime(0.5)
    let calls = 0
    const result = await time.settle(
      withRetry(
        async () => {
          calls++
          if (calls < 3) throw transient()
          return 'ok'
        },
        options({ logger: time.logger })
      )
    )
    expect(result).toBe('ok')
    expect(calls).toBe(3)
    expect(time.sleeps()).toEqual([50, 100])
  })

  it('uses full jitter over a window that doubles up to the maximum', async () => {
    const time = fakeTime(0.999)
    await time.settle(
      withRetry(
        async () => {
          throw transient()
        },
        options({
          logger: time.logger,
          policy: { attempts: 6, baseDelayMs: 100, maxDelayMs: 1000 }
        })
      )
    )
    expect(time.sleeps()).toEqual([99, 199, 399, 799, 999])
    vi.spyOn(Math, 'random').mockReturnValue(0)
    const again = fakeTime(0)
    await again.settle(
      withRetry(
        async () => {
          throw transient()
        },
        options({
          logger: again.logger,
          policy: { attempts: 2, baseDelayMs: 100, maxDelayMs: 1000 }
        })
      )
    )
    expect(again.sleeps()).toEqual([0])
  })

  it('gives up after the attempts with the last error', async () => {
    const time = fakeTime()
    let calls = 0
    const error = await time.settle(
      withRetry(async () => {
        calls++
        throw transient()
      }, options())
    )
    expect(calls).toBe(4)
    expect(error).toBeInstanceOf(JenkinsError)
    expect((error as JenkinsError).kind).toBe('server')
    expect((error as JenkinsError).message).toContain('after 4 attempts')
  })

  it('does not retry other errors', async () => {
    let calls = 0
    const failure = new JenkinsError('not-found', 'nope', 404)
    await expect(
      withRetry(async () => {
        calls++
        throw failure
      }, options())
    ).rejects.toBe(failure)
    expect(calls).toBe(1)
  })

  it('waits at least Retry-After', async () => {
    const time = fakeTime(0)
    let calls = 0
    await time.settle(
      withRetry(
        async () => {
          if (++calls === 1) throw transient(3000)
          return 'ok'
        },
        options({ logger: time.logger })
      )
    )
    expect(time.sleeps()).toEqual([3000])
  })

  it('caps a Retry-After by the time left: each wait takes half of it, none ends past the deadline', async () => {
    const time = fakeTime()
    const deadline = Date.now() + 4000
    let calls = 0
    const error = await time.settle(
      withRetry(
        async () => {
          calls++
          throw transient(50_000)
        },
        options({
          logger: time.logger,
          deadline,
          policy: { attempts: 10, baseDelayMs: 1, maxDelayMs: 1 }
        })
      )
    )
    expect(time.sleeps()).toEqual([2000, 1000, 500, 250])
    expect(calls).toBe(5)
    expect(Date.now()).toBeLessThanOrEqual(deadline)
    expect((error as JenkinsError).message).toContain('no time left before the deadline')
  })

  it('with a signal, running out of time waits for the signal (the step timeout) instead of failing early', async () => {
    const controller = new AbortController()
    const started = Date.now()
    setTimeout(() => controller.abort('timeout'), 300)
    const error = await withRetry(
      async () => {
        throw transient()
      },
      options({ deadline: started + 300, signal: controller.signal })
    ).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Interrupted)
    expect((error as Interrupted).sent).toBe(false)
  })

  it('a retry wait ends at once when the signal fires, even a long Retry-After', async () => {
    const controller = new AbortController()
    const pending = withRetry(
      async () => {
        throw transient(50_000)
      },
      options({ deadline: Date.now() + 3_600_000, signal: controller.signal })
    ).catch((e: unknown) => e)
    await new Promise(resolve => setTimeout(resolve, 20))
    controller.abort('cancelled')
    const error = await pending
    expect(error).toBeInstanceOf(Interrupted)
    expect((error as Error).message).toMatch(/Stopped waiting to retry .*\(503, Retry-After 50 s\)/)
    // The failure it was waiting out, for the step's message.
    expect((error as Interrupted).lastFailure).toBe('boom (503)')
  })

  it('a failure with maxAttempts is tried no more often than that', async () => {
    const time = fakeTime(0)
    let calls = 0
    const error = await time.settle(
      withRetry(
        async () => {
          calls++
          throw new TransientFailure(new JenkinsError('html', 'login page'), 'html', {
            maxAttempts: 3
          })
        },
        options({ policy: { attempts: 12, baseDelayMs: 1, maxDelayMs: 1 } })
      )
    )
    expect(calls).toBe(3)
    expect((error as JenkinsError).message).toBe('login page (after 3 attempts in 0 ms)')
  })

  it('logs each retry at debug level', async () => {
    const time = fakeTime()
    const debug: string[] = []
    let calls = 0
    await time.settle(
      withRetry(
        async () => {
          if (++calls < 3) throw transient()
          return 1
        },
        options({ logger: { ...silentLogger, debug: message => debug.push(message) } })
      )
    )
    expect(debug).toHaveLength(2)
    expect(debug[0]).toMatch(/^GET thing: 503; retry 1\/3 in \d+ ms$/)
  })

  /** A try that takes 30 s of the fake clock and fails as a silent Jenkins does. */
  async function silentTry(): Promise<never> {
    vi.setSystemTime(Date.now() + 30_000)
    throw new TransientFailure(
      new JenkinsError('timeout', 'No answer from Jenkins at http://ci to job within 30.0 s'),
      'timeout'
    )
  }

  it('says retries in the normal log once the request has waited notice.afterMs, with the whole time', async () => {
    const time = fakeTime(0.5)
    const said: string[] = []
    const error = await time.settle(
      withRetry(
        silentTry,
        options({
          policy: { attempts: 3, baseDelayMs: 1000, maxDelayMs: 10_000 },
          notice: { afterMs: 10_000, say: message => said.push(message) > 0 }
        })
      )
    )
    expect(said).toEqual([
      'No answer from Jenkins at http://ci to job within 30.0 s; trying again in 0.5 s (try 2 of 3, 30 s since the first)',
      'No answer from Jenkins at http://ci to job within 30.0 s; trying again in 1.0 s (try 3 of 3, 1 min 1 s since the first)'
    ])
    // The give-up names every try and the whole wait, not only the last try's 30 s.
    expect((error as JenkinsError).message).toBe(
      'No answer from Jenkins at http://ci to job within 30.0 s (after 3 attempts in 1 min 32 s)'
    )
  })

  it('leaves retries before notice.afterMs to the debug log', async () => {
    const time = fakeTime()
    const said: string[] = []
    let calls = 0
    await time.settle(
      withRetry(
        async () => {
          if (++calls < 3) throw transient()
          return 1
        },
        options({ notice: { afterMs: 10_000, say: message => said.push(message) > 0 } })
      )
    )
    expect(calls).toBe(3)
    expect(said).toEqual([])
  })
})

describe('pause', () => {
  it('a cancel or the step timeout: "the step was stopped"', async () => {
    const controller = new AbortController()
    const waiting = pause(60_000, controller.signal, 'retry GET job')
    controller.abort()
    await expect(waiting).rejects.toThrow(
      new Interrupted('Stopped waiting to retry GET job: the step was stopped', { sent: false })
    )
  })

  it("a budget's own clock (the post step's): says the time allowed ran out", async () => {
    const waiting = pause(
      60_000,
      AbortSignal.timeout(10),
      'retry GET the CSRF crumb (ECONNREFUSED)'
    )
    await expect(waiting).rejects.toThrow(
      'Stopped waiting to retry GET the CSRF crumb (ECONNREFUSED): the time allowed for it ran out'
    )
  })
})
