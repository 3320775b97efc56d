import type { BuildResult } from '../util/constants.js'
import type { GithubSession } from './github-client.js'
import { githubFailure } from './github-transport.js'
import { httpHref } from '../util/http-url.js'
import { cut } from '../util/shorten.js'

export interface CommitStatusOptions {
  /** 'jenkins/<job>' or the status-context input. */
  context: string
  /** Shared by the reporters of one step (one per build with `jobs`): a token refused once is not tried, nor warned about, again. */
  gate: StatusGate
  /** The step's GitHub session: its client, the token with `statuses: write` (github-token input), bounds, rate limits, one warning for a GitHub that does not answer. */
  session: GithubSession
  /** The commit under test (commit-under-test.ts), resolved once for the step. */
  target: { owner: string; repo: string; sha: string }
  /** The step's redaction (StepIO.redact): GitHub shows a description as sent. */
  redact: (text: string) => string
  /** Asked just before a final state is written; false: nothing is written (a settle run: the hand-off is no longer the latest). */
  stillOurs?: () => Promise<boolean>
}

/** Whether the statuses of a step stopped for good (a token without `statuses: write`). */
export interface StatusGate {
  closed: boolean
  /** A status of the step went through: the token may set them. */
  proven?: boolean
  /** The step's first request, while it is unanswered: the others wait for it. */
  probe?: Promise<void>
}

export const STATES = ['pending', 'success', 'failure', 'error'] as const
/** A commit status' state, as GitHub lists and takes them. */
export type State = (typeof STATES)[number]

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
  /** Whether a final state (success, failure, error) was sent or attempted. */
  finished = false
  /** The last state GitHub took from this reporter, if any. */
  written?: State
  /** The reporter's writes, in the order asked: GitHub keeps the last one created per context. */
  private last: Promise<void> = Promise.resolve()

  constructor(private readonly o: CommitStatusOptions) {}

  pending(description: string, targetUrl?: string): Promise<void> {
    return this.inOrder('pending', description, targetUrl)
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
    { url, accepted }: { url?: string; accepted?: boolean } = {}
  ): Promise<void> {
    this.finished = true
    const success = accepted ?? result === 'SUCCESS'
    return this.inOrder(
      result === 'error' ? 'error' : success ? 'success' : 'failure',
      description,
      url
    )
  }

  /** One write after the other (set never rejects): a hand-off sent after "Queued in Jenkins" must land after it. */
  private inOrder(state: State, description: string, targetUrl?: string): Promise<void> {
    this.last = this.last.then(() => this.set(state, description, targetUrl))
    return this.last
  }

  private async set(state: State, description: string, targetUrl?: string): Promise<void> {
    const { target, context, gate, session, redact, stillOurs } = this.o
    // Until one status of the step has gone through, the reporters of its
    // builds (several `jobs`) wait for the one request in flight: a token
    // that may not set statuses is refused once, not once per build.
    while (!gate.proven && gate.probe) await gate.probe
    if (gate.closed || !session.open) {
      return session.logger.debug(`Commit status '${context}' skipped (${state}).`)
    }
    if (state !== 'pending' && stillOurs && !(await stillOurs())) return
    // Checked, but sent as given (the href would normalise it).
    const url = httpHref(targetUrl) && targetUrl
    try {
      const request = session.client.rest.repos.createCommitStatus({
        ...target,
        state,
        context,
        // No secret reaches GitHub, whatever Jenkins or a library puts in a text.
        description: cut(redact(description).replace(/\s+/g, ' ').trim(), MAX_DESCRIPTION),
        ...(url ? { target_url: url } : {})
      })
      if (!gate.proven) {
        const probe: Promise<void> = request
          .then(() => void (gate.proven = true))
          .catch(() => undefined)
          .then(() => {
            if (gate.probe === probe) gate.probe = undefined
          })
        gate.probe = probe
      }
      await request
      this.written = state
      session.logger.debug(`Commit status '${context}' on ${target.sha}: ${state}.`)
    } catch (error) {
      const failure = githubFailure(error)
      // GitHub not answering, or its rate limit: said once for the step, and not a permission.
      if (session.handled(failure, `Commit status '${context}' (${state})`)) return
      const status = failure.kind === 'answered' ? failure.status : undefined
      if (status === 403 || status === 404) {
        // A token without `statuses: write`, or a fork PR's read-only token:
        // say so once and stop trying (every reporter of the step).
        if (gate.closed) return
        gate.closed = true
        session.logger.warning(
          `Could not set commit status '${context}' on ${target.owner}/${target.repo}@${target.sha.slice(0, 12)} ` +
            `(HTTP ${status}): the github-token needs the \`statuses: write\` permission ` +
            `(pull requests from forks only get a read-only token). The build itself is not affected. ` +
            `GitHub said: ${redact(failure.message)}`
        )
        return
      }
      session.logger.warning(
        `Could not set commit status '${context}' (${state}): ${redact(failure.message)}`
      )
    }
  }
}
