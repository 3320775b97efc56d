import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { ExchangeLimits, type LimitSettings } from '../../../src/jenkins/transport/limits.js'
import { NetworkFailure } from '../../../src/jenkins/transport/network-errors.js'
import { SilenceNotices } from '../../../src/jenkins/transport/silence.js'
import { silentLogger } from '../../fixtures/recording-logger.js'

const SERVER = 'http://ci.example.com'

function settings(extra: Partial<LimitSettings> = {}): LimitSettings {
  return { requestTimeoutMs: 5_000, stallMs: 5_000, stallBytes: 1, ...extra }
}

describe('SilenceNotices', () => {
  it('says lines in the normal log, one every 4 s at most', () => {
    let now = 1_000_000
    const info: string[] = []
    const notices = new SilenceNotices(
      { ...silentLogger, info: message => info.push(message) },
      () => 10_000,
      () => now
    )
    expect(notices.say('first')).toBe(true)
    now += 3_999
    expect(notices.say('too soon')).toBe(false)
    now += 1
    expect(notices.say('second')).toBe(true)
    expect(info).toEqual(['first', 'second'])
  })
})

describe('ExchangeLimits: what a silent exchange says', () => {
  it('tells once that the headers have not come after slow.afterMs', async () => {
    const waited: number[] = []
    const bounds = new ExchangeLimits(
      settings({ slow: { afterMs: 20, notify: ms => waited.push(ms) } }),
      "job 'a'",
      SERVER
    )
    await sleep(120)
    bounds.release()
    expect(waited).toHaveLength(1)
    expect(waited[0]).toBeGreaterThanOrEqual(19)
  })

  it('tells nothing when the exchange ended before', async () => {
    const waited: number[] = []
    const bounds = new ExchangeLimits(
      settings({ slow: { afterMs: 20, notify: ms => waited.push(ms) } }),
      "job 'a'",
      SERVER
    )
    bounds.release()
    await sleep(60)
    expect(waited).toEqual([])
  })

  it('a shorter headersTimeoutMs cuts the wait for headers, and names that limit', async () => {
    const bounds = new ExchangeLimits(settings({ headersTimeoutMs: 100 }), "job 'a'", SERVER)
    await new Promise(resolve => bounds.signal.addEventListener('abort', resolve))
    const reason = bounds.signal.reason as NetworkFailure
    expect(reason).toBeInstanceOf(NetworkFailure)
    expect(reason.reason).toBe('timeout')
    expect(reason.message).toBe(`No answer from Jenkins at ${SERVER} to job 'a' within 0.1 s`)
  })

  it("a cut by the step's signal says the whole time the request waited, over all its tries", () => {
    const controller = new AbortController()
    const bounds = new ExchangeLimits(
      settings({ signal: controller.signal, attempt: { started: Date.now() - 40_000, number: 3 } }),
      "job 'a'",
      SERVER
    )
    controller.abort()
    expect((bounds.signal.reason as Error).message).toMatch(
      /^Stopped waiting for Jenkins at http:\/\/ci\.example\.com: no answer to job 'a' after 40\.\d s \(3 tries; this one 0\.\d s\)$/
    )
  })

  it('the first try says its own time only', () => {
    const controller = new AbortController()
    const bounds = new ExchangeLimits(
      settings({ signal: controller.signal, attempt: { started: Date.now(), number: 1 } }),
      "job 'a'",
      SERVER
    )
    controller.abort()
    expect((bounds.signal.reason as Error).message).toMatch(/: no answer to job 'a' after 0\.\d s$/)
  })
})
