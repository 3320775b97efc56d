/** A CommitStatusReporter as github-reports.ts makes one, with what a test leaves out filled in. */
import { CommitStatusReporter, type CommitStatusOptions } from '../../src/outcome/commit-status.js'
import { GithubSession } from '../../src/outcome/github-client.js'
import type { Logger } from '../../src/util/logger.js'

type Given = Omit<CommitStatusOptions, 'gate' | 'session' | 'target' | 'redact'> &
  Partial<Pick<CommitStatusOptions, 'gate' | 'session' | 'redact'>> & {
    token: string
    logger: Logger
  }

/** A reporter on commit `sha` of o/r, with the step's session made from `token` unless given. */
export function statusReporter(given: Given, sha: string): CommitStatusReporter {
  const { token, logger } = given
  const session = given.session ?? new GithubSession({ token, logger })
  return new CommitStatusReporter({
    ...given,
    gate: given.gate ?? { closed: false },
    session,
    target: { owner: 'o', repo: 'r', sha },
    redact: given.redact ?? session.redact
  })
}
