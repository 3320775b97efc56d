/**
 * The one rule for the commit under test and the pull request a run is
 * tied to, used by every report (commit status, pull request comment, the
 * `commit` output): GITHUB_SHA is the wrong commit for most events a team
 * builds pull requests from. The `commit` input overrides the rule; a pull
 * request that cannot be read throws (no report rather than one on the wrong
 * commit). Per event: docs/internals.md, "The commit under test". The
 * event itself is read here from the runner's environment, once per use, and
 * never by @actions/github's context, which parses the file when its module
 * loads and throws there on a file that is not JSON or is a folder: a broken
 * event file is said, not thrown.
 */
import { readFileSync } from 'node:fs'
import type { Settings } from '../inputs/inputs.js'
import { errorCode } from '../util/error-text.js'
import { isRecord } from '../util/is-record.js'
import type { GithubClient, GithubSession } from './github-client.js'
import {
  decodedAt,
  field,
  optional,
  PULL_NUMBER,
  BRANCH,
  LOGIN,
  REPO_NAME,
  required,
  SHA,
  Undecodable
} from './github-values.js'

/** What the rule reads of @actions/github's context. */
export interface EventContext {
  eventName: string
  payload: Record<string, unknown>
  /** GITHUB_SHA. */
  sha: string
  repo: { owner: string; repo: string }
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
  inputs: Pick<Settings, 'commit' | 'pullRequest'>,
  /** What reads a pull request's head: none for an empty github-token. */
  { session }: { session: GithubSession | undefined }
): Promise<CommitUnderTest> {
  const { owner, repo } = ctx.repo
  const pullRequest = pullRequestOf(ctx, inputs)
  if (inputs.commit)
    return { owner, repo, sha: inputs.commit, pullRequest, from: 'the commit input' }
  const head = headShaOf(ctx)
  if (head) return { owner, repo, sha: head.sha, pullRequest, from: head.from }
  // A comment on a pull request, or a pull request named by the input:
  // its head now (the payload has no commit), read once.
  if (pullRequest !== undefined) {
    if (!session) throw new Error('github-token is empty')
    const { sha } = await readPullHead(session.client, ctx.repo, pullRequest)
    return { owner, repo, sha, pullRequest, from: `pull request #${pullRequest}'s head` }
  }
  const sha = SHA.decode(ctx.sha)
  if (sha === undefined) {
    throw new Undecodable("the runner's environment", 'GITHUB_SHA', SHA.expected, ctx.sha === '')
  }
  return { owner, repo, sha, from: 'GITHUB_SHA' }
}

/**
 * The commit the event's payload names for the events that carry one
 * (pull request, workflow_run, check and merge queue events); throws when
 * such an event lacks it; undefined for the others.
 */
export function headShaOf(ctx: EventContext): { sha: string; from: string } | undefined {
  const event = ctx.eventName
  const from = PULL_REQUEST_EVENTS.has(event)
    ? 'pull_request.head.sha'
    : HEAD_SHA_EVENTS.has(event)
      ? `${event}.head_sha`
      : undefined
  if (!from) return undefined
  return { sha: required(ctx.payload, from, SHA, `the ${event} event`), from }
}

/**
 * The pull request the run is tied to: the `pull-request` input's, else the
 * one the event names, if exactly one; throws when a number the event gives
 * does not decode (the event is not read when the input names one).
 */
export function pullRequestOf(
  ctx: EventContext,
  inputs: Pick<Settings, 'pullRequest'>
): number | undefined {
  if (inputs.pullRequest !== undefined) return inputs.pullRequest
  const { payload, eventName: event } = ctx
  const source = `the ${event} event`
  if (PULL_REQUEST_EVENTS.has(event)) {
    return optional(payload, 'pull_request.number', PULL_NUMBER, source)
  }
  if (event === 'issue_comment') {
    // A pull request is an issue with `pull_request` set; a plain issue has none.
    const issue = field(payload, 'issue')
    return field(issue, 'pull_request')
      ? required(payload, 'issue.number', PULL_NUMBER, source)
      : undefined
  }
  if (event === 'workflow_run' || event === 'check_suite' || event === 'check_run') {
    // GitHub lists the pull requests whose head is the commit; for a fork's it
    // lists none (the `pull-request` input says which), and two is ambiguous.
    const list = field(payload, event, 'pull_requests')
    if (!Array.isArray(list)) return undefined
    const numbers = list.map((entry: unknown, i) => {
      const path = `${event}.pull_requests[${i}].number`
      return { number: decodedAt(field(entry, 'number'), path, PULL_NUMBER, source), entry }
    })
    const here = numbers.filter(({ entry }) => intoThisRepository(entry, payload))
    return here.length === 1 ? here[0]?.number : undefined
  }
  return undefined
}

/** An entry of `pull_requests` whose base is the workflow's repository (GitHub also lists pull requests into other repositories). */
function intoThisRepository(entry: unknown, payload: Record<string, unknown>): boolean {
  const base = field(entry, 'base', 'repo', 'id')
  const here = field(payload, 'repository', 'id')
  return base === undefined || here === undefined || base === here
}

/** What the runner gave: no repository (outside a workflow), an event file that cannot be read, or the event. */
export type RunnerEvent =
  | { kind: 'outside' }
  | { kind: 'broken'; eventName: string; why: string }
  | { kind: 'read'; context: EventContext }

/** GITHUB_REPOSITORY as owner and name; undefined outside a workflow (or not a repository's name). */
export function repositoryOf(env: NodeJS.ProcessEnv): EventContext['repo'] | undefined {
  const parts = (env.GITHUB_REPOSITORY ?? '').split('/').map(part => REPO_NAME.decode(part))
  const [owner, repo, ...rest] = parts
  return owner && repo && rest.length === 0 ? { owner, repo } : undefined
}

/** The event of the run, from the runner's environment. */
export function readEvent(env: NodeJS.ProcessEnv): RunnerEvent {
  const repo = repositoryOf(env)
  if (!repo) return { kind: 'outside' }
  const eventName = env.GITHUB_EVENT_NAME ?? ''
  const broken = (why: string): RunnerEvent => ({ kind: 'broken', eventName, why })
  let payload: unknown = {}
  try {
    if (env.GITHUB_EVENT_PATH) payload = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, 'utf8'))
  } catch (error) {
    const code = errorCode(error)
    if (error instanceof SyntaxError) return broken('is not JSON')
    // No event file (a terminal run): GITHUB_SHA is the commit, as for push.
    if (code !== 'ENOENT') {
      return broken(code === 'EISDIR' ? 'is a folder' : `cannot be read (${code ?? 'error'})`)
    }
  }
  if (!isRecord(payload)) return broken('holds no JSON object')
  return { kind: 'read', context: { eventName, payload, sha: env.GITHUB_SHA ?? '', repo } }
}

/** The sentence that names a broken event file: `the event file (GITHUB_EVENT_PATH) is not JSON`. */
export function brokenEvent(why: string): string {
  return `the event file (GITHUB_EVENT_PATH) ${why}`
}

/** A pull request's head as GitHub has it now. */
export interface PullHead {
  sha: string
  /** Where the head is: its branch (without `refs/heads/`) in its repository (a fork's, or this one); undefined when GitHub no longer has that repository (a deleted fork). */
  branch?: { owner: string; repo: string; ref: string }
}

/** The pull request's head (GET /repos/{owner}/{repo}/pulls/{number}). */
export async function readPullHead(
  client: GithubClient,
  { owner, repo }: EventContext['repo'],
  number: number
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
