/** A CommitStatusReporter as github-reports.ts makes one, with what a test leaves out filled in. */
import { CommitStatusReporter, type CommitStatusOptions } from '../../src/outcome/commit-status.js'
import { githubClient, GithubSession, redactor } from '../../src/outcome/github-client.js'

type Given = Omit<CommitStatusOptions, 'client' | 'gate' | 'session' | 'target' | 'redact'> &
  Partial<Pick<CommitStatusOptions, 'gate' | 'session' | 'redact'>> & {
    token: string
    fetch?: typeof fetch
  }

/** A reporter on commit `sha` of o/r, with the step's client made from `token`. */
export function statusReporter(given: Given, sha: string): CommitStatusReporter {
  const { token, fetch, logger } = given
  const session = given.session ?? new GithubSession({ logger })
  return new CommitStatusReporter({
    ...given,
    client: githubClient({ token, logger, fetch, session }),
    gate: given.gate ?? { closed: false },
    session,
    target: { owner: 'o', repo: 'r', sha },
    redact: given.redact ?? redactor(token)
  })
}
