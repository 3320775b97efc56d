/**
 * The step's GitHub: one GithubSession holds its REST client (@actions/github's
 * Octokit on GITHUB_API_URL, through the runner's proxy settings, its own
 * console warnings sent to the debug log with the token taken out), the
 * bounds of every request (github-transport.ts), GitHub's rate limits and
 * the failures said once for the step.
 */
import { getOctokit } from '@actions/github'
import { defaults } from '@actions/github/lib/utils'
import { parseRetryAfter } from '../jenkins/transport/retry.js'
import { formatDuration } from '../util/duration.js'
import type { Logger } from '../util/logger.js'
import { Redaction } from '../util/redaction.js'
import { sleep } from '../util/wait.js'
import {
  boundedFetch,
  GithubTransportError,
  requestName,
  type GithubFailure,
  type RequestBounds
} from './github-transport.js'

export type GithubClient = ReturnType<typeof getOctokit>

/** The longest wait for one rate limit: GitHub's secondary limits ask for a minute or two. */
const MAX_WAIT_MS = 120_000
/** Tries of one request that GitHub keeps holding back. */
const MAX_TRIES = 3
/** A secondary limit that names no time: "wait for at least one minute". */
const SECONDARY_WAIT_MS = 60_000
/** x-ratelimit-reset is in whole seconds: a little after it. */
const RESET_MARGIN_MS = 1000

/** The rate-limit signs of an answer. */
export interface RateLimit {
  status: number
  /** How long GitHub asks to wait; undefined: a secondary limit that names no time. */
  waitMs: number | undefined
  /** Which sign: `retry-after`, `x-ratelimit-reset`, or the secondary-limit message. */
  sign: string
  secondary: boolean
}

/**
 * The rate-limit signs of a 403 or 429 answer, if it carries them.
 * @internal
 */
export async function rateLimitOf(response: Response): Promise<RateLimit | undefined> {
  const { status, headers } = response
  if (status !== 403 && status !== 429) return undefined
  const message = await response
    .clone()
    .text()
    .catch(() => '')
  const secondary = /secondary rate limit|abuse detection/i.test(message)
  const retryAfter = parseRetryAfter(headers.get('retry-after') ?? undefined)
  if (retryAfter !== undefined)
    return { status, waitMs: retryAfter, sign: 'retry-after', secondary }
  const reset = Number(headers.get('x-ratelimit-reset'))
  if (headers.get('x-ratelimit-remaining')?.trim() === '0') {
    // GitHub's clock says when the window resets, not the runner's.
    const serverNow = Date.parse(headers.get('date') ?? '') || Date.now()
    const waitMs =
      Number.isFinite(reset) && reset > 0
        ? Math.max(0, reset * 1000 - serverNow) + RESET_MARGIN_MS
        : undefined
    return { status, waitMs, sign: 'x-ratelimit-remaining: 0', secondary }
  }
  // GitHub answers 429 for its rate limits only.
  if (secondary || status === 429) {
    return { status, waitMs: undefined, sign: 'the secondary rate limit', secondary: true }
  }
  return undefined
}

export interface GithubSessionOptions {
  token: string
  logger: Logger
  /** The step's bounds (runBounded); default: none but the silence bound. */
  bounds?: () => RequestBounds
}

/** The step's session for `token`, the one way each mode makes it; none for an empty token (nothing is sent). */
export function githubSession(
  token: string,
  o: Pick<GithubSessionOptions, 'logger' | 'bounds'>
): GithubSession | undefined {
  return token === '' ? undefined : new GithubSession({ token, ...o })
}

/**
 * What a step's GitHub requests share: one client, their bounds, GitHub's
 * rate limits, and the one warning for a GitHub that does not answer in
 * time, after which the step's reports stop (each would wait as long again).
 */
export class GithubSession {
  readonly client: GithubClient
  /** Takes the token out: it must never reach a log line, whatever a library puts in a message. */
  readonly redact: (text: string) => string
  /** The failures said once for the step (a timeout, a rate limit). */
  private readonly said = new Set<GithubFailure['kind']>()
  /** Epoch ms before which GitHub holds requests back. */
  private resumeAt = 0
  private held: RateLimit | undefined
  /** Secondary limits in a row: each doubles the wait. */
  private secondaryRun = 0
  private saidFor = 0
  /** The step's log, where every report of the session writes. */
  readonly logger: Logger

  constructor(private readonly o: GithubSessionOptions) {
    this.logger = o.logger
    const secrets = new Redaction()
    secrets.add(o.token)
    this.redact = text => secrets.redact(text)
    const bounds = (): RequestBounds => o.bounds?.() ?? {}
    // cast: @actions/github types its request defaults loosely; its fetch honours the runner's proxy settings.
    const base = (defaults.request?.fetch as typeof fetch | undefined) ?? fetch
    const bounded = boundedFetch(base, bounds)
    this.client = getOctokit(o.token, {
      request: { fetch: this.rateLimited(bounded, bounds) },
      // Octokit would otherwise print its own warnings to the console.
      log: {
        debug: () => undefined,
        info: () => undefined,
        warn: (message: string) => o.logger.debug(this.redact(message)),
        error: (message: string) => o.logger.debug(this.redact(message))
      }
    })
  }

  /** Whether reports still go: not once GitHub left a request unanswered. */
  get open(): boolean {
    return !this.said.has('timeout')
  }

  /**
   * Says a failure that is GitHub's and not the report's (no answer in time,
   * a rate limit, the step stopping it) once for the step, `what` naming
   * the report; true when it was one (the caller says nothing more).
   */
  handled({ kind, message }: GithubFailure, what: string): boolean {
    const log = this.logger
    if (kind === 'stopped') log.info(`${message}.`)
    else if (kind !== 'timeout' && kind !== 'rate-limited') return false
    else if (this.said.has(kind)) log.debug(`${what}: ${message}.`)
    else {
      this.said.add(kind)
      log.warning(
        kind === 'timeout'
          ? `${message}: no further commit status or pull request comment is sent in this step (one already set stays as it is). The build itself is not affected.`
          : `${message}: ${what} is not sent. That is GitHub's rate limit for the github-token, not a missing permission; reports resume once it has passed. The build itself is not affected.`
      )
    }
    return true
  }

  /**
   * `inner`, rate limits waited out as GitHub documents ("Rate limits for the
   * REST API", Exceeding the rate limit): a 403 or 429 with `retry-after` waits
   * that many seconds; with `x-ratelimit-remaining: 0`, until `x-ratelimit-reset`;
   * a secondary limit without either, one minute, doubling while it lasts, at
   * most MAX_TRIES tries. While GitHub holds requests back, every request of the
   * step waits (GitHub asks to stop sending), but never past the deadline nor
   * longer than MAX_WAIT_MS at a time: such a request fails as rate-limited
   * without being sent, and sending resumes once the limit has passed. A 403
   * without these signs is a refusal, not a limit.
   */
  private rateLimited(inner: typeof fetch, bounds: () => RequestBounds): typeof fetch {
    return async (input, init) => {
      const { what } = requestName(input, init)
      for (let attempt = 1; ; attempt++) {
        await this.ready(what, bounds())
        const response = await inner(input, init)
        const limit = await rateLimitOf(response)
        if (!limit) {
          this.secondaryRun = 0
          return response
        }
        // A secondary limit that names no time: one minute, doubling while it lasts.
        const waitMs = limit.waitMs ?? SECONDARY_WAIT_MS * 2 ** this.secondaryRun++
        this.held = limit
        this.resumeAt = Math.max(this.resumeAt, Date.now() + waitMs)
        if (attempt >= MAX_TRIES) throw this.refusal(what, `after ${attempt} tries`)
      }
    }
  }

  /** Waits while GitHub holds requests back, within `bounds`; throws rate-limited when it cannot. */
  private async ready(what: string, bounds: RequestBounds): Promise<void> {
    const wait = this.resumeAt - Date.now()
    if (wait <= 0) return
    if (wait > MAX_WAIT_MS) {
      throw this.refusal(what, `longer than the ${formatDuration(MAX_WAIT_MS)} this action waits`)
    }
    if (bounds.deadline !== undefined && this.resumeAt > bounds.deadline) {
      throw this.refusal(what, "past the step's deadline")
    }
    if (this.saidFor !== this.resumeAt) {
      this.saidFor = this.resumeAt
      this.logger.info(
        `GitHub's rate limit holds requests back (HTTP ${this.held?.status}, ${this.held?.sign}): waiting ${formatDuration(wait)} before ${what}, as GitHub asks.`
      )
    }
    try {
      await sleep(wait, bounds.signal)
    } catch {
      throw new GithubTransportError(
        'stopped',
        `Stopped waiting for GitHub's rate limit before ${what}: the step was stopped`
      )
    }
  }

  private refusal(what: string, why: string): GithubTransportError {
    const held = this.held
    // Whole seconds, rounded up: GitHub's own unit, and never said shorter than it is.
    const left = Math.ceil(Math.max(0, this.resumeAt - Date.now()) / 1000) * 1000
    return new GithubTransportError(
      'rate-limited',
      `GitHub's ${held?.secondary ? 'secondary ' : ''}rate limit held back ${what} (HTTP ${held?.status}, ${held?.sign}) for ${formatDuration(left)} more, ${why}`
    )
  }
}
