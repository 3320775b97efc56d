import type { Logger } from '../../util/logger.js'
import { formatDuration } from '../../util/duration.js'
import { Interrupted, JenkinsError, stopReason } from './errors.js'
import { seconds } from './limits.js'

/** How hard to retry a transient failure. */
export const DEFAULT_RETRY_POLICY = {
  /** Total tries, the first included (1 = no retry). */
  attempts: 5,
  /** Cap of the first backoff window; each retry doubles it. */
  baseDelayMs: 500,
  /** Largest backoff window. */
  maxDelayMs: 10_000
}
export type RetryPolicy = typeof DEFAULT_RETRY_POLICY

/** A Retry-After longer than this is not waited for when there is no deadline to bound it. */
const MAX_RETRY_AFTER_WITHOUT_DEADLINE_MS = 60_000
/** Less time than this before the deadline is not worth another try. */
const MIN_ATTEMPT_MS = 500

/**
 * Thrown by an operation to ask for another try. `error` is what the caller
 * gets when no try is left.
 */
export class TransientFailure extends Error {
  override readonly name = 'TransientFailure'

  constructor(
    readonly error: JenkinsError,
    /** Short reason for the debug log, e.g. '503' or 'ECONNRESET'. */
    readonly reason: string,
    readonly limits: {
      /** From a Retry-After header, when the server gave one. */
      retryAfterMs?: number
      /** At most this many tries for this kind of failure (an HTML page, invalid JSON: a glitch, unless it repeats). */
      maxAttempts?: number
    } = {}
  ) {
    super(error.message)
  }
}

/**
 * Retry-After is either delta-seconds or an HTTP-date (RFC 9110 10.2.3).
 * Returns milliseconds to wait, or undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const text = value.trim()
  if (/^\d+$/.test(text)) return Number(text) * 1000
  if (!/[a-z]/i.test(text)) return undefined
  const date = Date.parse(text)
  if (Number.isNaN(date)) return undefined
  return Math.max(0, date - Date.now())
}

export interface RetryOptions {
  policy: RetryPolicy
  /** Epoch ms: no wait may end after it. */
  deadline?: number
  logger: Logger
  /** What is being done, for the debug log, e.g. "GET job 'a/b'". Must hold no secret. */
  what: string
  /** The client's signal: a wait ends at once when it fires, with an Interrupted error. */
  signal?: AbortSignal
  /**
   * Retries once the request has waited `afterMs` in all are said in the
   * normal log through `say` (requester.ts: rate-limited), not only as debug
   * lines: a Jenkins that does not answer is news.
   */
  notice?: { afterMs: number; say: (message: string) => void }
}

/** Waits `ms`; rejects with Interrupted as soon as `signal` fires (`lastFailure`: the failure a retry waited out). */
export function pause(
  ms: number,
  signal: AbortSignal | undefined,
  what: string,
  { lastFailure }: { lastFailure?: string } = {}
): Promise<void> {
  return new Promise((resolve, reject) => {
    const stop = (): void => {
      clearTimeout(timer)
      reject(
        new Interrupted(`Stopped waiting to ${what}: ${stopReason(signal)}`, {
          sent: false,
          lastFailure
        })
      )
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', stop)
      resolve()
    }, ms)
    if (signal?.aborted) stop()
    else signal?.addEventListener('abort', stop, { once: true })
  })
}

/**
 * Runs `operation` until it returns, throws something other than
 * TransientFailure, runs out of tries, or there is no time left before the
 * deadline. Every wait (backoff, Retry-After) is capped by the time left, so
 * that the next try still comes before the deadline. On giving up, the last
 * failure's JenkinsError is thrown.
 *
 * With a signal that fires at the deadline (the step's timeout), a failure
 * with no time left to retry waits for it instead: running out of time is
 * then the step's timeout, handled as one (remote work stopped), and not a
 * failure that leaves it running.
 */
export async function withRetry<T>(
  operation: (attempt: number, started: number) => Promise<T>,
  options: RetryOptions
): Promise<T> {
  const { policy, deadline, logger, what, signal } = options
  const attempts = Math.max(1, Math.floor(policy.attempts))
  const started = Date.now()
  // Every give-up says the whole time waited, not only the last try's.
  const tried = (attempt: number): string =>
    `after ${attempt} attempts in ${formatDuration(Date.now() - started)}`
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation(attempt, started)
    } catch (error) {
      if (!(error instanceof TransientFailure)) throw error
      const { retryAfterMs, maxAttempts } = error.limits
      const asked =
        retryAfterMs === undefined ? '' : `, Retry-After ${Math.round(retryAfterMs / 1000)} s`
      // A wait that the signal ends says what it was waiting out.
      const failure = error.error.message
      const sleep = (ms: number) =>
        pause(ms, signal, `retry ${what} (${error.reason}${asked})`, { lastFailure: failure })
      const allowed = Math.min(attempts, maxAttempts ?? attempts)
      if (attempt >= allowed) throw giveUp(error.error, tried(attempt))
      // Full jitter: a uniform wait in [0, min(max, base * 2^retry)) spreads
      // the retries of many runners hitting one Jenkins after a restart.
      const window = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1))
      let delay = Math.floor(Math.random() * window)
      if (retryAfterMs !== undefined) {
        if (deadline === undefined && retryAfterMs > MAX_RETRY_AFTER_WITHOUT_DEADLINE_MS) {
          throw giveUp(
            error.error,
            `Jenkins asked to retry after ${Math.round(retryAfterMs / 1000)} s`
          )
        }
        delay = Math.max(delay, retryAfterMs)
      }
      if (deadline !== undefined) {
        const left = deadline - Date.now()
        if (left < MIN_ATTEMPT_MS) {
          if (signal && !signal.aborted) await sleep(Math.max(0, left) + 100)
          throw giveUp(error.error, `${tried(attempt)}; no time left before the deadline to retry`)
        }
        // Capped so that the next try starts with half the time left for it.
        delay = Math.min(delay, Math.floor(left / 2))
      }
      logger.debug(
        `${what}: ${error.reason}${asked}; retry ${attempt}/${allowed - 1} in ${delay} ms`
      )
      const waited = Date.now() - started
      if (options.notice && waited >= options.notice.afterMs) {
        options.notice.say(
          `${failure.replace(/\.$/, '')}; trying again in ${seconds(delay)} (try ${attempt + 1} of ${allowed}, ${formatDuration(waited)} since the first)`
        )
      }
      await sleep(delay)
    }
  }
}

function giveUp(error: JenkinsError, why: string): JenkinsError {
  return new JenkinsError(error.kind, `${error.message} (${why})`, error.status)
}
