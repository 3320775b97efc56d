/**
 * Multibranch scans ("branch indexing"), as branch-api and cloudbees-folder
 * run them:
 *
 * - `POST <project>/build` queues the project itself (ComputedFolder.doBuild
 *   → scheduleBuild2, a Queue.FlyweightTask: no executor is taken, and a
 *   second scan waits while one runs).
 * - When it starts, a new FolderComputation replaces the project's current
 *   one (ComputedFolder.createExecutable), so until then `indexing/` still
 *   shows the previous scan, complete.
 * - The scan walks the SCM's heads (MultiBranchProject.computeChildren,
 *   SCMHeadObserverImpl.observe): a head without a job gets one
 *   (observeNew), and a new job is built with a BranchIndexingCause unless
 *   told not to (doAutomaticBuilds → scheduleBuild: "Scheduled build for
 *   branch: NAME", quiet period -1, i.e. the job's own).
 * - The log reads like github-branch-source's (GitHubSCMSource.retrieve):
 *   branches, then pull requests, with hyperlink notes on the names.
 */
import { createHash } from 'node:crypto'
import { ConsoleLog, consoleNote } from './console.js'
import { causeLine } from './causes.js'
import { decodeBranchName, encodeBranchName } from './name-encoder.js'
import { timeSpan } from './time-span.js'
import type { JobSpec, Result } from '../types.js'
import type { Cause, IndexingState, JobState } from './state.js'

/** One scan: its causes, log and result (a BranchIndexing, FolderComputation). */
export class BranchIndexing implements IndexingState {
  readonly log = new ConsoleLog()
  result: Result | null = null
  finishedAt: number | null = null

  constructor(
    readonly causes: Cause[],
    readonly startedAt: number
  ) {}

  logText(): string {
    return this.log.text()
  }
}

/** What a scan needs of the model. */
export interface ScanHost {
  /** The project's item for an (encoded) name, if any (MultiBranchProject.getItem). */
  child(project: JobState, name: string): JobState | undefined
  /** Creates the job of a newly discovered head (BranchProjectFactory.newInstance). */
  createBranch(project: JobState, encodedName: string, spec: JobSpec): JobState
  /** ParameterizedJobMixIn.scheduleBuild2(job, -1, BranchIndexingCause); false when not buildable. */
  scheduleIndexingBuild(job: JobState): boolean
  /** A model timer (cleared on close). */
  timer(fn: () => void, ms: number): void
}

/** The SCM's heads of a project: JobSpec.heads, else the branches it has jobs for. */
function headsOf(project: JobState): Map<string, JobSpec> {
  if (project.heads) return project.heads
  const heads = new Map<string, JobSpec>()
  for (const child of project.children.values()) heads.set(decodeBranchName(child.name), {})
  return heads
}

/**
 * Runs a scan of `project` into `indexing`, spread over the project's scan
 * duration, and calls `done` when it has finished.
 */
export function runScan(
  host: ScanHost,
  project: JobState,
  indexing: BranchIndexing,
  done: () => void
): void {
  const log = (line: string): void => indexing.log.append(`${line}\n`)
  for (const cause of indexing.causes) log(causeLine(cause, consoleNote))
  log(`[${javaDate(indexing.startedAt)}] Starting branch indexing...`)
  const heads = [...headsOf(project).entries()].sort(([a], [b]) => a.localeCompare(b))
  const branches = heads.filter(([name]) => !isChangeRequest(name))
  const changes = heads.filter(([name]) => isChangeRequest(name))
  const steps: Array<() => void> = []
  steps.push(() => log('\n  Checking branches...'))
  for (const [name, spec] of branches) {
    steps.push(() => {
      log(`\n    Checking branch ${consoleNote(`href:${name}`)}${name}`)
      observe(host, project, name, spec, log)
    })
  }
  steps.push(() => {
    log(`\n  ${branches.length} branches were processed`)
    log('\n  Checking pull-requests...')
  })
  for (const [name, spec] of changes) {
    steps.push(() => {
      log(`\n    Checking pull request ${consoleNote(`href:${name}`)}#${name.slice('PR-'.length)}`)
      observe(host, project, name, spec, log)
    })
  }
  steps.push(() => log(`\n  ${changes.length} pull requests were processed`))
  const duration = Math.max(0, project.scanDurationMs)
  steps.forEach((step, i) => host.timer(step, (duration * i) / steps.length))
  host.timer(() => {
    const end = Date.now()
    log(
      `[${javaDate(end)}] Finished branch indexing. Indexing took ${timeSpan(end - indexing.startedAt)}`
    )
    log('Finished: SUCCESS')
    indexing.result = 'SUCCESS'
    indexing.finishedAt = end
    done()
  }, duration)
}

/** The previous scan a project shows before any is run here (projects are indexed when created). */
export function completedScan(project: JobState, at: number): BranchIndexing {
  const indexing = new BranchIndexing(
    [
      {
        _class: 'hudson.model.Cause$UserIdCause',
        shortDescription: 'Started by user admin',
        userId: 'admin',
        userName: 'admin'
      }
    ],
    at
  )
  const log = (line: string): void => indexing.log.append(`${line}\n`)
  log(causeLine(indexing.causes[0] as Cause, consoleNote))
  log(`[${javaDate(at)}] Starting branch indexing...`)
  for (const child of project.children.values()) {
    const name = decodeBranchName(child.name)
    log(`\n    Checking branch ${consoleNote(`href:${name}`)}${name}`)
    log(`No changes detected: ${name} (still at ${revision(name)})`)
  }
  log(`[${javaDate(at)}] Finished branch indexing. Indexing took 0 ms`)
  log('Finished: SUCCESS')
  indexing.result = 'SUCCESS'
  indexing.finishedAt = at
  return indexing
}

/** SCMHeadObserverImpl.observe: an existing job is left alone (no change); a new one is created and built. */
function observe(
  host: ScanHost,
  project: JobState,
  name: string,
  spec: JobSpec,
  log: (line: string) => void
): void {
  log('    Met criteria')
  const encoded = encodeBranchName(name)
  if (host.child(project, encoded)) {
    log(`No changes detected: ${name} (still at ${revision(name)})`)
    return
  }
  const job = host.createBranch(project, encoded, spec)
  if (!job.indexingBuild) {
    log(`No automatic build triggered for ${name}`)
    return
  }
  log(
    host.scheduleIndexingBuild(job)
      ? `Scheduled build for branch: ${name}`
      : `Did not schedule build for branch: ${name}`
  )
}

/** github-branch-source names change-request jobs `PR-<number>` (GitHubSCMSource.retrievePullRequest). */
function isChangeRequest(name: string): boolean {
  return /^PR-\d+$/.test(name)
}

/** A stable commit id for a head, for the log. */
function revision(name: string): string {
  return createHash('sha1').update(name).digest('hex')
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat']
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

/** Java's `%tc` (Date.toString) in UTC: `Sat Mar 07 10:00:00 UTC 2026`. */
function javaDate(ms: number): string {
  const d = new Date(ms)
  const two = (n: number): string => String(n).padStart(2, '0')
  return `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${two(d.getUTCDate())} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} UTC ${d.getUTCFullYear()}`
}
