/**
 * The state of the GitHub stand-in: who each token acts as, pull requests
 * (their heads), issue comments with their authors and times, and commit
 * statuses, as GitHub's REST API shows them (docs.github.com/rest). An
 * installation token (`ghs_…`, GITHUB_TOKEN's kind) writes as
 * github-actions[bot] unless told otherwise; GitHub refuses it GET /user.
 * Also what a comment command reads: each user's role on the repository,
 * a pull request's head branch, and each branch's recorded changes.
 */

/** Who a token acts as. */
export interface GithubIdentity {
  login: string
  /** An installation token (a GitHub App's, GITHUB_TOKEN): GET /user answers 403. */
  installation: boolean
}

/** An account as GitHub embeds it in answers (`user`, `creator`). */
export interface GithubUser {
  login: string
  id: number
  type: 'User' | 'Bot'
}

/** An issue comment as GitHub stores it. */
export interface GithubComment {
  id: number
  body: string
  user: GithubUser
  created_at: string
  updated_at: string
}

/** A commit status as GitHub stores it. */
export interface GithubStatus {
  id: number
  sha: string
  state: string
  context: string
  description: string | null
  target_url: string | null
  creator: GithubUser
}

/** Where a pull request's head lives: its branch, in which repository. */
export interface GithubPullBranch {
  ref: string
  /** `owner/name` of the head repository; null: a deleted fork. */
  repo: string | null
}

/** A branch change as GitHub records it (the repository activity API). */
export interface GithubChange {
  after: string
  /** GitHub's time, `2026-03-01T12:00:09Z`. */
  timestamp: string
}

/** What GITHUB_TOKEN writes as. */
export const GITHUB_ACTIONS_LOGIN = 'github-actions[bot]'

export class GithubModel {
  /** Comments by issue (pull request) number, oldest first. */
  readonly comments = new Map<number, GithubComment[]>()
  /** Pull requests' head commits, by number (opened in the order set). */
  readonly heads = new Map<number, string>()
  /** Pull requests that are closed (the search's `is:open` leaves them out). */
  readonly closed = new Set<number>()
  readonly statuses: GithubStatus[] = []
  /** `role_name` per login on the repository; a login not here is no collaborator. */
  readonly roles = new Map<string, string>()
  /** Pull requests' head branches, by number (GET pulls answers `head.ref` and `head.repo` when known). */
  readonly pullBranches = new Map<number, GithubPullBranch>()
  /** Each branch's changes, newest first, by `owner/name:branch`; a repository with none here answers 404. */
  readonly changes = new Map<string, GithubChange[]>()
  private nextId = 100
  /** GitHub's clock for `created_at`: one second a comment, so that order shows. */
  private clock = Date.parse('2026-01-01T00:00:00Z')

  constructor(private readonly tokens: Readonly<Record<string, GithubIdentity>> = {}) {}

  /** Who `token` acts as; undefined: GitHub answers 401 Bad credentials. */
  identity(token: string | undefined): GithubIdentity | undefined {
    if (!token) return undefined
    const known = this.tokens[token]
    if (known) return known
    return token.startsWith('ghs_')
      ? { login: GITHUB_ACTIONS_LOGIN, installation: true }
      : undefined
  }

  /** A comment by `login` on issue `number` (also how a test writes another user's). */
  addComment(number: number, login: string, body: string): GithubComment {
    const at = new Date((this.clock += 1000)).toISOString()
    const comment: GithubComment = {
      id: this.nextId++,
      body,
      user: userOf(login),
      created_at: at,
      updated_at: at
    }
    const list = this.comments.get(number) ?? []
    list.push(comment)
    this.comments.set(number, list)
    return comment
  }

  comment(id: number): GithubComment | undefined {
    for (const list of this.comments.values()) {
      const found = list.find(c => c.id === id)
      if (found) return found
    }
    return undefined
  }

  editComment(comment: GithubComment, body: string): void {
    comment.body = body
    comment.updated_at = new Date((this.clock += 1000)).toISOString()
  }

  /** Deletes a comment, as its author or a maintainer can at any time; whether there was one. */
  deleteComment(id: number): boolean {
    for (const list of this.comments.values()) {
      const at = list.findIndex(c => c.id === id)
      if (at >= 0) {
        list.splice(at, 1)
        return true
      }
    }
    return false
  }

  addStatus(
    sha: string,
    login: string,
    fields: Pick<GithubStatus, 'state' | 'context' | 'description' | 'target_url'>
  ): GithubStatus {
    const status = { id: this.nextId++, sha, ...fields, creator: userOf(login) }
    this.statuses.push(status)
    return status
  }

  /** The commit's statuses, newest first, as GET commits/{ref}/statuses lists them. */
  statusesOf(sha: string): GithubStatus[] {
    return this.statuses.filter(s => s.sha === sha).reverse()
  }

  /**
   * The commit's combined state (GET commits/{ref}/status): failure when the
   * latest status of a context is error or failure, else pending when one
   * is pending, else success; undefined without statuses (the search matches
   * no `status:` then).
   */
  combinedState(sha: string): 'failure' | 'pending' | 'success' | undefined {
    const latest = new Map<string, string>()
    for (const s of this.statusesOf(sha)) if (!latest.has(s.context)) latest.set(s.context, s.state)
    const states = [...latest.values()]
    if (states.length === 0) return undefined
    if (states.some(s => s === 'error' || s === 'failure')) return 'failure'
    return states.includes('pending') ? 'pending' : 'success'
  }
}

/** The account behind a login, as GitHub embeds it; `[bot]` logins are apps'. */
export function userOf(login: string): GithubUser {
  let id = 0
  for (const char of login) id = (id * 31 + char.charCodeAt(0)) % 1_000_000
  return { login, id: id + 1, type: login.endsWith('[bot]') ? 'Bot' : 'User' }
}
