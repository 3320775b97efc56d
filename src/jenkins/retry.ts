import type { Logger } from '../logger.js'
import { JenkinsError } from './errors.js'

/** How hard to retry a transient failure. */
export interface RetryPolicy {
  /** Total tries, the first included (1 = no retry). */
  attempts: number
  /** Cap of the first backoff window; each retry doubles it. */
  baseDelayMs: number
  /** Largest backoff window. */
  maxDelayMs: number
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  attempts: 5,
  baseDelayMs: 500,
  maxDelayMs: 10_000
}

/** A Retry-After longer than this is not waited for when there is no deadline to bound it. */
const MAX_RETRY_AFTER_WITHOUT_DEADLINE_MS = 60_000

/**
 * Thrown by an operation to ask for another try. `error` is what the caller
 * gets when no try is left.
 */
export class TransientFailure extends Error {
  constructor(
    readonly error: JenkinsError,
    /** Short reason for the debug log, e.g. '503' or 'ECONNRESET'. */
    readonly reason: string,
    /** From a Retry-After header, when the server gave one. */
    readonly retryAfterMs?: number
  ) {
    super(error.message)
    this.name = 'TransientFailure'
  }
}

/**
 * Retry-After is either delta-seconds or an HTTP-date (RFC 9110 10.2.3).
 * Returns milliseconds to wait, or undefined when absent or unreadable.
 */
export function parseRetryAfter(
  value: string | undefined,
  now: number = Date.now()
): number | undefined {
  if (value === undefined) return undefined
  const text = value.trim()
  if (/^\d+$/.test(text)) return Number(text) * 1000
  if (!/[a-z]/i.test(text)) return undefined
  const date = Date.parse(text)
  if (Number.isNaN(date)) return undefined
  return Math.max(0, date - now)
}

/**
 * Full-jitter exponential backoff: a uniform wait in [0, min(max, base * 2^retry)).
 * Jitter spreads the retries of many runners hitting one Jenkins after a restart.
 */
export function backoffDelay(
  retry: number,
  policy: RetryPolicy,
  random: () => number = Math.random
): number {
  const window = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry)
  return Math.floor(random() * window)
}

export interface RetryOptions {
  policy: RetryPolicy
  /** Epoch ms: no wait may end after it. */
  deadline?: number
  logger: Logger
  /** What is being done, for the debug log, e.g. "GET job 'a/b'". Must hold no secret. */
  what: string
  sleep?: (ms: number) => Promise<void>
  now?: () => number
  random?: () => number
}

const defaultSleep = (ms: number): Promise<void> =>
  new Promise(resolve => {
    setTimeout(resolve, ms)
  })

/**
 * Runs `operation` until it returns, throws something other than
 * TransientFailure, runs out of tries, or the next wait would pass the
 * deadline. On giving up, the last failure's JenkinsError is thrown.
 */
export async function withRetry<T>(
  operation: (attempt: number) => Promise<T>,
  options: RetryOptions
): Promise<T> {
  const { policy, deadline, logger, what } = options
  const sleep = options.sleep ?? defaultSleep
  const now = options.now ?? Date.now
  const attempts = Math.max(1, Math.floor(policy.attempts))
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation(attempt)
    } catch (error) {
      if (!(error instanceof TransientFailure)) throw error
      if (attempt >= attempts) throw giveUp(error.error, `after ${attempt} attempts`)
      let delay = backoffDelay(attempt - 1, policy, options.random)
      if (error.retryAfterMs !== undefined) {
        const cap = deadline === undefined ? MAX_RETRY_AFTER_WITHOUT_DEADLINE_MS : Infinity
        if (error.retryAfterMs > cap) {
          throw giveUp(
            error.error,
            `Jenkins asked to retry after ${Math.round(error.retryAfterMs / 1000)} s`
          )
        }
        delay = Math.max(delay, error.retryAfterMs)
      }
      if (deadline !== undefined && now() + delay > deadline) {
        throw giveUp(error.error, 'no time left before the deadline to retry')
      }
      logger.debug(`${what}: ${error.reason}; retry ${attempt}/${attempts - 1} in ${delay} ms`)
      await sleep(delay)
    }
  }
}

function giveUp(error: JenkinsError, why: string): JenkinsError {
  return new JenkinsError(error.kind, `${error.message} (${why})`, error.status)
}
