/**
 * The GitHub REST client every report of the step uses (commit statuses,
 * the pull request and its comments), made one way: @actions/github's
 * Octokit on GITHUB_API_URL, through the runner's proxy settings, its own
 * console warnings sent to the debug log with the token taken out.
 */
import { getOctokit } from '@actions/github'
import type { Logger } from '../util/logger.js'
import { Redaction } from '../util/redaction.js'

export type GithubClient = ReturnType<typeof getOctokit>

export interface GithubClientOptions {
  token: string
  logger: Logger
  /** For tests: a fetch nock can intercept. Default: @actions/github's fetch, which honours the runner's proxy settings. */
  fetch?: typeof fetch
}

/** An Octokit for `token`; its own log lines go to debug, redacted. */
export function githubClient(options: GithubClientOptions): GithubClient {
  const redact = redactor(options.token)
  return getOctokit(options.token, {
    ...(options.fetch ? { request: { fetch: options.fetch } } : {}),
    // Octokit would otherwise print its own warnings to the console.
    log: {
      debug: () => undefined,
      info: () => undefined,
      warn: (message: string) => options.logger.debug(redact(message)),
      error: (message: string) => options.logger.debug(redact(message))
    }
  })
}

/** The token must never reach a log line, whatever a library puts in a message (util/redaction.ts). */
export function redactor(token: string): (text: string) => string {
  const secrets = new Redaction()
  secrets.add(token)
  return text => secrets.redact(text)
}

/** The HTTP status of a failed Octokit request, if it got an answer. */
export function httpStatusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status
  return typeof status === 'number' ? status : undefined
}
