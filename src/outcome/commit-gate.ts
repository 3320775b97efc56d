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
  readPullHead,
  type CommitUnderTest,
  type PullHead,
  type EventContext
} from './commit-under-test.js'
import type { GithubClient, GithubSession } from './github-client.js'
import { failureEnd, type RequestBounds } from './github-transport.js'
import {
  field,
  type Kind,
  LOGIN,
  required,
  SHA,
  TIME,
  timeText,
  Undecodable
} from './github-values.js'

export interface GateOptions {
  logger: Logger
  /** The step's cancel signal: a failure once it fired is the cancel, never a refusal (`bounds` stop the requests). */
  signal?: AbortSignal
  /** The step's bounds for GitHub requests (runBounded): its deadline and signal, then the abort's budget. */
  bounds?: () => RequestBounds
}

/** The settings the step runs with: `settings`, or, on a comment command or with `commit-parameter`, with the commit settled. Throws when it cannot be. */
export async function settleCommit(settings: Settings, o: GateOptions): Promise<Settings> {
  const comment = process.env.GITHUB_EVENT_NAME === 'issue_comment'
  if (!comment && settings.commitParameter === undefined) return settings
  if (!comment && settings.commit !== undefined)
    return withCommit(settings, { sha: settings.commit, pullRequest: settings.pullRequest }, o)
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
  const settled: Settings = { ...settings, commit: sha, pullRequest }
  if (name === undefined) return settled
  o.logger.info(`Jenkins gets the commit under test, ${sha}, as parameter ${name}.`)
  const give = <T extends { parameters: Settings['parameters'] }>(entry: T): T => ({
    ...entry,
    parameters: { ...entry.parameters, [name]: sha },
    hasParameters: true
  })
  return { ...give(settled), ...(settings.jobs ? { jobs: settings.jobs.map(give) } : {}) }
}

/**
 * Why a comment command does not run; nothing was sent to Jenkins.
 * @internal
 */
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
    pullRequest: pullRequestOf(ctx, settings)
  }))
  if (settings.commentPermission !== 'none') await checkCommenter(o, comment.user)
  const number = comment.pullRequest
  if (number === undefined) {
    // A comment on an issue: no pull request, no head to check; the rule's commit.
    return decoded(() => commitUnderTest(ctx, settings, o))
  }
  return { sha: await headBeforeComment(o, number, comment.writtenAt), pullRequest: number }
}

/** One GitHub read of the check: `what` it reads, and why it is refused (given the failure's end) and what to do. */
interface Read<T> {
  what: string
  request: (client: GithubClient) => Promise<T>
  why: (failure: string) => string
  todo: string
}

/** The read's answer; each failure a refusal, unless the step was stopped. */
async function read<T>(o: AdmitOptions, r: Read<T>): Promise<T> {
  if (!o.session) {
    throw new CommentCommandRefused(
      `'github-token' is empty, so ${r.what} cannot be read`,
      'leave github-token out to use the workflow token'
    )
  }
  try {
    return await r.request(o.session.client)
  } catch (error) {
    // Once the step is stopped, the stop is the news.
    if (o.signal?.aborted) throw error
    throw new CommentCommandRefused(r.why(failureEnd(error, o.session.redact)), r.todo)
  }
}

/** Refuses a commenter below `comment-permission`. */
async function checkCommenter(o: AdmitOptions, user: string): Promise<void> {
  const { ctx, settings, logger } = o
  const here = `${ctx.repo.owner}/${ctx.repo.repo}`
  const want = settings.commentPermission
  const role = await read(o, {
    what: `${user}'s permission`,
    request: client => readRole(client, ctx.repo, user),
    why: failure => `could not read ${user}'s permission on ${here}${failure}`,
    todo: "comment again once GitHub answers; the github-token must be able to read the repository's collaborators (the workflow token can)"
  })
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
  const head = await read(o, {
    what: `pull request #${number}`,
    request: client => readPullHead(client, ctx.repo, number),
    why: failure =>
      `could not read pull request #${number} of ${ctx.repo.owner}/${ctx.repo.repo}${failure}, so the commit to build is not known`,
    todo: 'comment again once GitHub answers'
  })
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
  const change = await read(o, {
    what: 'the head branch',
    request: client => readLastChange(client, where),
    why: failure =>
      `could not read when ${branch} last changed${failure}, so whether ${head.sha} was already pull request #${number}'s head when the comment was written is not known`,
    todo: 'comment again once GitHub answers (docs/comment-commands.md says what the token must read)'
  })
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

/** GitHub's base roles on a repository, lowest first; `none`: not a collaborator. */
const ROLES = ['none', 'read', 'triage', 'write', 'maintain', 'admin'] as const
type Role = (typeof ROLES)[number]

/** What `user.permissions` allows, highest first, with the role each means. */
const ALLOWS: ReadonlyArray<readonly [string, Role]> = [
  ['admin', 'admin'],
  ['maintain', 'maintain'],
  ['push', 'write'],
  ['triage', 'triage'],
  ['pull', 'read']
]

/** The legacy `permission`: maintain reads as write, triage as read. */
const LEGACY: Kind<Role> = {
  decode: value => (['admin', 'write', 'read', 'none'] as const).find(role => role === value),
  expected: 'one of admin, write, read, none'
}

/**
 * `user`'s role on the repository
 * (GET /repos/{owner}/{repo}/collaborators/{user}/permission). `role_name`
 * names it when it is a base role; a custom role (or none named) counts as
 * the lower of what `user.permissions` allows and the legacy `permission`,
 * which reads maintain as write and triage as read: never more than GitHub
 * says.
 */
async function readRole(
  client: GithubClient,
  { owner, repo }: EventContext['repo'],
  user: string
): Promise<Role> {
  const { data }: { data: unknown } = await client.rest.repos.getCollaboratorPermissionLevel({
    owner,
    repo,
    username: user
  })
  const named = ROLES.find(role => role !== 'none' && role === field(data, 'role_name'))
  if (named) return named
  const source = `GitHub's answer for ${user}'s permission on ${owner}/${repo}`
  const legacy = required(data, 'permission', LEGACY, source)
  const allows = field(data, 'user', 'permissions')
  if (typeof allows !== 'object' || allows === null) return legacy
  const allowed = ALLOWS.find(([key]) => field(allows, key) === true)?.[1] ?? 'none'
  // The lower of the two.
  return atLeast(allowed, legacy) ? legacy : allowed
}

/** Whether `role` is at least `least`. */
function atLeast(role: Role, least: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(least)
}

/** A change of a branch that GitHub recorded: the commit it left the branch at, and GitHub's time of it. */
interface BranchChange {
  sha: string
  /** Epoch seconds. */
  at: number
}

/**
 * The newest change GitHub recorded of branch `ref` of owner/repo (a push,
 * a force push, its creation: GET /repos/{owner}/{repo}/activity, newest
 * first); undefined when it lists none.
 */
async function readLastChange(
  client: GithubClient,
  { owner, repo, ref }: NonNullable<PullHead['branch']>
): Promise<BranchChange | undefined> {
  const full = `refs/heads/${ref}`
  const { data }: { data: unknown } = await client.rest.repos.listActivities({
    owner,
    repo,
    ref: full,
    direction: 'desc',
    per_page: 1
  })
  const source = `GitHub's answer for the changes of ${owner}/${repo}'s ${ref}`
  if (!Array.isArray(data)) throw new Error(`${source} is not a list`)
  if (data.length === 0) return undefined
  const entry: unknown = data[0]
  // Another branch's change would prove nothing about this one.
  if (field(entry, 'ref') !== full) {
    throw new Undecodable(source, '[0].ref', full, field(entry, 'ref') === undefined)
  }
  return {
    sha: required(entry, 'after', SHA, `${source}'s [0]`),
    at: required(entry, 'timestamp', TIME, `${source}'s [0]`)
  }
}
