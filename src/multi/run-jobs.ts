import { abortRemote, SHARED_WORK_LEFT } from '../follow/cancel.js'
import { GithubReports } from '../outcome/github-reports.js'
import type { Settings } from '../inputs/inputs.js'
import type { JobEntry } from '../inputs/jobs-input.js'
import { Interrupted } from '../jenkins/transport/errors.js'
import { jobKey } from '../jenkins/model/job-path.js'
import type {
  Build,
  BuildOutputsApi,
  BuildRef,
  JenkinsApi,
  JobInfo,
  TriggerResult
} from '../jenkins/model/types.js'
import type { UploadFile } from '../jenkins/transport/multipart.js'
import { namedLogger, type Logger } from '../util/logger.js'
import { expectationFrom } from '../follow/poll-policy.js'
import type { StepIO } from '../runner/io.js'
import type { RemoteWork } from '../step/remote-work.js'
import type { StepBounds } from '../util/request-bounds.js'
import { settleBy, throwIfAborted } from '../util/wait.js'
import { judgeEnd } from '../step/build-ended.js'
import { buildStarted, existingBuild, queueBuild, type StepItem } from '../step/build-begun.js'
import type { BuildMode } from '../inputs/input-values.js'
import { completeBuild } from './complete.js'
import type { Item } from './item.js'
import { disableJobs } from './disable-jobs.js'
import { BuildsFollower } from '../follow/follow-builds.js'
import { Printer } from './printer.js'
import type { BuildReport } from '../outcome/report.js'
import { jobsFailure, setJobsOutputs, writeJobsSummary } from './report.js'
import { resolveJobs } from './resolve-jobs.js'
import type { SchedulePolicy } from '../follow/schedule-policy.js'
import { errorText } from '../util/error-text.js'

export interface JobsRunOptions {
  api: JenkinsApi & BuildOutputsApi
  /** Settings with `jobs`. */
  settings: Settings
  /** Fires on cancel or timeout. */
  signal: AbortSignal
  /** The bounds of its GitHub requests (runBounded). */
  githubBounds: StepBounds
  io: StepIO
  work: RemoteWork
  policy?: SchedulePolicy
  /** Each item's files (upload-files.ts), checked on disk; by item index. */
  uploads?: ReadonlyArray<readonly UploadFile[]>
}

/** How long the end of a run waits for work on the side (a commit status) once the step was stopped (ms). */
const SETTLE_ON_ABORT_MS = 1000

/**
 * Several Jenkins builds from one step, with one verdict: resolves every
 * job (and branch) before triggering any, triggers them all at once, follows
 * them together with one client (follow-builds.ts: one round of lists for
 * all), prints one line per state change of each and each console in its
 * own group when its build ends, stops the others on the first failure with
 * `fail-fast`, and reports: the `builds` output, one summary table, one
 * failure naming each build that did not pass.
 */
export class JobsRun {
  readonly printer: Printer
  private readonly items: Item[]
  private readonly entries: readonly JobEntry[]
  private follower: BuildsFollower | undefined
  /** Work on the side (completions, statuses, fail-fast), awaited before the run ends. */
  private readonly pending = new Set<Promise<unknown>>()
  private failingFast = false
  /** The commit under test, its statuses (one gate: one warning for the step) and the one comment for every build. */
  private github?: GithubReports

  constructor(private readonly o: JobsRunOptions) {
    this.printer = new Printer(o.io)
    this.entries = o.settings.jobs ?? []
    this.items = this.entries.map((entry, index) => ({
      index,
      entry,
      report: {
        outcome: { jobName: entry.jobName, jobUrl: o.api.jobUrl(entry.job) },
        tail: []
      },
      stopping: false,
      done: false
    }))
  }

  private get log(): Logger {
    return this.printer.logger
  }

  /** Runs the step to its verdict: throws naming every build that did not pass. */
  async run(): Promise<void> {
    const { settings, io } = this.o
    if (settings.disable) return disableJobs(this.o.api, this.entries, this.log)
    try {
      await this.resolve()
      await this.startReports()
      if (settings.build === 'new') await this.triggerAll()
      else this.adoptLast()
      this.side(this.github?.show(this.items.map(item => item.report)))
      if (settings.wait !== 'queued') await this.follow()
      else for (const item of this.items) this.settleItem(item)
    } catch (error) {
      if (!this.o.signal.aborted) await this.finishComment(errorText(error))
      throw error
    } finally {
      await this.settlePending()
    }
    await this.finishComment()
    setJobsOutputs(io, this.reports, this.log)
    await writeJobsSummary(io.summary, this.reports, this.log)
    const failure = jobsFailure(this.reports, settings.accept)
    if (failure) throw new Error(failure)
  }

  /** What is known when the step was stopped: outputs and summary. Never throws. */
  async reportSoFar(notes: ReadonlyMap<string, string>): Promise<void> {
    for (const item of this.items) {
      const note = notes.get(jobKey(item.entry.job))
      if (note && !item.done) item.report.left = note
    }
    try {
      setJobsOutputs(this.o.io, this.reports, this.log)
    } catch (error) {
      this.log.debug(`Could not set the outputs: ${errorText(error)}`)
    }
    await writeJobsSummary(this.o.io.summary, this.reports, this.log)
  }

  /** Ends every commit status still pending, and the comment, with `description` (the step was stopped). */
  finishStatuses(description: string): Promise<unknown> {
    return Promise.all([
      ...this.items
        .filter(item => item.status && !item.status.finished)
        .map(item => item.status?.finish('error', description, item.ref?.url)),
      this.finishComment(description)
    ])
  }

  /** The comment's final text: every build as it ended, `error` on those that did not. Never rejects. */
  private finishComment(error?: string): Promise<void> {
    const builds = this.items.map(item =>
      error && !item.done && !item.report.error ? { ...item.report, error } : item.report
    )
    return this.github?.show(builds, true) ?? Promise.resolve()
  }

  private get reports(): BuildReport[] {
    return this.items.map(item => item.report)
  }

  // ---- before any trigger ----------------------------------------------------

  private async resolve(): Promise<void> {
    const { api, settings, io, signal } = this.o
    const resolved = await resolveJobs({
      api,
      entries: this.entries,
      build: settings.build,
      scan: settings.scan,
      out: {
        logger: this.log,
        startGroup: title => io.startGroup(title),
        endGroup: () => io.endGroup()
      },
      logger: this.log,
      signal,
      onScan: project => this.o.work.scans.push(project)
    })
    this.items.forEach((item, i) => Object.assign(item, resolved[i]))
  }

  /** The commit under test (read once, before any trigger), and a status reporter per build. */
  private async startReports(): Promise<void> {
    const { settings, io } = this.o
    const reports = await GithubReports.start({
      settings,
      logger: this.log,
      setOutput: (name, value) => io.setOutput(name, value),
      redact: text => io.redact(text),
      // One comment for the step: named for all its builds.
      reportName: this.entries.map(entry => entry.statusContext).join(' '),
      bounds: this.o.githubBounds
    })
    this.github = reports
    if (!settings.commitStatus) return
    for (const item of this.items) item.status = await reports.status(item.entry.statusContext)
  }

  // ---- triggers --------------------------------------------------------------

  /** Triggers every item at once; one refused is that item's failure, the others go on. */
  private async triggerAll(): Promise<void> {
    const settled = await Promise.allSettled(this.items.map(item => this.trigger(item)))
    const stopped = settled.find(s => s.status === 'rejected')
    if (stopped) throw (stopped as PromiseRejectedResult).reason
  }

  private async trigger(item: Item): Promise<void> {
    const { signal } = this.o
    throwIfAborted(signal)
    let queued: TriggerResult
    try {
      const { info, branch, entry } = item
      const uploads = this.o.uploads?.[item.index] ?? []
      const request = { info: info as JobInfo, parameters: entry.parameters, uploads, branch }
      queued = await queueBuild(this.stepItem(item), request)
    } catch (error) {
      if (error instanceof Interrupted || signal.aborted) throw error
      return this.fail(item, error)
    }
    item.queueId = queued.queueId
    this.side(item.status?.pending('Queued in Jenkins', queued.queueUrl))
  }

  /** build: last — the builds as read; running ones are followed to their end. */
  private adoptLast(): void {
    const mode = this.o.settings.build as Exclude<BuildMode, 'new'>
    for (const item of this.items) {
      const ref = existingBuild(this.stepItem(item), item.first as Build, mode)
      item.ref = ref
      this.side(item.status?.pending(`Jenkins build #${ref.number} running`, ref.url))
    }
  }

  // ---- following -------------------------------------------------------------

  private async follow(): Promise<void> {
    const { api, settings, signal, policy } = this.o
    const follower = new BuildsFollower({
      api,
      logger: this.log,
      signal,
      policy,
      hooks: {
        waiting: (track, why) => {
          for (const item of this.owners(track)) {
            this.log.info(`Jenkins ${item.entry.jobName}: waiting in the queue: ${why}`)
          }
        },
        started: (track, ref) => this.started(track, ref),
        ended: (track, build) => this.ended(track, build),
        failed: (track, error) => this.lost(track, error)
      }
    })
    this.follower = follower
    const byQueue = new Map<number, number>()
    for (const item of this.items) {
      if (item.done) continue
      if (settings.build !== 'new') {
        const first = item.first as Build
        if (settings.wait === 'started') this.settleItem(item, first)
        else if (!first.building) this.finished([item], first, false)
        else item.track = follower.addRunning(item.ref as BuildRef, { build: first })
        continue
      }
      const queueId = item.queueId
      if (queueId === undefined) continue
      let track = byQueue.get(queueId)
      if (track === undefined) {
        track = follower.addQueued(
          item.entry.job,
          queueId,
          expectationFrom(item.info?.recent ?? [])
        )
        byQueue.set(queueId, track)
      }
      item.track = track
    }
    await follower.run()
    if (!follower.batched) {
      this.log.debug(
        'Followed the builds one by one: Jenkins did not show them in computer/api/json.'
      )
    }
  }

  private stepItem({ index, entry, report }: Item): StepItem {
    const { api, work } = this.o
    return { api, work, index, job: entry.job, outcome: report.outcome, logger: this.log }
  }

  private owners(track: number): Item[] {
    return this.items.filter(item => item.track === track && !item.done)
  }

  private started(track: number, ref: BuildRef): void {
    for (const item of this.owners(track)) {
      item.ref = ref
      buildStarted(this.stepItem(item), ref)
      this.side(item.status?.pending(`Jenkins build #${ref.number} running`, ref.url))
      if (this.o.settings.wait === 'started') this.settleItem(item)
    }
    if (this.o.settings.wait === 'started') this.follower?.drop(track)
  }

  /** A queue item or build that cannot be followed further. */
  private lost(track: number, error: Error): void {
    for (const item of this.owners(track)) {
      // Its queue item was cancelled: by this step's fail-fast.
      if (item.stopping && item.ref === undefined) {
        item.report.stopped = 'cancelled in the queue by fail-fast'
        this.settleItem(item)
        continue
      }
      this.fail(item, error)
    }
  }

  /** The item failed before a result: said, counted, and the others stopped with fail-fast. */
  private fail(item: Item, error: unknown): void {
    const message = errorText(error)
    item.report.error = message
    this.log.info(`Jenkins ${item.entry.jobName}: ${message}`)
    this.side(item.status?.finish('error', message.split('\n')[0] ?? 'Failed', item.ref?.url))
    this.settleItem(item)
    this.failFast(item)
  }

  /** Nothing more to follow for the item; the post step need not stop it. */
  private settleItem(item: Item, final?: Build): void {
    if (final) item.report.outcome.build = final
    item.done = true
    this.o.work.finished(item.index)
  }

  private ended(track: number, final: Build): void {
    this.finished(this.owners(track), final, true)
  }

  /** The items' build ended (`watched`: the step saw it run): said, judged, then completed on the side. */
  private finished(owners: Item[], final: Build, watched: boolean): void {
    const [first] = owners
    if (!first) return
    const ref = first.ref as BuildRef
    const accepted = judgeEnd(
      owners.map(item => item.report.outcome),
      final,
      { ref, accept: this.o.settings.accept, logger: this.log }
    )
    for (const item of owners) {
      if (item.stopping && final.result === 'ABORTED') item.report.stopped = 'stopped by fail-fast'
      this.o.work.finished(item.index)
    }
    if (!accepted && !first.stopping) this.failFast(first)
    this.side(
      completeBuild(
        { ...this.o, printer: this.printer, entries: this.entries, reports: this.github },
        owners,
        ref,
        final,
        watched
      )
    )
  }

  // ---- fail-fast -------------------------------------------------------------

  /**
   * fail-fast: the first failure stops every other build this step started
   * (cancels its queue item, or stops it, escalating as on cancel), never
   * one shared with another request, which is left running and not waited
   * for. Stopped builds are still followed to their end, and reported.
   */
  private failFast(cause: Item): void {
    if (!this.o.settings.failFast || this.failingFast) return
    // Not those that ended already (their reports are on the way).
    const others = this.items.filter(
      item => item !== cause && !item.done && item.report.outcome.result === undefined
    )
    this.failingFast = true
    if (others.length === 0) return
    this.log.info(
      `fail-fast: ${cause.entry.jobName} did not pass; stopping the other builds this step started.`
    )
    const tracks = new Map<string, Item[]>()
    for (const item of others) {
      const key = item.track === undefined ? `item ${item.index}` : `track ${item.track}`
      const group = tracks.get(key)
      if (group) group.push(item)
      else tracks.set(key, [item])
    }
    for (const group of tracks.values()) this.side(this.stopGroup(group))
  }

  private async stopGroup(group: Item[]): Promise<void> {
    const { api, work } = this.o
    const [first] = group
    if (!first) return
    const name = first.entry.jobName
    const target = work.targetOf(first.index, api)
    const shared = work.shared(first.index)
    if (!target || shared) {
      this.leave(
        group,
        shared ? `left running: ${SHARED_WORK_LEFT.replace(/^running: /, '')}` : undefined
      )
      return
    }
    for (const item of group) item.stopping = true
    const said = await abortRemote(api, target, namedLogger(this.log, name))
    this.log.info(`fail-fast: ${name}: ${said}.`)
    if (said.endsWith(SHARED_WORK_LEFT)) {
      this.leave(group, 'left running: shared with another request')
      return
    }
    if (first.track !== undefined) this.follower?.expedite(first.track)
  }

  /** Stops following the items (their work is not this step's alone to stop). */
  private leave(group: Item[], note: string | undefined): void {
    for (const item of group) {
      if (note) item.report.left = note
      if (item.track !== undefined) this.follower?.drop(item.track)
      this.settleItem(item)
    }
  }

  // ---- work on the side --------------------------------------------------------

  private side(work: Promise<unknown> | undefined): void {
    if (!work) return
    const tracked = work.catch(error => {
      if (!(error instanceof Interrupted) && !this.o.signal.aborted) {
        this.log.warning(`Jenkins builds: ${errorText(error)}`)
      }
    })
    this.pending.add(tracked)
    void tracked.finally(() => this.pending.delete(tracked))
  }

  /** Waits for the work on the side (which may add more); once the step was stopped, only briefly. */
  private async settlePending(): Promise<void> {
    while (this.pending.size > 0) {
      const work = Promise.all([...this.pending])
      if (this.o.signal.aborted) return settleBy(work, Date.now() + SETTLE_ON_ABORT_MS)
      await work
    }
  }
}
