/**
 * What must be settled about the commit under test before anything is sent
 * to Jenkins: on a comment command (`issue_comment`), that it may run and
 * which commit it builds (comment-command.ts); with `commit-parameter`, the
 * commit itself, which every build gets as that parameter. The settings the
 * step then runs with carry it as `commit` (and its pull request), so that
 * the statuses and the comment name the very commit Jenkins was given,
 * without reading it again.
 */
import type { Settings } from '../inputs/inputs.js'
import type { Logger } from '../util/logger.js'
import type { StepBounds } from '../util/request-bounds.js'
import { CommentCommandRefused, admitCommentCommand, type Admitted } from './comment-command.js'
import { brokenEvent, commitUnderTest, readEvent } from './commit-under-test.js'

import { failureEnd } from './github-transport.js'

export interface GateOptions {
  logger: Logger
  /** The step's cancel signal: every GitHub request stops with it. */
  signal?: AbortSignal
  /** The step's bounds for GitHub requests (runBounded): its deadline and signal, then the abort's budget. */
  bounds?: Pick<StepBounds, 'current'>
  /** The runner's environment; default process.env. */
  env?: NodeJS.ProcessEnv
  /** For tests: a fetch nock can intercept. */
  fetch?: typeof fetch
}

/** The settings the step runs with: `settings`, or, on a comment command or with `commit-parameter`, with the commit settled. Throws when it cannot be. */
export async function settleCommit(settings: Settings, o: GateOptions): Promise<Settings> {
  const env = o.env ?? process.env
  const comment = env.GITHUB_EVENT_NAME === 'issue_comment'
  if (!comment && settings.commitParameter === undefined) return settings
  if (!comment && settings.commit !== undefined)
    return withCommit(settings, { sha: settings.commit }, o)
  const needs = "Input 'commit-parameter' needs the commit under test"
  const event = readEvent(env)
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
  if (comment) {
    const admitted = await admitCommentCommand({ ctx, settings, session, ...o })
    return withCommit(settings, admitted, o)
  }
  try {
    const target = await commitUnderTest(ctx, settings, { session })
    const pullRequest = target.pullRequest
    return withCommit(
      settings,
      { sha: target.sha, ...(pullRequest === undefined ? {} : { pullRequest }) },
      o
    )
  } catch (error) {
    if (o.signal?.aborted) throw error
    throw new Error(
      `${needs}, which could not be read${failureEnd(error, session?.redact ?? (text => text))}. Nothing was sent to Jenkins.`
    )
  }
}

/** `settings` with the commit settled: as `commit`, its pull request, and the `commit-parameter` of every build. */
function withCommit(settings: Settings, { sha, pullRequest }: Admitted, o: GateOptions): Settings {
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
