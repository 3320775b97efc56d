import type { BuildResult } from '../util/constants.js'
import type { Logger } from '../util/logger.js'
import { commitShaOf } from '../util/commit-sha.js'
import { headShaOf, type CommitUnderTest, type EventContext } from './commit-under-test.js'
import { githubClient, GithubSession, redactor, type GithubClient } from './github-client.js'
import { githubFailure } from './github-transport.js'
import { errorText } from '../util/error-text.js'
import { cut } from '../util/shorten.js'

export interface CommitStatusOptions {
  /** Token with `statuses: write` (github-token input). */
  token: string
  /** 'jenkins/<job>' or the status-context input. */
  context: string
  logger: Logger
  /** For tests: a fetch nock can intercept. Default: @actions/github's fetch, which honours the runner's proxy settings. */
  fetch?: typeof fetch
  /** Shared by the reporters of one step (one per build with `jobs`): a token refused once is not tried, nor warned about, again. */
  gate?: StatusGate
  /** The step's GitHub session (bounds, rate limits, one warning for a GitHub that does not answer); default: one of its own. */
  session?: GithubSession
  /**
   * The commit under test (commit-under-test.ts), resolved once for the
   * step; null: none could be read (already warned about), set no status.
   * Undefined: the synchronous part of the rule, from the event given to
   * the constructor (none given: no status).
   */
  target?: CommitUnderTest | null
  /** The step's redaction (StepIO.redact): GitHub shows a description as sent. Default: the token only. */
  redact?: (text: string) => string
}

/** Whether the statuses of a step stopped for good (a token without `statuses: write`). */
export interface StatusGate {
  closed: boolean
  /** A status of the step went through: the token may set them. */
  proven?: boolean
  /** The step's first request, while it is unanswered: the others wait for it. */
  probe?: Promise<void>
}

/** The event the reporter reads when it is given no target (github-event.ts reads it; never @actions/github's context, which throws at load on a broken event file). */
export type StatusContext = EventContext

type State = 'pending' | 'success' | 'failure' | 'error'

/** GitHub rejects longer descriptions (422). */
const MAX_DESCRIPTION = 140

/**
 * Sets a commit status on the commit under test. Best effort: it never
 * throws and never fails the build; every problem is a warning (a 403/404
 * that is not GitHub's rate limit names the `statuses: write` permission,
 * once, and stops further attempts; GitHub not answering or rate-limiting is
 * said once for the step by its GithubSession).
 */
export class CommitStatusReporter {
  private readonly logger: Logger
  private readonly context: string
  private readonly token: string
  private readonly redactText: (text: string) => string
  private readonly gate: StatusGate
  private readonly session: GithubSession
  private target?: { owner: string; repo: string; sha: string }
  private octokit?: GithubClient
  private final = false

  /**
   * Goes to `options.target`, the step's commit under test; without one,
   * reads owner/repo/sha from the event given: for pull requests the head
   * commit, as the rule says (GITHUB_SHA is the merge commit there, or the
   * base branch's head, whose statuses the pull request does not show).
   */
  constructor(options: CommitStatusOptions, ghContext?: StatusContext) {
    this.logger = options.logger
    this.context = options.context
    this.token = options.token
    this.redactText = options.redact ?? redactor(options.token)
    this.gate = options.gate ?? { closed: false }
    this.session = options.session ?? new GithubSession({ logger: options.logger })
    if (options.target === null || (!options.target && !ghContext)) {
      this.logger.debug(`Commit status '${this.context}' is off: no commit under test.`)
      return
    }
    try {
      const ctx = ghContext as StatusContext
      const { owner, repo } = options.target ?? ctx.repo
      const sha = options.target?.sha ?? headShaOf(ctx)?.sha ?? commitShaOf(ctx.sha)
      if (!sha) throw new Error('the workflow context has no commit SHA')
      this.target = { owner, repo, sha }
      this.octokit = githubClient({
        token: options.token,
        logger: this.logger,
        fetch: options.fetch,
        session: this.session
      })
    } catch (error) {
      this.target = undefined
      this.logger.warning(
        `Commit status '${this.context}' is disabled: ${this.redact(errorText(error))}`
      )
    }
  }

  /** The commit the statuses go to, if any. */
  get sha(): string | undefined {
    return this.target?.sha
  }

  /** Whether a final state (success, failure, error) was sent or attempted. */
  get finished(): boolean {
    return this.final
  }

  pending(description: string, targetUrl?: string): Promise<void> {
    return this.set('pending', description, targetUrl)
  }

  /**
   * SUCCESS gives success; FAILURE, UNSTABLE, ABORTED and NOT_BUILT give
   * failure; 'error' (the action could not follow the build) gives error.
   * When `accepted` is given it decides between success and failure instead,
   * so that the status agrees with the step (e.g. `accept: SUCCESS,UNSTABLE`).
   */
  finish(
    result: BuildResult | 'error',
    description: string,
    targetUrl?: string,
    accepted?: boolean
  ): Promise<void> {
    this.final = true
    let state: State
    if (result === 'error') state = 'error'
    else if (accepted !== undefined) state = accepted ? 'success' : 'failure'
    else state = result === 'SUCCESS' ? 'success' : 'failure'
    return this.set(state, description, targetUrl)
  }

  private async set(state: State, description: string, targetUrl?: string): Promise<void> {
    const target = this.target
    const octokit = this.octokit
    if (!target || !octokit || this.gate.closed || !this.session.open) {
      this.logger.debug(`Commit status '${this.context}' skipped (${state}).`)
      return
    }
    // Until one status of the step has gone through, the reporters of its
    // builds (several `jobs`) wait for the one request in flight: a token
    // that may not set statuses is refused once, not once per build.
    while (!this.gate.proven && this.gate.probe) await this.gate.probe
    if (this.gate.closed || !this.session.open) {
      this.logger.debug(`Commit status '${this.context}' skipped (${state}).`)
      return
    }
    const url = httpUrl(targetUrl)
    try {
      const request = octokit.rest.repos.createCommitStatus({
        ...target,
        state,
        context: this.context,
        description: cut(this.redact(description).replace(/\s+/g, ' ').trim(), MAX_DESCRIPTION),
        ...(url ? { target_url: url } : {})
      })
      if (!this.gate.proven) {
        const probe = request.then(
          () => void (this.gate.proven = true),
          () => undefined
        )
        this.gate.probe = probe
        void probe.then(() => {
          if (this.gate.probe === probe) this.gate.probe = undefined
        })
      }
      await request
      this.logger.debug(`Commit status '${this.context}' on ${target.sha}: ${state}.`)
    } catch (error) {
      const failure = githubFailure(error)
      // GitHub not answering, or its rate limit: said once for the step, and not a permission.
      if (this.session.handled(failure, `Commit status '${this.context}' (${state})`)) return
      const status = failure.kind === 'answered' ? failure.status : undefined
      if (status === 403 || status === 404) {
        // A token without `statuses: write`, or a fork PR's read-only token:
        // say so once and stop trying (every reporter of the step).
        this.target = undefined
        if (this.gate.closed) return
        this.gate.closed = true
        this.logger.warning(
          `Could not set commit status '${this.context}' on ${target.owner}/${target.repo}@${target.sha.slice(0, 12)} ` +
            `(HTTP ${status}): the github-token needs the \`statuses: write\` permission ` +
            `(pull requests from forks only get a read-only token). The build itself is not affected. ` +
            `GitHub said: ${this.redact(failure.message)}`
        )
        return
      }
      this.logger.warning(
        `Could not set commit status '${this.context}' (${state}): ${this.redact(failure.message)}`
      )
    }
  }

  /** No secret reaches GitHub or a log line, whatever Jenkins or a library puts in a text. */
  private redact(text: string): string {
    return this.redactText(text)
  }
}

function httpUrl(url: string | undefined): string | undefined {
  if (!url) return undefined
  try {
    const parsed = new URL(url)
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? url : undefined
  } catch {
    return undefined
  }
}
