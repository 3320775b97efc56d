/**
 * Who the github-token acts as on GitHub: the one answer to "did this step's
 * token write that?", which decides what the action may edit (only what its
 * own identity wrote: anyone can type the marker). In order: a login the
 * workflow names (`configured`), the author GitHub gave the step's own new
 * comment, or GET /user: a personal, OAuth or fine-grained token answers its
 * login with no extra permission; an installation token (GITHUB_TOKEN) is
 * refused there (403), and GITHUB_TOKEN writes as github-actions[bot]. Not
 * known (another failure): nothing counts as the action's own.
 * docs/github-reports.md says it for users.
 */
import type { GithubSession } from './github-client.js'
import { githubFailure } from './github-transport.js'
import { field } from './github-values.js'

/**
 * The author of what GITHUB_TOKEN writes. A login cannot contain brackets: no account can take it.
 * @internal
 */
export const GITHUB_ACTIONS_BOT = 'github-actions[bot]'

export interface TokenIdentityOptions {
  session: GithubSession
  /** A login the workflow names for the token (another app's): used as it is, nothing is asked. */
  configured?: string
}

/** The identity the step's github-token acts as, found once. */
export class TokenIdentity {
  private learned: string | undefined
  private asked: Promise<string | undefined> | undefined

  constructor(private readonly o: TokenIdentityOptions) {}

  /** The login, or undefined when it cannot be told (then nothing is the action's to edit). Never rejects. */
  async login(): Promise<string | undefined> {
    if (this.o.configured) return this.o.configured
    if (this.learned) return this.learned
    this.asked ??= this.ask()
    return this.learned ?? (await this.asked)
  }

  /** Whether `author` (a comment's `user.login`) is the token's identity; GitHub logins ignore case. */
  async owns(author: string | undefined): Promise<boolean> {
    const me = await this.login()
    return author !== undefined && me?.toLowerCase() === author.toLowerCase()
  }

  /** GitHub's answer to something the step created names its author: that is who the token is. */
  learn(author: string | undefined): void {
    if (!author || this.o.configured) return
    if (this.learned === undefined && this.asked === undefined) {
      this.o.session.logger.debug(`The github-token writes as ${author}.`)
    }
    this.learned = author
  }

  private async ask(): Promise<string | undefined> {
    const { session } = this.o
    const { logger } = session
    try {
      const { data } = await session.client.rest.users.getAuthenticated()
      const login = field(data, 'login')
      if (typeof login === 'string' && login !== '') {
        logger.debug(`The github-token acts as ${login} (GET /user).`)
        return login
      }
      logger.debug('GET /user named no login: nothing on GitHub counts as this action’s to edit.')
      return undefined
    } catch (error) {
      const failure = githubFailure(error)
      if (failure.kind === 'answered' && failure.status === 403) {
        // "Resource not accessible by integration": an installation token.
        logger.debug(
          `The github-token is an installation token (GET /user: 403): it writes as ${GITHUB_ACTIONS_BOT}.`
        )
        return GITHUB_ACTIONS_BOT
      }
      if (!session.handled(failure, 'Who the github-token is')) {
        logger.debug(
          `Could not tell who the github-token is (${failure.message}): nothing on GitHub counts as this action's to edit.`
        )
      }
      return undefined
    }
  }
}
