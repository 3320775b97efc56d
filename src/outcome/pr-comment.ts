/**
 * Keeps one comment on a pull request up to date (`pr-comment`): found again
 * on later runs by the marker pr-comment-body.ts writes as its first line,
 * updated in place, never a second one.
 *
 * GitHub lists an issue's comments oldest first, 100 a page at most, and
 * has no newest-first order for them: the search reads page 1 for its
 * `Link` header, then goes from the last page it names backwards, so a
 * long conversation costs pages only back to the comment (at most 1,000
 * comments, the newest; past them a new comment is written).
 *
 * Best effort, like the commit status: it never throws. A token that may
 * not comment (403, or 404 where the token cannot see the pull request)
 * gives one warning and no further request in the step; the build and its
 * verdict are not affected.
 */
import type { Logger } from '../util/logger.js'
import { errorText } from '../util/error-text.js'
import { httpStatusOf, type GithubClient } from './github-client.js'

/** Comments searched for the marker, newest first, at most. */
const MAX_SEARCHED_COMMENTS = 1000
const PAGE_SIZE = 100

export interface PullRequestCommentOptions {
  client: GithubClient
  owner: string
  repo: string
  number: number
  /** The first line of the body, which finds it again. */
  marker: string
  logger: Logger
  redact: (text: string) => string
}

/** The one comment of a report on a pull request. */
export class PullRequestComment {
  private id?: number
  private closed = false
  /** Writes go one after the other: the last one asked for is the last one written. */
  private chain: Promise<void> = Promise.resolve()

  constructor(private readonly o: PullRequestCommentOptions) {}

  /** Creates or updates the comment with `body` (which starts with the marker). Never rejects. */
  write(body: string): Promise<void> {
    this.chain = this.chain.then(() => this.send(this.o.redact(body)))
    return this.chain
  }

  private async send(body: string): Promise<void> {
    const { client, owner, repo, number, logger } = this.o
    if (this.closed) return logger.debug(`Pull request comment on #${number} skipped.`)
    try {
      this.id ??= await this.find()
      if (this.id !== undefined) {
        try {
          await client.rest.issues.updateComment({ owner, repo, comment_id: this.id, body })
          return logger.debug(`Updated comment ${this.id} on pull request #${number}.`)
        } catch (error) {
          // Deleted since it was found: write it again.
          if (httpStatusOf(error) !== 404) throw error
        }
      }
      const created = await client.rest.issues.createComment({
        owner,
        repo,
        issue_number: number,
        body
      })
      this.id = created.data.id
      logger.debug(`Created comment ${this.id} on pull request #${number}.`)
    } catch (error) {
      const status = httpStatusOf(error)
      const said = this.o.redact(errorText(error))
      if (status === 403 || status === 404) {
        // A read-only token (a fork's, Dependabot's, or `permissions:`
        // without it): say so once and stop trying for the step.
        this.closed = true
        logger.warning(
          `Could not comment on pull request #${number} of ${owner}/${repo} (HTTP ${status}): ` +
            `the github-token needs the \`pull-requests: write\` permission ` +
            `(a workflow run for a pull request from a fork only gets a read-only token: build forks through a workflow_run workflow). ` +
            `The build itself is not affected. GitHub said: ${said}`
        )
        return
      }
      logger.warning(`Could not write the comment on pull request #${number}: ${said}`)
    }
  }

  /** The id of the newest comment that starts with the marker, among the newest 1,000. */
  private async find(): Promise<number | undefined> {
    const { client, owner, repo, number, marker } = this.o
    const list = (page: number) =>
      client.rest.issues.listComments({
        owner,
        repo,
        issue_number: number,
        per_page: PAGE_SIZE,
        page
      })
    const first = await list(1)
    const last = lastPage(first.headers.link) ?? 1
    const oldest = Math.max(1, last - MAX_SEARCHED_COMMENTS / PAGE_SIZE + 1)
    for (let page = last; page >= oldest; page--) {
      const { data } = page === 1 ? first : await list(page)
      for (let i = data.length - 1; i >= 0; i--) {
        const comment = data[i]
        if (comment?.body?.startsWith(marker)) return comment.id
      }
    }
    return undefined
  }
}

/**
 * The page number of `rel="last"` in a Link header (RFC 8288), if any.
 * @internal
 */
export function lastPage(link: string | undefined): number | undefined {
  for (const part of link?.split(',') ?? []) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(part)
    const rel = match ? /;\s*rel="?([^";]*)"?/.exec(match[2] ?? '')?.[1] : undefined
    if (!match?.[1] || !rel?.split(/\s+/).includes('last')) continue
    try {
      const page = Number(new URL(match[1]).searchParams.get('page'))
      if (Number.isSafeInteger(page) && page >= 1) return page
    } catch {
      // Not a URL: no last page from it.
    }
  }
  return undefined
}
