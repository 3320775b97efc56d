/**
 * Where a settle run looks for hand-offs (hand-off.ts) and which it takes:
 * the heads of the open pull requests GitHub's search finds with a pending
 * or a failing combined status (a failure of another context hides a
 * pending one there), and the `commit` input's commit; at most 100 commits
 * a run, the search's pages taken in turn by the run number so that none
 * waits forever. Of each commit, the latest status of each context that is
 * pending, a hand-off, written by the token's identity and pointing below
 * `url`. A run with nothing pending makes the two searches alone.
 * docs/hand-off.md says it for users.
 */
import type { JobPath } from '../jenkins/model/types.js'
import { fullName, sameJob } from '../jenkins/model/job-path.js'
import { errorText } from '../util/error-text.js'
import type { Settings } from '../inputs/inputs.js'
import type { GithubSession } from './github-client.js'
import { TokenIdentity } from './github-identity.js'
import { readPullHead, type EventContext } from './commit-under-test.js'
import { STATES, type State } from './commit-status.js'
import { field, LOGIN, optional, PULL_NUMBER, required, Undecodable } from './github-values.js'
import { handOffJob, parseHandOff, type HandOff } from './hand-off.js'

/** How many commits a settle run reads at most. */
const MAX_COMMITS = 100

/** One hand-off still pending, the latest status of its context. */
export interface PendingHandOff {
  sha: string
  /** The pull request whose head it is on; undefined for the `commit` input's commit. */
  pull?: number
  context: string
  job: JobPath
  handOff: HandOff
  /** The status as GitHub listed it: the one a write must still find latest. */
  status: ListedStatus
}

/** The repository whose statuses are read, and the step's session. */
type Repo = EventContext['repo'] & { session: GithubSession }

export interface LookOptions extends Repo {
  /** `url` (a hand-off's job must be below it), `commit`, and only those of `job` and of `settle`'s context and creator, when given. */
  settings: Pick<Settings, 'url' | 'commit' | 'job' | 'settle'>
}

/** The hand-offs still pending, in the order their commits were read. */
export async function pendingHandOffs(o: LookOptions): Promise<PendingHandOff[]> {
  const { session, settings } = o
  const { logger } = session
  const { context, creator } = settings.settle ?? {}
  const identity = new TokenIdentity({ session, configured: creator })
  const commits = await commitsToRead(o)
  const found: PendingHandOff[] = []
  /** Who the token is, once asked and not the creator: undefined when it cannot be told. */
  let me: string | undefined | null = null
  const read = new Set<string>()
  for (const { sha: given, pull } of commits) {
    const sha = given ?? (await readPullHead(session.client, o, pull ?? 0)).sha
    // The `commit` input may be a pull request's head too: read once.
    if (read.has(sha)) continue
    read.add(sha)
    const where = pull === undefined ? sha.slice(0, 12) : `#${pull} (${sha.slice(0, 12)})`
    const statuses = await readStatuses(o, sha)
    // The first of a context is its latest, the one GitHub shows.
    const latest = statuses.filter((s, i) => statuses.findIndex(t => t.context === s.context) === i)
    for (const status of latest) {
      const handOff = status.state === 'pending' ? parseHandOff(status.description) : undefined
      if (!handOff) continue
      if (context !== undefined && status.context !== context) continue
      // Asked once (TokenIdentity), and only when there is a hand-off to own.
      if (!(await identity.owns(status.creator))) {
        me = await identity.login()
        logger.debug(
          `Settle: '${status.context}' on ${where} was written by ${status.creator ?? 'nobody known'}, not by the github-token's identity (${me?.toLowerCase() ?? 'unknown'}): left alone.`
        )
        continue
      }
      const job = handOffJob(status.targetUrl, settings.url)
      if (!job) {
        logger.debug(
          `Settle: '${status.context}' on ${where} points at no job below ${settings.url}: left alone, nothing is requested there.`
        )
        continue
      }
      if (settings.job.length > 0 && !sameJob(job, settings.job)) continue
      found.push({ sha, pull, context: status.context, job, handOff, status })
    }
  }
  if (me === undefined) {
    logger.warning(
      `Settle: could not tell who the github-token acts as, so no hand-off counts as this action's: give the login that wrote them in 'status-creator'.`
    )
  }
  logger.debug(
    `Settle: ${found.length} hand-off(s) pending on ${commits.length} commit(s): ${found.map(h => `${h.context} (${fullName(h.job)})`).join(', ') || 'none'}.`
  )
  return found
}

const SAME = ['state', 'description', 'targetUrl', 'creator'] as const

/** The latest status of `h`'s context on its commit is still that hand-off (one request). Never rejects: false when it cannot be read. */
export async function stillPending(o: Repo, h: PendingHandOff): Promise<boolean> {
  try {
    const statuses = await readStatuses(o, h.sha)
    const latest = statuses.find(s => s.context === h.context)
    // h.status is pending: the same state, text, link and creator.
    const same = latest !== undefined && SAME.every(key => latest[key] === h.status[key])
    if (!same) {
      o.session.logger.info(
        `Settle: '${h.context}' on ${h.sha.slice(0, 12)} changed since it was read (now ${latest?.state ?? 'gone'}: ${latest?.description ?? ''}): left as it is.`
      )
    }
    return same
  } catch (error) {
    o.session.logger.warning(
      `Settle: could not read '${h.context}' on ${h.sha.slice(0, 12)} again before writing it, so it is left pending: ${errorText(error)}`
    )
    return false
  }
}

/**
 * The commits to read: the `commit` input's, then the pull requests of
 * one page of each search, in turn (pending, failing, …), at most 100.
 * With more, each run reads the page its run number picks.
 */
async function commitsToRead(o: LookOptions): Promise<Array<{ sha?: string; pull?: number }>> {
  const { logger } = o.session
  const { commit } = o.settings
  const runNumber = Number(process.env.GITHUB_RUN_NUMBER ?? '0') || 0
  const states = ['pending', 'failure'] as const
  const pages = await Promise.all(
    states.map(async state => {
      const first = await searchPulls(o, state)
      const count = Math.ceil(first.total / 100)
      const page = count > 1 ? 1 + (runNumber % count) : 1
      if (page === 1) return first
      return searchPulls(o, state, page)
    })
  )
  // In turn, each once (a Set keeps the order of first adding).
  const [pending = [], failing = []] = pages.map(page => page.pulls)
  const turns = Math.max(pending.length, failing.length)
  const inTurn = Array.from({ length: turns }, (_, i) => [pending[i], failing[i]]).flat()
  const pulls = new Set(inTurn.filter(pull => pull !== undefined))
  const commits = [...(commit ? [{ sha: commit }] : []), ...[...pulls].map(pull => ({ pull }))]
  const total = pages.reduce((sum, page) => sum + page.total, 0) + (commit ? 1 : 0)
  const taken = commits.slice(0, MAX_COMMITS)
  if (total > taken.length) {
    logger.warning(
      `Settle: ${total - taken.length} more commits with a pending or failing status were left for a later run (at most ${MAX_COMMITS} are read a run; each run reads the next ones).`
    )
  }
  return taken
}

/**
 * The numbers of the repository's open pull requests whose head's combined status is
 * `state` (GET /search/issues, page `page` of 100), oldest first; `total`:
 * how many GitHub counts in all.
 */
async function searchPulls(
  { session, owner, repo }: Repo,
  state: 'pending' | 'failure',
  page = 1
): Promise<{ pulls: number[]; total: number }> {
  const { data }: { data: unknown } = await session.client.request('GET /search/issues', {
    q: `repo:${owner}/${repo} is:pr is:open status:${state}`,
    // Oldest first: a stable order, so that the pages a run number picks in turn cover them all.
    sort: 'created',
    order: 'asc',
    per_page: 100,
    page
  })
  const source = `GitHub's search for pull requests with status ${state}`
  const total = field(data, 'total_count')
  const items = field(data, 'items')
  if (typeof total !== 'number' || !Array.isArray(items)) {
    throw new Undecodable(source, 'items', 'a search result', items === undefined)
  }
  const pulls = items.map((item: unknown, i) =>
    required(item, 'number', PULL_NUMBER, `${source}'s [${i}]`)
  )
  return { pulls, total: Math.max(total, pulls.length) }
}

/** A commit status as GitHub lists it. */
interface ListedStatus {
  state: State
  context: string
  description: string | null
  targetUrl: string | null
  /** Its creator's login; undefined when GitHub names none (a deleted account). */
  creator?: string
}

/**
 * The commit's statuses, newest first (GET /repos/{owner}/{repo}/commits/{sha}/statuses,
 * 100): the first of a context is its latest, the one GitHub shows.
 */
async function readStatuses({ session, owner, repo }: Repo, sha: string): Promise<ListedStatus[]> {
  const { data }: { data: unknown } = await session.client.rest.repos.listCommitStatusesForRef({
    owner,
    repo,
    ref: sha,
    per_page: 100
  })
  const source = `GitHub's statuses of ${sha.slice(0, 12)}`
  if (!Array.isArray(data)) throw new Error(`${source} are not a list`)
  return data.map((entry: unknown, i) => {
    const at = `${source}'s [${i}]`
    const state = STATES.find(known => known === field(entry, 'state'))
    const context = field(entry, 'context')
    if (!state) throw new Undecodable(at, 'state', 'a state', !field(entry, 'state'))
    if (typeof context !== 'string') {
      throw new Undecodable(at, 'context', 'a context', context === undefined)
    }
    const text = (key: string): string | null => {
      const value = field(entry, key)
      return typeof value === 'string' ? value : null
    }
    return {
      state,
      context,
      description: text('description'),
      targetUrl: text('target_url'),
      creator: optional(entry, 'creator.login', LOGIN, at)
    }
  })
}
