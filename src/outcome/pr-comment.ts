/**
 * Keeps one comment on a pull request up to date (`pr-comment`): the newest
 * of the newest 1,000 comments that starts with the marker pr-comment-body.ts
 * writes and that the token's own identity wrote (github-identity.ts); it is
 * updated in place (one deleted, or whose edit GitHub refuses, is written
 * anew). The marker alone proves nothing, anyone can type it: a comment by
 * anyone else is never edited. GitHub lists comments oldest first, so the
 * search reads page 1 for its `Link` header, then from the last page back.
 * Best effort: it never throws and the verdict stands; a token that may not
 * comment gives one warning, GitHub not answering or rate-limiting is said
 * once for the step (GithubSession).
 */
import type { GithubSession } from './github-client.js'
import type { TokenIdentity } from './github-identity.js'
import { githubFailure, type GithubFailure } from './github-transport.js'
import { field } from './github-values.js'

/** Comments searched for the marker, newest first, at most. */
const MAX_SEARCHED_COMMENTS = 1000
const PAGE_SIZE = 100

export interface PullRequestCommentOptions {
  session: GithubSession
  /** Who the token is: only its comments are the action's. */
  identity: TokenIdentity
  owner: string
  repo: string
  number: number
  /** The first line of the body, which finds it again. */
  marker: string
  redact: (text: string) => string
}

/** A comment as GitHub lists it, decoded: what the search reads of it. */
interface IssueComment {
  id: number
  body: string
  /** `user.login`; undefined when GitHub names none (a deleted account). */
  author: string | undefined
}

/** The one comment of a report on a pull request. */
export class PullRequestComment {
  private id?: number
  private closed = false
  /** Writes go one after the other: the last one asked for is the last one written. */
  private chain: Promise<void> = Promise.resolve()

  constructor(private readonly o: PullRequestCommentOptions) {}

  /** The pull request, as the comment requests name it. */
  private get issue() {
    return { owner: this.o.owner, repo: this.o.repo, issue_number: this.o.number }
  }

  /** Creates or updates the comment with `body` (which starts with the marker). Never rejects. */
  write(body: string): Promise<void> {
    this.chain = this.chain.then(() => this.send(this.o.redact(body)))
    return this.chain
  }

  private async send(body: string): Promise<void> {
    const { number, session } = this.o
    if (this.closed || !session.open) {
      return session.logger.debug(`Pull request comment on #${number} skipped.`)
    }
    try {
      this.id ??= await this.find()
      // Finding it may have met a GitHub that does not answer (said once).
      if (!session.open) return
      if (this.id !== undefined && (await this.update(this.id, body))) return
      await this.create(body)
    } catch (error) {
      this.failed(githubFailure(error))
    }
  }

  /**
   * PATCHes the action's own comment; false when that cannot be done and a
   * new one is written instead: it is gone (deleted since), or GitHub refuses
   * the edit (then creating says whether the token may comment at all).
   */
  private async update(id: number, body: string): Promise<boolean> {
    const { session, owner, repo, number } = this.o
    try {
      await session.client.rest.issues.updateComment({ owner, repo, comment_id: id, body })
      session.logger.debug(`Updated comment ${id} on pull request #${number}.`)
      return true
    } catch (error) {
      const failure = githubFailure(error)
      if (failure.kind !== 'answered' || (failure.status !== 404 && failure.status !== 403)) {
        throw error
      }
      session.logger.debug(
        failure.status === 404
          ? `Comment ${id} on pull request #${number} is gone: writing a new one.`
          : `GitHub refused to update comment ${id} on pull request #${number} (HTTP 403: ${this.o.redact(failure.message)}): writing a new one.`
      )
      this.id = undefined
      return false
    }
  }

  private async create(body: string): Promise<void> {
    const { session, number, identity } = this.o
    const created = await session.client.rest.issues.createComment({ ...this.issue, body })
    const comment = decodeComment(created.data)
    if (!comment) {
      // Written, but unknown: the next write searches again (and finds it, ours).
      return session.logger.debug(
        `Created a comment on pull request #${number}; GitHub named no id.`
      )
    }
    this.id = comment.id
    identity.learn(comment.author)
    session.logger.debug(`Created comment ${comment.id} on pull request #${number}.`)
  }

  private failed(failure: GithubFailure): void {
    const { owner, repo, number, session } = this.o
    if (session.handled(failure, `The comment on pull request #${number}`)) return
    const said = this.o.redact(failure.message)
    // Refused to list or to create (an edit refused is followed by a create).
    if (failure.kind === 'answered' && (failure.status === 403 || failure.status === 404)) {
      // A read-only token (a fork's, Dependabot's, or `permissions:`
      // without it): say so once and stop trying for the step.
      this.closed = true
      session.logger.warning(
        `Could not comment on pull request #${number} of ${owner}/${repo} (HTTP ${failure.status}): ` +
          `the github-token needs the \`pull-requests: write\` permission ` +
          `(a workflow run for a pull request from a fork only gets a read-only token: build forks through a workflow_run workflow). ` +
          `The build itself is not affected. GitHub said: ${said}`
      )
      return
    }
    session.logger.warning(`Could not write the comment on pull request #${number}: ${said}`)
  }

  /**
   * The id of the newest comment among the newest 1,000 that the token's
   * identity wrote and that starts with the marker. Comments by anyone else
   * are passed over, marker or not; who the token is, is asked only once a
   * comment carries the marker.
   */
  private async find(): Promise<number | undefined> {
    const { session, number, marker, identity } = this.o
    const list = async (page: number) => {
      const answer = await session.client.rest.issues.listComments({
        ...this.issue,
        per_page: PAGE_SIZE,
        page
      })
      // A page as GitHub lists it: the comments that decode.
      const data: unknown = answer.data
      const comments = (Array.isArray(data) ? data : []).map(decodeComment)
      return { comments: comments.filter(c => c !== undefined), link: answer.headers.link }
    }
    const first = await list(1)
    const last = lastPage(first.link) ?? 1
    const oldest = Math.max(1, last - MAX_SEARCHED_COMMENTS / PAGE_SIZE + 1)
    let passed = 0
    try {
      for (let page = last; page >= oldest; page--) {
        const { comments } = page === 1 ? first : await list(page)
        for (const comment of comments.toReversed()) {
          if (!comment.body.startsWith(marker)) continue
          if (await identity.owns(comment.author)) return comment.id
          passed++
        }
      }
      return undefined
    } finally {
      if (passed > 0) {
        session.logger.debug(
          `Passed over ${passed} comment(s) on #${number} with the marker that ${(await identity.login()) ?? 'an unknown identity'} did not write.`
        )
      }
    }
  }
}

/** A comment GitHub answered with; undefined without a usable id. */
function decodeComment(value: unknown): IssueComment | undefined {
  const id = field(value, 'id')
  const body = field(value, 'body')
  const login = field(value, 'user', 'login')
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= 0) return undefined
  return {
    id,
    body: typeof body === 'string' ? body : '',
    author: typeof login === 'string' && login !== '' ? login : undefined
  }
}

/**
 * The page number of `rel="last"` in a Link header (RFC 8288), if any.
 * @internal
 */
export function lastPage(link: string | undefined): number | undefined {
  for (const part of link?.split(',') ?? []) {
    const [, target, params = ''] = /^\s*<([^>]*)>(.*)$/.exec(part) ?? []
    const rels = /;\s*rel="?([^";]*)"?/.exec(params)?.[1]?.split(/\s+/)
    if (!target || !rels?.includes('last') || !URL.canParse(target)) continue
    const page = Number(new URL(target).searchParams.get('page'))
    if (Number.isSafeInteger(page) && page >= 1) return page
  }
  return undefined
}
