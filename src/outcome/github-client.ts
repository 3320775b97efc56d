/**
 * The GitHub REST client every report of the step uses (commit statuses,
 * the pull request and its comments), made one way: @actions/github's
 * Octokit on GITHUB_API_URL, through the runner's proxy settings, every
 * request bounded (github-transport.ts) and rate limits waited out
 * (github-rate-limit.ts), its own console warnings sent to the debug log with
 * the token taken out. The step's clients share one GithubSession: its
 * bounds, its rate-limit state, and the one warning for a GitHub that does
 * not answer.
 */
import { getOctokit } from '@actions/github'
import { defaults } from '@actions/github/lib/utils'
import type { Logger } from '../util/logger.js'
import { Redaction } from '../util/redaction.js'
import type { RequestBounds, StepBounds } from '../util/request-bounds.js'
import { RateLimits } from './github-rate-limit.js'
import { boundedFetch, type BoundedFetchOptions, type GithubFailure } from './github-transport.js'

export type GithubClient = ReturnType<typeof getOctokit>

export interface GithubClientOptions {
  token: string
  logger: Logger
  /** For tests: a fetch nock can intercept. Default: @actions/github's fetch, which honours the runner's proxy settings. */
  fetch?: typeof fetch
  /** The step's; default: one of its own, without a deadline or signal. */
  session?: GithubSession
}

/** An Octokit for `token`, bounded by the session; its own log lines go to debug, redacted. */
export function githubClient(options: GithubClientOptions): GithubClient {
  const redact = redactor(options.token)
  const session = options.session ?? new GithubSession({ logger: options.logger })
  // cast: @actions/github types its request defaults loosely; its fetch is the global one, proxied.
  const base = options.fetch ?? (defaults.request?.fetch as typeof fetch | undefined) ?? fetch
  return getOctokit(options.token, {
    request: { fetch: session.fetch(base) },
    // Octokit would otherwise print its own warnings to the console.
    log: {
      debug: () => undefined,
      info: () => undefined,
      warn: (message: string) => options.logger.debug(redact(message)),
      error: (message: string) => options.logger.debug(redact(message))
    }
  })
}

export interface GithubSessionOptions extends Pick<
  BoundedFetchOptions,
  'requestTimeoutMs' | 'maxBodyBytes'
> {
  logger: Logger
  /** The step's bounds (runBounded); default: none but the silence bound. */
  bounds?: Pick<StepBounds, 'current'>
}

/**
 * What a step's GitHub requests share: their bounds, GitHub's rate limits,
 * and the one warning for a GitHub that does not answer in time, after
 * which the step's reports stop (each would wait as long again).
 */
export class GithubSession {
  private readonly rateLimits: RateLimits
  /** The failures said once for the step (a timeout, a rate limit). */
  private readonly said = new Set<GithubFailure['kind']>()

  constructor(private readonly o: GithubSessionOptions) {
    this.rateLimits = new RateLimits(o.logger)
  }

  /** `base` with the bounds and the rate limits. */
  fetch(base: typeof fetch): typeof fetch {
    const { bounds: step, requestTimeoutMs, maxBodyBytes } = this.o
    const bounds = (): RequestBounds => step?.current() ?? {}
    const bounded = boundedFetch({ base, bounds, requestTimeoutMs, maxBodyBytes })
    return this.rateLimits.fetch(bounded, bounds)
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
    const log = this.o.logger
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
}

/** The token must never reach a log line, whatever a library puts in a message (util/redaction.ts). */
export function redactor(token: string): (text: string) => string {
  const secrets = new Redaction()
  secrets.add(token)
  return text => secrets.redact(text)
}
