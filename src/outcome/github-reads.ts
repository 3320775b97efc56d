/**
 * The GitHub answers the commit rule and the comment command read, each one
 * request, decoded where it arrives (github-values.ts): a pull request's
 * head, a user's role on the repository, the newest recorded change of a
 * branch. What does not decode throws Undecodable, naming the field; what
 * leaves this file is true to its type.
 */
import type { EventContext } from './commit-under-test.js'
import type { GithubClient } from './github-client.js'
import {
  BRANCH,
  field,
  type Kind,
  LOGIN,
  optional,
  PULL_NUMBER,
  REPO_NAME,
  required,
  SHA,
  TIME,
  Undecodable
} from './github-values.js'

/** The repository a read is about (the session's bounds stop every read). */
type Where = EventContext['repo']

/** A pull request's head as GitHub has it now. */
export interface PullHead {
  sha: string
  /** Where the head is: its branch (without `refs/heads/`) in its repository (a fork's, or this one); undefined when GitHub no longer has that repository (a deleted fork). */
  branch?: { owner: string; repo: string; ref: string }
}

/** The pull request's head (GET /repos/{owner}/{repo}/pulls/{number}). */
export async function readPullHead(
  client: GithubClient,
  { owner, repo, number }: Where & { number: number }
): Promise<PullHead> {
  const { data }: { data: unknown } = await client.rest.pulls.get({
    owner,
    repo,
    pull_number: number
  })
  const source = `GitHub's answer for pull request #${number}`
  const sha = required(data, 'head.sha', SHA, source)
  const headRepo = optional(data, 'head.repo.name', REPO_NAME, source)
  if (headRepo === undefined) return { sha }
  return {
    sha,
    branch: {
      owner: required(data, 'head.repo.owner.login', LOGIN, source),
      repo: headRepo,
      ref: required(data, 'head.ref', BRANCH, source)
    }
  }
}

/** GitHub's base roles on a repository, lowest first; `none`: not a collaborator. */
const ROLES = ['none', 'read', 'triage', 'write', 'maintain', 'admin'] as const
export type Role = (typeof ROLES)[number]

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
export async function readRole(
  client: GithubClient,
  { owner, repo, user }: Where & { user: string }
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
export function atLeast(role: Role, least: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(least)
}

/** A change of a branch that GitHub recorded: the commit it left the branch at, and GitHub's time of it. */
export interface BranchChange {
  sha: string
  /** Epoch seconds. */
  at: number
}

/**
 * The newest change GitHub recorded of branch `ref` of owner/repo (a push,
 * a force push, its creation: GET /repos/{owner}/{repo}/activity, newest
 * first); undefined when it lists none.
 */
export async function readLastChange(
  client: GithubClient,
  { owner, repo, ref }: Where & { ref: string }
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

/**
 * The numbers of the repository's open pull requests whose head's combined status is
 * `state` (GET /search/issues, page `page` of 100), oldest first; `total`:
 * how many GitHub counts in all.
 */
export async function searchPulls(
  client: GithubClient,
  { owner, repo, state, page = 1 }: Where & { state: 'pending' | 'failure'; page?: number }
): Promise<{ pulls: number[]; total: number }> {
  const { data }: { data: unknown } = await client.request('GET /search/issues', {
    q: `repo:${owner}/${repo} is:pr is:open status:${state}`,
    // Oldest first: a stable order, so that the pages a run number picks in turn cover them all.
    sort: 'created',
    order: 'asc',
    per_page: 100,
    page
  })
  const source = `GitHub's search for pull requests with status ${state}`
  const total = field(data, 'total_count')
  const items = field(data, 'items')
  if (typeof total !== 'number' || !Array.isArray(items)) {
    throw new Undecodable(source, 'items', 'a search result', items === undefined)
  }
  const pulls = items.map((item: unknown, i) =>
    required(item, 'number', PULL_NUMBER, `${source}'s [${i}]`)
  )
  return { pulls, total: Math.max(total, pulls.length) }
}

/** A commit status as GitHub lists it. */
export interface ListedStatus {
  state: State
  context: string
  description: string | null
  targetUrl: string | null
  /** Its creator's login; undefined when GitHub names none (a deleted account). */
  creator?: string
}

const STATES = ['pending', 'success', 'failure', 'error'] as const
/** A commit status' state, as GitHub lists and takes them. */
export type State = (typeof STATES)[number]

/**
 * The commit's statuses, newest first (GET /repos/{owner}/{repo}/commits/{sha}/statuses,
 * 100): the first of a context is its latest, the one GitHub shows.
 */
export async function readStatuses(
  client: GithubClient,
  { owner, repo, sha }: Where & { sha: string }
): Promise<ListedStatus[]> {
  const { data }: { data: unknown } = await client.rest.repos.listCommitStatusesForRef({
    owner,
    repo,
    ref: sha,
    per_page: 100
  })
  const source = `GitHub's statuses of ${sha.slice(0, 12)}`
  if (!Array.isArray(data)) throw new Error(`${source} are not a list`)
  return data.map((entry: unknown, i) => {
    const at = `${source}'s [${i}]`
    const state = STATES.find(known => known === field(entry, 'state'))
    const context = field(entry, 'context')
    if (!state) throw new Undecodable(at, 'state', 'a state', !field(entry, 'state'))
    if (typeof context !== 'string') {
      throw new Undecodable(at, 'context', 'a context', context === undefined)
    }
    const text = (key: string): string | null => {
      const value = field(entry, key)
      return typeof value === 'string' ? value : null
    }
    const creator = optional(entry, 'creator.login', LOGIN, at)
    return {
      state,
      context,
      description: text('description'),
      targetUrl: text('target_url'),
      ...(creator === undefined ? {} : { creator })
    }
  })
}
