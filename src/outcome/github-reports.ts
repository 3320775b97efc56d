/**
 * What the step reports on GitHub besides its log and summary, set up once
 * at its start: the commit under test (commit-under-test.ts, also the
 * `commit` output), the commit statuses on it, and the pull request comment.
 * One `job` and several `jobs` use it alike: a reporter per status context,
 * one comment for the step.
 *
 * A failed GitHub call never changes the build's verdict: every problem is
 * a warning, and a pull request that cannot be read turns statuses and
 * comment off rather than putting them on the wrong commit.
 */
import type { Settings } from '../inputs/inputs.js'
import { Output } from '../util/constants.js'
import { errorText } from '../util/error-text.js'
import type { Logger } from '../util/logger.js'
import { CommitStatusReporter, type CommitStatusOptions, type StatusGate } from './commit-status.js'
import {
  brokenEvent,
  commitUnderTest,
  headShaOf,
  pullRequestOf,
  readEvent,
  type CommitUnderTest
} from './commit-under-test.js'

import { failureEnd, type RequestBounds } from './github-transport.js'
import { commentMarker, renderComment, type CommentBuild } from './pr-comment-body.js'
import type { GithubSession } from './github-client.js'
import { PullRequestComment } from './pr-comment.js'
import { TokenIdentity } from './github-identity.js'
import type { SourceCommit } from './source-link.js'

export type { CommentBuild } from './pr-comment-body.js'

export interface GithubReportsOptions {
  settings: Pick<
    Settings,
    'githubToken' | 'commitStatus' | 'prComment' | 'commit' | 'pullRequest' | 'url'
  >
  logger: Logger
  setOutput(name: string, value: string): void
  /** The step's redaction (StepIO.redact): GitHub shows a comment and a status description as sent. */
  redact: (text: string) => string
  /** The comment's report name: the `status-context`, or the step's with `jobs`. */
  reportName: string
  /** The bounds of the step's GitHub requests: its cancel signal and timeout, then the abort's budget; none: only their silence bound. */
  bounds?: () => RequestBounds
  /** The step's GitHub session when it has one already (settle: one for all its hand-offs). */
  session?: GithubSession
}

/** The step's reports on GitHub. */
export class GithubReports {
  private final = false
  private readonly gate: StatusGate = { closed: false }

  private constructor(
    private readonly o: GithubReportsOptions,
    /** null: the commit under test could not be read; nothing is reported. */
    readonly target: CommitUnderTest | null,
    /** The step's GitHub requests: their client, bounds, rate limits, one warning; none when none is sent. */
    private readonly session?: GithubSession,
    private readonly comment?: PullRequestComment
  ) {}

  /** Resolves the commit under test (reading the pull request when the rule needs it) and sets the `commit` output. Never throws. */
  static async start(o: GithubReportsOptions): Promise<GithubReports> {
    const { settings, logger, redact } = o
    const reports = settings.commitStatus || settings.prComment
    const event = readEvent(process.env)
    if (event.kind !== 'read') {
      if (reports) {
        logger.warning(
          event.kind === 'outside'
            ? 'No commit status or pull request comment: GITHUB_REPOSITORY is not set, so there is no repository to report on.'
            : `No commit status or pull request comment: ${brokenEvent(event.why)}; the build goes on.`
        )
      }
      return new GithubReports(o, null)
    }
    const ctx = event.context
    // Octokit is evaluated only when a report or the pull request needs it
    // (start-up cost); "eager" keeps it in the one bundle file.
    let number: number | undefined
    let readsPull = false
    try {
      number = pullRequestOf(ctx, settings)
      readsPull = !settings.commit && headShaOf(ctx) === undefined && number !== undefined
    } catch {
      // A malformed event: commitUnderTest throws it again, named.
    }
    let session = o.session
    try {
      if (!session && (reports || readsPull)) {
        const github = await import(/* webpackMode: "eager" */ './github-client.js')
        session = github.githubSession(settings.githubToken, o)
      }
    } catch (error) {
      logger.warning(
        `No commit status or pull request comment: the GitHub client could not be loaded: ${errorText(error)}.`
      )
      return new GithubReports(o, null)
    }
    let target: CommitUnderTest
    try {
      target = await commitUnderTest(ctx, settings, { session })
    } catch (error) {
      const what = number === undefined ? 'the commit under test' : `pull request #${number}`
      logger.warning(
        `Could not read ${what} of ${ctx.repo.owner}/${ctx.repo.repo}${failureEnd(error, redact)}. ` +
          `No commit status or pull request comment is set (rather than on the wrong commit); the build goes on.`
      )
      return new GithubReports(o, null)
    }
    logger.debug(`Commit under test: ${target.sha} (${target.from}).`)
    o.setOutput(Output.Commit, target.sha)
    if (!settings.prComment || !session) return new GithubReports(o, target, session)
    if (target.pullRequest === undefined) {
      logger.info(
        `pr-comment: this run (${ctx.eventName}) is tied to no pull request: no comment is written (the pull-request input names one).`
      )
      return new GithubReports(o, target, session)
    }
    const comment = new PullRequestComment({
      session,
      identity: new TokenIdentity({ session }),
      owner: target.owner,
      repo: target.repo,
      number: target.pullRequest,
      marker: commentMarker(o.reportName),
      redact
    })
    return new GithubReports(o, target, session, comment)
  }

  /**
   * A commit status reporter for `context` (every one of the step shares one
   * gate: one warning for the step); none without a commit under test.
   */
  status(
    context: string,
    { stillOurs }: Pick<CommitStatusOptions, 'stillOurs'> = {}
  ): CommitStatusReporter | undefined {
    const { session } = this
    if (!this.target || !session) {
      this.o.logger.debug(`Commit status '${context}' is off: no commit under test.`)
      return undefined
    }
    return new CommitStatusReporter({
      context,
      gate: this.gate,
      session,
      target: this.target,
      redact: this.o.redact,
      ...(stillOurs ? { stillOurs } : {})
    })
  }

  /**
   * Where the failed tests' source links go (source-link.ts): the commit
   * under test as the step resolved it, the one its statuses and comment
   * name (an issue_comment run's pull request head, read over the API);
   * undefined without one, or outside a workflow (no GITHUB_SERVER_URL).
   */
  get sourceCommit(): SourceCommit | undefined {
    const serverUrl = process.env.GITHUB_SERVER_URL
    if (!this.target || !serverUrl) return undefined
    const { owner, repo, sha } = this.target
    return { serverUrl, repository: `${owner}/${repo}`, sha }
  }

  /**
   * Writes the comment with the builds as they are now (writes go in the
   * order asked); `final` is the text the comment ends with, written once.
   * Never rejects.
   */
  show(
    builds: readonly CommentBuild[],
    { final = false }: { final?: boolean } = {}
  ): Promise<void> {
    const { comment } = this
    if (!comment || this.final) return Promise.resolve()
    if (final) this.final = true
    return comment.write(
      renderComment({
        name: this.o.reportName,
        builds,
        runUrl: runUrlOf(process.env),
        jenkinsUrl: this.o.settings.url
      })
    )
  }
}

/** The workflow run's page, whose summary has what the comment leaves out. */
function runUrlOf(env: NodeJS.ProcessEnv): string | undefined {
  const server = env.GITHUB_SERVER_URL || 'https://github.com'
  const { GITHUB_REPOSITORY: repository, GITHUB_RUN_ID: runId } = env
  if (!repository || !runId) return undefined
  const attempt = env.GITHUB_RUN_ATTEMPT
  return `${server}/${repository}/actions/runs/${runId}${attempt && attempt !== '1' ? `/attempts/${attempt}` : ''}`
}
