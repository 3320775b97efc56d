/** An upload's bounds (limits.ts `sending`): the wait for the answer counts from the last byte sent. */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { NetworkFailure } from '../../../src/jenkins/transport/network-errors.js'
import { ExchangeLimits } from '../../../src/jenkins/transport/limits.js'

afterEach(() => {
  vi.useRealTimers()
})

const settings = { requestTimeoutMs: 1000, stallMs: 10_000, stallBytes: 1 }

describe('ExchangeLimits while uploading', () => {
  it('a body still going out keeps the exchange alive past the request timeout', () => {
    vi.useFakeTimers()
    const limits = new ExchangeLimits(settings, 'the trigger', 'https://ci')
    for (let i = 0; i < 10; i++) {
      vi.advanceTimersByTime(900)
      limits.sending()
    }
    expect(limits.signal.aborted).toBe(false)
    limits.release()
  })

  it('an upload that stops going out (or an answer that never comes) ends a request timeout after the last byte', () => {
    vi.useFakeTimers()
    const limits = new ExchangeLimits(settings, 'the trigger', 'https://ci')
    vi.advanceTimersByTime(900)
    limits.sending()
    vi.advanceTimersByTime(999)
    expect(limits.signal.aborted).toBe(false)
    vi.advanceTimersByTime(1)
    expect(limits.signal.aborted).toBe(true)
    const reason = limits.signal.reason as NetworkFailure
    expect(reason).toBeInstanceOf(NetworkFailure)
    expect(reason.message).toBe('No answer from Jenkins at https://ci to the trigger within 1.0 s')
  })

  it('the deadline still bounds it', () => {
    vi.useFakeTimers()
    const limits = new ExchangeLimits(
      { ...settings, deadline: Date.now() + 1500 },
      'the trigger',
      'https://ci'
    )
    for (let i = 0; i < 3; i++) {
      vi.advanceTimersByTime(500)
      limits.sending()
    }
    expect(limits.signal.aborted).toBe(true)
  })
})
