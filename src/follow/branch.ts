import type { Settings } from '../inputs/inputs.js'
import { unlessNotFound } from '../jenkins/transport/errors.js'
import { branchNameOf, fullName, sameJob } from '../jenkins/model/job-path.js'
import { expectedParameters, sameParameters } from '../jenkins/trigger/reconcile.js'
import type { JobInfo } from '../jenkins/model/types.js'
import type { RecentBuild } from '../jenkins/reads/decode.js'
import type { JenkinsApi } from '../jenkins/client.js'
import { clean } from './log-stream.js'
import type { StepIO } from '../runner/io.js'
import { shortName } from '../util/names.js'
import { closestNames } from '../util/suggest.js'
import { sleep, throwIfAborted } from '../util/wait.js'
import { errorText } from '../util/error-text.js'

/** branch-api's cause of the builds a scan schedules (BranchIndexingCause). */
const BRANCH_INDEXING_CAUSE = 'jenkins.branch.BranchIndexingCause'

/** What resolveBranch found. */
export interface BranchJob {
  /** The branch job's JSON (saves the trigger a second read). */
  info: JobInfo
  /** The build the scan itself queued for the new job, to follow instead of triggering one. */
  indexingBuild?: { queueId: number; number?: number }
}

export interface BranchOptions {
  api: JenkinsApi
  settings: Pick<Settings, 'job' | 'scan' | 'build' | 'parameters' | 'hasParameters'> & {
    branch: NonNullable<Settings['branch']>
  }
  /** Where the scan's progress goes: the step log (whose info makes Jenkins text inert), with a fold for the scan log. */
  out: Pick<StepIO, 'logger' | 'startGroup' | 'endGroup'>
  /** Fires on cancel or timeout; waits end with StepAborted. */
  signal: AbortSignal
  /** Told when the scan was requested (a cancel after it says the scan was left running). */
  onScan?: () => void
  /** First pause between looks at the scan (ms); it grows to MAX_POLL_MS. */
  pollMs?: number
}

/** Scan-log lines shown at most: a repository scan of an organisation can be long. */
const MAX_LOG_LINES = 200
/** Longest pause between looks at the scan (ms). */
const MAX_POLL_MS = 5000

/**
 * The job of `branch` in the multibranch project `job` names. When it does
 * not exist yet (a pull request Jenkins has not seen), scans the project
 * (`scan: if-missing`) and waits, within the step's timeout, for the job to
 * appear. A new branch is built by the scan itself (branch-api's default):
 * that build is returned, so that the step follows it rather than queueing
 * a second one. With `scan: never`, or when the scan ends without the
 * branch, fails naming the closest branches.
 */
export async function resolveBranch(options: BranchOptions): Promise<BranchJob> {
  const { api, settings, out } = options
  const branch = settings.branch
  const existing = await unlessNotFound(api.getJob(settings.job), undefined)
  if (existing) return { info: existing }
  const project = await api.getJob(branch.project)
  const projectName = fullName(branch.project)
  if (project.folderKind !== 'multibranch') {
    const what = project.isFolder ? `a ${project.folderKind ?? 'folder'}` : 'a job'
    throw new Error(
      `Jenkins item ${projectName} is ${what}, not a multibranch project: 'branch' names a branch of the multibranch project in 'job'.${project.folderKind === 'organization' ? ` Name the repository too: job: ${projectName}/<repository>.` : project.isFolder ? '' : " Leave 'branch' out to build it."}`
    )
  }
  if (settings.scan === 'never') {
    const message = `Multibranch project ${projectName} has no branch '${branch.name}' (scan: never) on ${api.baseUrl}.`
    throw new Error(await missingBranch(options, message))
  }
  out.logger.info(
    `Branch '${branch.name}' of ${projectName} has no job in Jenkins yet: scanning ${projectName} (branch indexing) for it.`
  )
  await api.scanMultibranch(branch.project)
  options.onScan?.()
  const scan = new ScanLog(options)
  let found: Awaited<ReturnType<typeof watchScan>> | undefined
  out.startGroup(`Scan of ${projectName}`)
  try {
    found = await watchScan(options, scan)
    // The branch can show up between a read of the log and the next: what the scan
    // wrote by then (the build it scheduled) belongs before the fold closes.
    if (found !== 'missing' && !scan.finished) await scan.poll()
  } finally {
    scan.end(found !== undefined && scan.finished)
    out.endGroup()
  }
  if (found === 'missing') {
    const message = `The scan of ${projectName} finished without a branch '${branch.name}' on ${api.baseUrl}: is it pushed (or the pull request open), and does the project's branch source discover it? The scan log is at ${api.jobUrl(branch.project)}indexing/console.`
    throw new Error(await missingBranch(options, message))
  }
  for (const line of found.said) out.logger.info(line)
  return found.job
}

/** Looks at the scan and the branch until the job is known (with what to say once the scan's fold is closed), or the scan finished without it. */
async function watchScan(
  options: BranchOptions,
  scan: ScanLog
): Promise<{ job: BranchJob; said: string[] } | 'missing'> {
  const { api, settings, out, signal } = options
  const branch = settings.branch
  const job = fullName(settings.job)
  let foldSaid = false
  let pause = options.pollMs ?? 1000
  for (;;) {
    throwIfAborted(signal)
    // The scan's state first, then the branch: when the scan was over
    // before the branch was looked up, a missing branch is final.
    const scanItem = (await api.getQueue()).find(item => sameJob(item.job, branch.project))
    // Scan requests fold like any queue request (Queue.scheduleInternal):
    // each leaves its cause on the one item (CauseAction.foldIntoExisting).
    if (scanItem && !foldSaid && scanItem.causes.length > 1) {
      foldSaid = true
      out.logger.info(
        `Jenkins merged this scan request into the scan of ${fullName(branch.project)} already queued (queue item ${scanItem.id}, ${scanItem.causes.length} requests): the scan is shared.`
      )
    }
    // The scan's log is read while the scan is not queued: it says whether it runs.
    scan.look(scanItem !== undefined || (await scan.poll()))
    const info = await unlessNotFound(api.getJob(settings.job), undefined)
    if (info && (info.buildable !== false || scan.finished)) {
      if (settings.build !== 'new') return { job: { info }, said: [] }
      const found = await findIndexingBuild(options, info)
      if (found === 'other-parameters') {
        const said = `Branch indexing built ${job} with its default parameters; triggering a build with the given parameters.`
        return { job: { info }, said: [said] }
      }
      if (found) {
        const which =
          found.number === undefined ? `queue item ${found.queueId}` : `build #${found.number}`
        const said = [
          `Branch indexing created ${job} and started its first build (cause: Branch indexing): following ${which} instead of triggering a second build.`,
          `Every run that scanned for branch '${branch.name}' follows this build, and Jenkins does not record which: it is shared, and a cancel leaves it running.`
        ]
        return { job: { info, indexingBuild: found }, said }
      }
      if (scan.finished) {
        const said = `The scan finished without building ${job}; triggering a build.`
        return { job: { info }, said: [said] }
      }
    } else if (!info && scan.finished) return 'missing'
    await sleep(pause, signal)
    pause = Math.min(MAX_POLL_MS, Math.round(pause * 1.5))
  }
}

/**
 * The scan: its log, printed as it grows (at most MAX_LOG_LINES lines, each
 * line made safe: it is Jenkins text), and whether it is over.
 * @internal
 */
export class ScanLog {
  private offset = 0
  private partial = ''
  private printed = 0
  private skipped = 0
  /** Looks that saw the scan neither queued nor running, since one that did (counted as one). */
  private idleLooks = 0
  /**
   * Whether the scan is over. Right after the POST the scan is queued (Queue.schedule2
   * runs before doBuild answers) or already running or done; indexing/ shows the
   * previous, complete scan until the new one starts, so "not queued and not
   * running" only counts once the scan was seen queued or running, or when it
   * was seen twice, a pause apart.
   */
  finished = false

  constructor(private readonly options: Pick<BranchOptions, 'api' | 'settings' | 'out'>) {}

  /** `active`: the scan was seen queued or running. */
  look(active: boolean): void {
    this.idleLooks = active ? 1 : this.idleLooks + 1
    this.finished = this.idleLooks >= 2
  }

  /** Prints what is new; true while the scan is running (X-More-Data). */
  async poll(): Promise<boolean> {
    const { api, settings } = this.options
    const chunk = await api.indexingLog(settings.branch.project, this.offset)
    // A new scan rewrites the log from its start: LargeText then answers
    // from 0 for an offset past its end.
    if (chunk.textSize < this.offset) this.partial = ''
    this.offset = chunk.textSize
    // Lines as the runner splits them, with Jenkins' notes and CRs removed.
    const lines = clean(this.partial + chunk.text).split(/\n|\r/)
    this.partial = chunk.truncated ? '' : (lines.pop() ?? '')
    if (chunk.truncated) this.skipped++
    for (const line of lines) this.print(line)
    return chunk.moreData
  }

  /** Prints the last partial line (when the scan is over) and says what was left out. */
  end(complete: boolean): void {
    if (complete && this.partial !== '') this.print(this.partial)
    this.partial = ''
    const { out, api, settings } = this.options
    if (this.printed > MAX_LOG_LINES || this.skipped > 0) {
      out.logger.info(
        `(The scan log was cut short here; all of it is at ${api.jobUrl(settings.branch.project)}indexing/console.)`
      )
    }
  }

  private print(line: string): void {
    this.printed++
    // out.logger.info is coreLogger.info: the one printer that makes Jenkins text inert.
    if (this.printed <= MAX_LOG_LINES) this.options.out.logger.info(line)
  }
}

/**
 * The build the scan queued for the new job: a queued item or a build with
 * the branch-indexing cause. With `parameters`, only one whose parameters
 * are the ones asked for (a scan builds with the defaults); otherwise
 * 'other-parameters', and the step triggers its own.
 */
async function findIndexingBuild(
  options: BranchOptions,
  info: JobInfo
): Promise<{ queueId: number; number?: number } | 'other-parameters' | undefined> {
  const { api, settings } = options
  const expected = settings.hasParameters
    ? expectedParameters(info.parameterDefinitions, settings.parameters)
    : undefined
  const matches = (parameters: RecentBuild['parameters']): boolean =>
    expected === undefined || sameParameters(expected, parameters ?? [])
  const queued = (await api.getQueue())
    .filter(item => sameJob(item.job, settings.job) && item.causes.includes(BRANCH_INDEXING_CAUSE))
    .sort((a, b) => a.id - b.id)
  const item = queued.find(one => matches(one.parameters))
  if (item) return { queueId: item.id }
  const builds = (await api.recentBuilds(settings.job, 5, { actions: true }))
    .filter(b => b.queueId !== undefined && (b.causes ?? []).includes(BRANCH_INDEXING_CAUSE))
    .sort((a, b) => a.number - b.number)
  const build = builds.find(one => matches(one.parameters))
  if (build?.queueId !== undefined) return { queueId: build.queueId, number: build.number }
  return queued.length > 0 || builds.length > 0 ? 'other-parameters' : undefined
}

/** `message`, and the branches the project has that come closest to the one asked for. */
async function missingBranch(options: BranchOptions, message: string): Promise<string> {
  const { api, settings } = options
  const branch = settings.branch
  const jobs = await api.listJobs(branch.project).catch((error: unknown) => {
    options.out.logger.debug(`Could not list the branches: ${errorText(error)}`)
  })
  if (!jobs) return message
  const prefix = `${fullName(branch.project)}/`
  const names = jobs.map(job =>
    branchNameOf(job.startsWith(prefix) ? job.slice(prefix.length) : job)
  )
  if (names.length === 0) return `${message} It has no branches yet.`
  const close = closestNames(branch.name, names, 5)
  if (close.length > 0) return `${message} Closest branches: ${close.map(shortName).join(', ')}.`
  const some = names.slice(0, 10).map(shortName).join(', ')
  return `${message} It has: ${some}${names.length > 10 ? `, … (${names.length} in all)` : ''}.`
}
