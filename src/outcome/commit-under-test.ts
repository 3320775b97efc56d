/**
 * The one rule for the commit under test and the pull request a run is
 * tied to, used by every report (commit status, pull request comment, the
 * `commit` output): GITHUB_SHA is the wrong commit for most events a team
 * builds pull requests from. The `commit` input overrides the rule; a pull
 * request that cannot be read throws (no report rather than one on the wrong
 * commit). Per event: docs/internals.md, "The commit under test".
 */

/** What the rule reads of @actions/github's context. */
export interface EventContext {
  eventName: string
  payload: Record<string, unknown>
  /** GITHUB_SHA. */
  sha: string
  repo: { owner: string; repo: string }
}

/** The `commit` and `pull-request` inputs. */
export interface CommitInputs {
  commit?: string
  pullRequest?: number
}

/** Where every report of the step goes. */
export interface CommitUnderTest {
  owner: string
  repo: string
  sha: string
  /** The pull request the run is tied to, if exactly one. */
  pullRequest?: number
  /** Where the SHA came from, for the debug log (`pull_request.head.sha`, `commit input`, …). */
  from: string
}

/** Reads a pull request's current head commit (GET /repos/{owner}/{repo}/pulls/{number}, `head.sha`). */
export type HeadReader = (number: number) => Promise<string>

/** Events whose payload has the pull request, with its head. */
const PULL_REQUEST_EVENTS = new Set([
  'pull_request',
  'pull_request_target',
  'pull_request_review',
  'pull_request_review_comment'
])

/** Events whose payload object (named like the event) has a `head_sha` of its own. */
const HEAD_SHA_EVENTS = new Set(['workflow_run', 'check_suite', 'check_run', 'merge_group'])

/** The commit under test and its pull request; throws when a pull request's head is needed and cannot be read. */
export async function commitUnderTest(
  ctx: EventContext,
  inputs: CommitInputs,
  readHead: HeadReader
): Promise<CommitUnderTest> {
  const { owner, repo } = ctx.repo
  const pullRequest = inputs.pullRequest ?? pullRequestOf(ctx)
  const tied = pullRequest === undefined ? {} : { pullRequest }
  if (inputs.commit) return { owner, repo, sha: inputs.commit, ...tied, from: 'the commit input' }
  const head = headShaOf(ctx)
  if (head) return { owner, repo, sha: head.sha, ...tied, from: head.from }
  // A comment on a pull request, or a pull request named by the input:
  // its head now (the payload has no commit), read once.
  if (pullRequest !== undefined) {
    return {
      owner,
      repo,
      sha: await readHead(pullRequest),
      pullRequest,
      from: `pull request #${pullRequest}'s head`
    }
  }
  if (!ctx.sha) throw new Error('the workflow context has no commit SHA (GITHUB_SHA)')
  return { owner, repo, sha: ctx.sha, from: 'GITHUB_SHA' }
}

/**
 * The commit the event's payload names for the events that carry one
 * (pull request, workflow_run, check and merge queue events); throws when
 * such an event lacks it; undefined for the others.
 */
export function headShaOf(ctx: EventContext): { sha: string; from: string } | undefined {
  const event = ctx.eventName
  const path = PULL_REQUEST_EVENTS.has(event)
    ? ['pull_request', 'head', 'sha']
    : HEAD_SHA_EVENTS.has(event)
      ? [event, 'head_sha']
      : undefined
  if (!path) return undefined
  const sha = field(ctx.payload, ...path)
  const from = path.join('.')
  if (typeof sha !== 'string' || sha === '') throw new Error(`the ${event} event has no ${from}`)
  return { sha, from }
}

/** The pull request the event names, if exactly one. */
export function pullRequestOf(ctx: EventContext): number | undefined {
  const { payload, eventName: event } = ctx
  if (PULL_REQUEST_EVENTS.has(event)) return numberOf(field(payload, 'pull_request', 'number'))
  if (event === 'issue_comment') {
    // A pull request is an issue with `pull_request` set; a plain issue has none.
    const issue = field(payload, 'issue')
    return field(issue, 'pull_request') ? numberOf(field(issue, 'number')) : undefined
  }
  if (event === 'workflow_run' || event === 'check_suite' || event === 'check_run') {
    // GitHub lists the pull requests whose head is the commit; for a fork's it
    // lists none (the `pull-request` input says which), and two is ambiguous.
    const object = event === 'check_run' ? field(payload, 'check_run') : field(payload, event)
    const list = field(object, 'pull_requests')
    if (!Array.isArray(list)) return undefined
    const here = list.filter(entry => intoThisRepository(entry, payload))
    return here.length === 1 ? numberOf(field(here[0], 'number')) : undefined
  }
  return undefined
}

/** An entry of `pull_requests` whose base is the workflow's repository (GitHub also lists pull requests into other repositories). */
function intoThisRepository(entry: unknown, payload: Record<string, unknown>): boolean {
  const base = field(entry, 'base', 'repo', 'id')
  const here = field(payload, 'repository', 'id')
  return base === undefined || here === undefined || base === here
}

function field(value: unknown, ...path: string[]): unknown {
  let current = value
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined
    current = (current as Record<string, unknown>)[key]
  }
  return current
}

function numberOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined
}
