/**
 * What must be settled about the commit under test before anything is sent
 * to Jenkins: with `commit-parameter`, the commit itself, which every build
 * gets as that parameter; on a comment command (`issue_comment`, a run that
 * has the repository's secrets whoever commented), that its author has at
 * least `comment-permission` on the repository (read once), and that the
 * commit to build was already the pull request's head before the comment
 * was written, by GitHub's own times: the newest change GitHub recorded of
 * the head branch left it at that commit, in a second before the comment's.
 * Where it cannot be sure it refuses, saying why and what to do; why that
 * rule is sound: docs/comment-commands.md.
 */
import type { Settings } from '../inputs/inputs.js'
import type { Logger } from '../util/logger.js'
import { shortName } from '../util/names.js'
import {
  brokenEvent,
  commitUnderTest,
  pullRequestOf,
  readEvent,
  type CommitUnderTest,
  type EventContext
} from './commit-under-test.js'
import type { GithubClient, GithubSession } from './github-client.js'
import { failureEnd, type RequestBounds } from './github-transport.js'
import { atLeast, readLastChange, readPullHead, readRole } from './github-reads.js'
import { LOGIN, required, TIME, timeText, Undecodable } from './github-values.js'

export interface GateOptions {
  logger: Logger
  /** The step's cancel signal: every GitHub request stops with it. */
  signal?: AbortSignal
  /** The step's bounds for GitHub requests (runBounded): its deadline and signal, then the abort's budget. */
  bounds?: () => RequestBounds
}

/** The settings the step runs with: `settings`, or, on a comment command or with `commit-parameter`, with the commit settled. Throws when it cannot be. */
export async function settleCommit(settings: Settings, o: GateOptions): Promise<Settings> {
  const comment = process.env.GITHUB_EVENT_NAME === 'issue_comment'
  if (!comment && settings.commitParameter === undefined) return settings
  if (!comment && settings.commit !== undefined)
    return withCommit(settings, { sha: settings.commit }, o)
  const needs = "Input 'commit-parameter' needs the commit under test"
  const event = readEvent(process.env)
  if (event.kind === 'outside') {
    throw comment
      ? new CommentCommandRefused(
          'GITHUB_REPOSITORY is not set, so the comment cannot be checked',
          'run it in a workflow'
        )
      : new Error(
          `${needs}, and outside a workflow (GITHUB_REPOSITORY is not set) there is none: give it in 'commit'.`
        )
  }
  if (event.kind === 'broken') {
    throw comment
      ? new CommentCommandRefused(
          `${brokenEvent(event.why)}, so neither the commenter nor the commit can be checked`,
          'comment again'
        )
      : new Error(`${needs}, but ${brokenEvent(event.why)}. Nothing was sent to Jenkins.`)
  }
  const ctx = event.context
  // Loaded only now that the event file is known to parse (commit-under-test.ts).
  const github = await import(/* webpackMode: "eager" */ './github-client.js')
  const session = github.githubSession(settings.githubToken, o)
  if (comment) return withCommit(settings, await admit({ ...o, ctx, settings, session }), o)
  try {
    return withCommit(settings, await commitUnderTest(ctx, settings, { session }), o)
  } catch (error) {
    if (o.signal?.aborted) throw error
    throw new Error(
      `${needs}, which could not be read${failureEnd(error, session?.redact ?? (text => text))}. Nothing was sent to Jenkins.`
    )
  }
}

/** `settings` with the commit settled: as `commit`, its pull request, and the `commit-parameter` of every build. */
function withCommit(settings: Settings, { sha, pullRequest }: Settled, o: GateOptions): Settings {
  const name = settings.commitParameter
  const settled: Settings = {
    ...settings,
    commit: sha,
    ...(pullRequest === undefined ? {} : { pullRequest })
  }
  if (name === undefined) return settled
  o.logger.info(`Jenkins gets the commit under test, ${sha}, as parameter ${name}.`)
  const give = <T extends { parameters: Settings['parameters'] }>(entry: T): T => ({
    ...entry,
    parameters: { ...entry.parameters, [name]: sha },
    hasParameters: true
  })
  return { ...give(settled), ...(settings.jobs ? { jobs: settings.jobs.map(give) } : {}) }
}

/** Why a comment command does not run; nothing was sent to Jenkins. */
export class CommentCommandRefused extends Error {
  constructor(why: string, todo: string) {
    super(`The comment command is refused: ${why}. Nothing was sent to Jenkins: ${todo}.`)
    this.name = 'CommentCommandRefused'
  }
}

const COMMENT_AGAIN = 'review the pull request as it is now and comment again'

/** The commit settled, and its pull request (none for a comment on an issue). */
type Settled = Pick<CommitUnderTest, 'sha' | 'pullRequest'>

interface AdmitOptions extends GateOptions {
  ctx: EventContext
  settings: Settings
  /** Undefined: `github-token` is empty. */
  session: GithubSession | undefined
}

/** Checks the comment command and returns the commit it builds; throws CommentCommandRefused. */
async function admit(o: AdmitOptions): Promise<Settled> {
  const { ctx, settings } = o
  const comment = await decoded(() => ({
    user: required(ctx.payload, 'comment.user.login', LOGIN, 'the issue_comment event'),
    writtenAt: required(ctx.payload, 'comment.created_at', TIME, 'the issue_comment event'),
    pullRequest: settings.pullRequest ?? pullRequestOf(ctx)
  }))
  if (settings.commentPermission !== 'none') await checkCommenter(o, comment.user)
  const number = comment.pullRequest
  if (number === undefined) {
    // A comment on an issue: no pull request, no head to check; the rule's commit.
    return decoded(() => commitUnderTest(ctx, settings, o))
  }
  return { sha: await headBeforeComment(o, number, comment.writtenAt), pullRequest: number }
}

/** One GitHub read of the check (`what` it reads): each failure a refusal, unless the step was stopped. */
async function read<T>(
  o: AdmitOptions,
  what: string,
  request: (client: GithubClient) => Promise<T>,
  refusal: (failure: string) => Error
): Promise<T> {
  if (!o.session) {
    throw new CommentCommandRefused(
      `'github-token' is empty, so ${what} cannot be read`,
      'leave github-token out to use the workflow token'
    )
  }
  try {
    return await request(o.session.client)
  } catch (error) {
    // Once the step is stopped, the stop is the news.
    if (o.signal?.aborted) throw error
    throw refusal(failureEnd(error, o.session.redact))
  }
}

/** Refuses a commenter below `comment-permission`. */
async function checkCommenter(o: AdmitOptions, user: string): Promise<void> {
  const { ctx, settings, logger } = o
  const here = `${ctx.repo.owner}/${ctx.repo.repo}`
  const want = settings.commentPermission
  const role = await read(
    o,
    `${user}'s permission`,
    client => readRole(client, { ...ctx.repo, user }),
    failure =>
      new CommentCommandRefused(
        `could not read ${user}'s permission on ${here}${failure}`,
        "comment again once GitHub answers; the github-token must be able to read the repository's collaborators (the workflow token can)"
      )
  )
  if (!atLeast(role, want)) {
    throw new CommentCommandRefused(
      `${user}'s role on ${here} is ${role}, below comment-permission: ${want}`,
      `only a user with the ${want} role or higher can start a build by comment`
    )
  }
  logger.info(`Comment command by ${user} (${role} on ${here}, comment-permission: ${want}).`)
}

/** The pull request's head, if GitHub shows it was pushed in a second before `writtenAt`; else a refusal saying why. */
async function headBeforeComment(
  o: AdmitOptions,
  number: number,
  writtenAt: number
): Promise<string> {
  const { ctx, settings, logger } = o
  const head = await read(
    o,
    `pull request #${number}`,
    client => readPullHead(client, { ...ctx.repo, number }),
    failure =>
      new CommentCommandRefused(
        `could not read pull request #${number} of ${ctx.repo.owner}/${ctx.repo.repo}${failure}, so the commit to build is not known`,
        'comment again once GitHub answers'
      )
  )
  if (settings.commit !== undefined && settings.commit !== head.sha) {
    throw new CommentCommandRefused(
      `input 'commit' (${settings.commit}) is not pull request #${number}'s head (${head.sha})`,
      `${COMMENT_AGAIN} to build its head`
    )
  }
  const where = head.branch
  if (!where) {
    throw new CommentCommandRefused(
      `the repository of pull request #${number}'s head is gone, so when ${head.sha} became its head cannot be read`,
      'build it from a pull request whose head repository exists'
    )
  }
  const branch = `${where.owner}/${where.repo}'s branch ${shortName(where.ref)}`
  const change = await read(
    o,
    'the head branch',
    client => readLastChange(client, where),
    failure =>
      new CommentCommandRefused(
        `could not read when ${branch} last changed${failure}, so whether ${head.sha} was already pull request #${number}'s head when the comment was written is not known`,
        'comment again once GitHub answers (docs/comment-commands.md says what the token must read)'
      )
  )
  const written = timeText(writtenAt)
  if (!change) {
    throw new CommentCommandRefused(
      `GitHub lists no change of ${branch}, so whether ${head.sha} was already pull request #${number}'s head when the comment was written (${written}) is not known`,
      COMMENT_AGAIN
    )
  }
  if (change.sha !== head.sha) {
    throw new CommentCommandRefused(
      `the newest change GitHub lists of ${branch} left it at ${change.sha}, not at pull request #${number}'s head ${head.sha}: the branch is moving`,
      COMMENT_AGAIN
    )
  }
  // GitHub's times are whole seconds: a push in the comment's second is not before it.
  if (change.at >= writtenAt) {
    throw new CommentCommandRefused(
      `pull request #${number}'s head ${head.sha} was pushed at ${timeText(change.at)}, not before the comment was written (${written}), so it may not be what was reviewed`,
      COMMENT_AGAIN
    )
  }
  logger.info(
    `Pull request #${number}'s head ${head.sha} was pushed at ${timeText(change.at)}, before the comment (${written}): this run builds it.`
  )
  return head.sha
}

/** The event's fields, or a refusal naming the one that does not decode. */
async function decoded<T>(read: () => T | Promise<T>): Promise<T> {
  try {
    return await read()
  } catch (error) {
    if (!(error instanceof Undecodable)) throw error
    throw new CommentCommandRefused(
      `${error.message}, so the comment cannot be checked`,
      'comment again'
    )
  }
}
