/**
 * The one flow of a step's builds, for one `job` and several `jobs` alike
 * (one `job` is the one-item case): every item resolved before any
 * trigger, begun (triggered, or taken as it is), followed on the one
 * engine, ended through build-ended.ts, and reported through the presenter
 * chosen at the start (presenter.ts). docs/architecture.md has the steps.
 */
import { buildRef, statusFailure } from '../follow/build-parts.js'
import { BuildsFollower } from '../follow/follow-builds.js'
import { expectationFrom } from '../follow/poll-policy.js'
import type { ConsoleStreamer } from '../follow/log-stream.js'
import { QueueItemEnded } from '../follow/queue-ended.js'
import { DEFAULT_SCHEDULE_POLICY, ONE_BUILD_POLICY, type StartSeen } from '../follow/schedule.js'
import { jobKey, queueItemUrl } from '../jenkins/model/job-path.js'
import type { Build, BuildRef } from '../jenkins/model/types.js'
import type { PipelineRun } from '../jenkins/reads/stages.js'
import type { UploadFile } from '../jenkins/transport/multipart.js'
import { Interrupted } from '../jenkins/transport/errors.js'
import { GithubReports } from '../outcome/github-reports.js'
import { handOffDescription } from '../outcome/hand-off.js'
import { readHistory } from '../outcome/history.js'
import { writeSummary, type BuildReport } from '../outcome/report.js'
import { setOutputs } from '../outcome/build-outputs.js'
import { inputNotices, isPipeline, isPipelineJob, readStages } from '../outcome/stages.js'
import { State } from '../util/constants.js'
import { errorText } from '../util/error-text.js'
import { namedLogger, type Logger } from '../util/logger.js'
import { settleBy, throwIfAborted } from '../util/wait.js'
import type { StepRun } from './bounded-step.js'
import { buildKnown, queueBuild, queueWaitMs, type StepItem } from './build-begun.js'
import { judgeEnd, reportEnded } from './build-ended.js'
import { stopOthers } from './fail-fast.js'
import type { Presenter } from './presenter.js'
import { liveConsole, printConsole, Printer } from './printer.js'
import { resolveItems, type Begin } from './resolve-items.js'

/** How long the end of a run waits for work on the side (a commit status) once the step was stopped (ms). */
const SETTLE_ON_ABORT_MS = 1000

/** One item of the step (the `job`, or one of `jobs`) once resolved; what it started is RemoteWork's item `index`. */
export interface Item extends StepItem {
  begin: Begin
  /** The engine's track it follows (shared by items that started the same work). */
  track?: number
  /** fail-fast told it to stop. */
  stopping?: true
  /** Its console, while it streams live. */
  live?: { streamer: ConsoleStreamer; close(): void }
  /** Its queue item's `inQueueSince` (Jenkins' clock), for the queue wait. */
  inQueueSince?: number
  inputs?: ReturnType<typeof inputNotices>
}

/** The items that follow one build (the engine's track), in the order given. */
type Owners = [Item, ...Item[]]

/** The step's builds from resolve to verdict; stop() is the one stop handler's part of it. */
export class BuildsRun {
  readonly printer: Printer
  /** The logger for everything but the consoles (held while one prints). */
  readonly log: Logger
  /** Every item before it is resolved: its report exists from the start (a stop before resolve still reports it). */
  private readonly slots: Array<Omit<Item, 'begin'>>
  private readonly reports: BuildReport[]
  private items: Item[] = []
  readonly follower: BuildsFollower
  /** Work on the side (completions, statuses, fail-fast), awaited before the run ends. */
  private readonly pending = new Set<Promise<unknown>>()
  private failingFast = false
  /** One build followed to its end: its console streams live (`log`), else its wait is said. */
  private readonly lone: boolean
  /** The commit under test, its statuses (one gate: one warning for the step) and the one comment for every build. */
  private github?: GithubReports

  constructor(
    readonly step: StepRun,
    private readonly present: Presenter,
    /** Each item's files (upload-files.ts), checked on disk; by item index. */
    private readonly uploads: ReadonlyArray<readonly UploadFile[]>
  ) {
    const { settings, api, io, signal } = step
    this.printer = new Printer(io)
    this.log = this.printer.logger
    const entries = settings.jobs ?? [settings]
    this.slots = entries.map((entry, index) => ({
      index,
      entry,
      report: { outcome: { jobName: entry.jobName, jobUrl: api.jobUrl(entry.job) }, tail: [] }
    }))
    this.reports = this.slots.map(slot => slot.report)
    this.lone = !present.several && settings.wait === 'finish'
    this.follower = new BuildsFollower({
      api,
      logger: this.log,
      signal,
      // One build has nothing to share a budget with: its own reads (ONE_BUILD_POLICY).
      policy: entries.length === 1 ? ONE_BUILD_POLICY : DEFAULT_SCHEDULE_POLICY,
      hooks: {
        waiting: (track, why) =>
          this.owners(track, owners => {
            for (const item of owners) this.log.info(present.waiting(item.entry, why))
          }),
        started: (track, ref, start) => this.owners(track, o => this.started(o, ref, start)),
        ended: (track, build) => this.owners(track, o => this.ended(o, build, { watched: true })),
        failed: (track, error) => this.owners(track, o => this.lost(o, error)),
        inputs: (track, run) => this.owners(track, o => this.inputs(o, run))
      }
    })
  }

  /** Runs the step to its verdict: throws the presenter's failure. */
  async run(): Promise<void> {
    const { settings, io, signal } = this.step
    try {
      this.items = await resolveItems(this.step, this.log, this.slots)
      await this.startReports()
      const begun = await Promise.allSettled(this.items.map(item => this.begin(item)))
      for (const result of begun) if (result.status === 'rejected') throw result.reason
      this.side(this.github?.show(this.reports))
      if (settings.wait === 'queued') for (const item of this.items) this.returned(item)
      else await this.follow()
    } catch (error) {
      if (!signal.aborted) await this.finishComment(errorText(error))
      throw error
    } finally {
      for (const item of this.items) item.live?.close()
      await this.settlePending()
    }
    await this.finishComment()
    setOutputs(io, this.reports, this.log, this.present)
    await writeSummary(io.summary, this.reports, this.log, this.present)
    const failure = this.present.failure(this.items, settings.accept)
    if (failure !== undefined) throw failure
    this.step.work.done()
  }

  /**
   * The step was stopped (the one stop handler, stopStep, calls it around
   * stopWork): pending statuses and the comment end with `description`;
   * then `report` writes what is known: the notes of what the stop did to
   * each open item, the outputs and the summary. Never throws.
   */
  stop(description: string) {
    const open = this.items.filter(item => !this.step.work.item(item.index).done)
    const finishing = Promise.all([
      this.endStatuses(this.items, description),
      this.finishComment(description)
    ])
    const report = async (said?: ReadonlyMap<string, string>): Promise<void> => {
      for (const item of open) item.report.left = said?.get(jobKey(item.entry.job))
      try {
        setOutputs(this.step.io, this.reports, this.log, this.present)
      } catch (error) {
        this.log.debug(`Could not set the outputs: ${errorText(error)}`)
      }
      await writeSummary(this.step.io.summary, this.reports, this.log, this.present)
    }
    return { finishing, report }
  }

  /** Ends the items' statuses still pending with `why`: one left pending would block a protected branch for good. */
  private endStatuses(items: readonly Item[], why: string): Promise<unknown> {
    return Promise.all(
      items.map(({ status, index }) => {
        const url = this.step.work.item(index).ref?.url
        return status?.finished || status?.finish('error', why, { url })
      })
    )
  }

  /** The comment's final text: every build as it ended, `error` on those still open. Never rejects. */
  private finishComment(error?: string): Promise<void> {
    const builds = this.reports.map((report, index) =>
      error && !this.step.work.item(index).done && !report.error ? { ...report, error } : report
    )
    return this.github?.show(builds, { final: true }) ?? Promise.resolve()
  }

  // ---- before any trigger ----------------------------------------------------

  /** The commit under test (read once, before any trigger), and a status reporter per item. */
  private async startReports(): Promise<void> {
    const { settings, io } = this.step
    this.github = await GithubReports.start({
      settings,
      logger: this.log,
      setOutput: (name, value) => io.setOutput(name, value),
      redact: text => io.redact(text),
      reportName: this.present.reportName,
      bounds: this.step.githubBounds
    })
    if (!settings.commitStatus) return
    for (const item of this.items) item.status = this.github.status(item.entry.statusContext)
  }

  // ---- begin -----------------------------------------------------------------

  /** Triggers the item, or takes its build as it is; a refused trigger is the item's failure, the others go on. */
  private async begin(item: Item): Promise<void> {
    const { api, settings, signal } = this.step
    const { begin, report } = item
    const { outcome } = report
    if (begin.kind === 'queue-item') {
      outcome.queueUrl = begin.queueUrl
      if (settings.wait !== 'queued') {
        this.log.info(
          `Following queue item ${begin.queueId} of ${outcome.jobName}: ${begin.queueUrl}`
        )
      }
      return
    }
    if (begin.kind === 'build') {
      const ref = buildRef(this.step.api, item.entry.job, begin.build.number)
      this.side(buildKnown(this.step, this.log, item, ref, begin.mode))
      outcome.build = begin.build
      // Not triggered here: no job read to take them from, so one bounded read.
      if (settings.wait !== 'queued') {
        outcome.history = await readHistory(api, item.entry.job, ref.number, this.log)
      }
      return
    }
    // A cancel that arrived while reading the job must not still trigger.
    throwIfAborted(signal)
    try {
      const uploads = this.uploads[item.index] ?? []
      const queued = await queueBuild(this.step, this.log, item, { ...begin, uploads })
      // With `wait: false` the hand-off is the one pending status (returned).
      if (settings.wait !== 'queued') {
        this.side(item.status?.pending('Queued in Jenkins', queued.queueUrl))
      }
    } catch (error) {
      if (error instanceof Interrupted || signal.aborted) throw error
      this.fail(item, error)
    }
  }

  // ---- follow ----------------------------------------------------------------

  private async follow(): Promise<void> {
    const { work } = this.step
    const byQueue = new Map<number, Item>()
    for (const item of this.items) {
      if (item.report.error || work.item(item.index).done) continue
      const { begin } = item
      if (begin.kind === 'build') {
        this.followBuild(item, begin)
        continue
      }
      const queueId = this.queueIdOf(item)
      if (queueId === undefined) continue
      const first = byQueue.get(queueId)
      if (first) {
        // Jenkins folded the two requests into one build: one outcome, by reference.
        item.track = first.track
        item.report.outcome = first.report.outcome
        continue
      }
      byQueue.set(queueId, item)
      item.track = this.follower.addQueued(item.entry.job, queueId, {
        expect: begin.kind === 'trigger' ? expectationFrom(begin.info.recent ?? []) : undefined,
        consoleOf: this.lone && this.step.settings.log ? liveConsole(this.step, item) : undefined,
        inputs: begin.kind === 'queue-item' || isPipelineJob(begin.info)
      })
    }
    await this.follower.run()
  }

  /** A build the step did not start: judged as read when it is over (its console shown if it was given), else followed to its end. */
  private followBuild(item: Item, { build, mode }: Extract<Begin, { kind: 'build' }>): void {
    const { settings } = this.step
    const ref = buildRef(this.step.api, item.entry.job, build.number)
    if (settings.wait === 'started') {
      this.side(this.startedOnly([item], ref, build))
      return
    }
    // A given build is followed as a new one: its console from the start.
    const shown = settings.log && (build.building || mode === 'given')
    const live = shown && this.lone ? liveConsole(this.step, item) : undefined
    if (!build.building && !live) {
      this.ended([item], build, { watched: shown })
      return
    }
    this.waitingSilently(item, ref)
    item.track = this.follower.addRunning(ref, {
      build,
      console: live?.(ref),
      inputs: build.building && isPipeline(build)
    })
  }

  private started(owners: Owners, ref: BuildRef, start: StartSeen): void {
    const { settings, api } = this.step
    for (const item of owners) {
      item.inQueueSince = start.inQueueSince
      const mode = item.begin.kind === 'queue-item' ? 'given' : undefined
      this.side(buildKnown(this.step, this.log, item, ref, mode))
    }
    const [first] = owners
    if (settings.wait === 'started') {
      if (first.track !== undefined) this.follower.drop(first.track)
      this.side(this.startedOnly(owners, ref))
      return
    }
    if (first.begin.kind === 'queue-item') {
      const { outcome } = first.report
      this.side(
        readHistory(api, first.entry.job, ref.number, this.log).then(h => (outcome.history = h))
      )
    }
    this.waitingSilently(first, ref)
  }

  /** `wait: started`: the build's JSON at its start, its queue wait and a Pipeline's stages so far; then left running. */
  private async startedOnly(owners: Owners, ref: BuildRef, read?: Build): Promise<void> {
    const { api } = this.step
    const [first] = owners
    const { outcome } = first.report
    const build = read ?? (await api.getBuild(ref.job, ref.number))
    outcome.build = build
    outcome.queueWaitMs ??= queueWaitMs(first.inQueueSince, build)
    // Where a running Pipeline is (a stage waiting at an input): one read.
    if (isPipeline(build)) outcome.stages = await readStages(api, ref, build, this.log)
    for (const item of owners) this.returned(item)
  }

  /**
   * The step does not wait for the item's build (`wait: false` or
   * `started`): said in its outcome, told to the post step, and handed off
   * in its pending commit status for a settle run (outcome/hand-off.ts).
   */
  private returned(item: Item): void {
    const { settings, work, api } = this.step
    if (item.report.error) return
    const { outcome } = item.report
    const { ref } = work.item(item.index)
    const handOff = { queueId: this.queueIdOf(item), build: ref?.number }
    this.side(item.status?.pending(handOffDescription(handOff), api.jobUrl(item.entry.job)))
    const wait = settings.wait === 'queued' ? 'false' : 'started'
    outcome.note = `Did not wait for the build to ${ref ? 'finish' : 'start'} (wait: ${wait}).`
    work.noted(
      item.index,
      State.Returned,
      ref
        ? `Jenkins build ${outcome.jobName} #${ref.number} (${ref.url}) goes on running (wait: ${wait})`
        : `queue item ${handOff.queueId} of ${outcome.jobName} (${outcome.queueUrl}) goes on in Jenkins (wait: false)`
    )
  }

  /** One build followed without its console (`log: false`): said, so that the step does not look hung (with `log`, its console shows it). */
  private waitingSilently(item: Item, ref: BuildRef): void {
    if (this.lone && !this.step.settings.log) {
      this.log.info(
        `Waiting for Jenkins build ${item.entry.jobName} #${ref.number} to finish (log: false).`
      )
    }
  }

  private inputs([first]: Owners, run: PipelineRun): void {
    const ref = this.step.work.item(first.index).ref
    if (!ref) return
    first.inputs ??= inputNotices(ref)
    // Its lines say "build #N" only: named after its job when there are several.
    const log = this.present.several ? namedLogger(this.log, first.entry.jobName) : this.log
    for (const line of first.inputs(run)) log.info(line)
  }

  // ---- the end ---------------------------------------------------------------

  /**
   * The items' build ended (`watched`: the step saw it run): judged, then
   * completed on the side: what it produced and its commit statuses
   * (build-ended.ts reportEnded, once for every item that shares it), then
   * its console (in its group, when the builds' turn comes) unless it
   * streamed live. An error there (not a cancel) is the items', and the
   * others go on.
   */
  private ended(owners: Owners, final: Build, { watched }: { watched: boolean }): void {
    const { api, settings, signal, work } = this.step
    const [first] = owners
    const tail = first.live?.streamer.tail()
    first.live?.close()
    const ref = buildRef(this.step.api, first.entry.job, final.number)
    const { outcome } = first.report
    const accepted = judgeEnd(outcome, final, { ref, accept: settings.accept, logger: this.log })
    outcome.queueWaitMs ??= queueWaitMs(first.inQueueSince, final)
    for (const item of owners) {
      if (item.stopping && final.result === 'ABORTED') item.report.stopped = 'stopped by fail-fast'
      work.finished(item.index)
    }
    if (!accepted && !first.stopping) this.failFast(first)
    const complete = async (): Promise<void> => {
      try {
        await reportEnded({
          api,
          settings: { ...settings, artifactsPath: this.present.artifactsFolder(first.entry, ref) },
          ref,
          final,
          outcome,
          signal,
          out: this.printer,
          reports: this.github,
          owners
        })
        const shown = tail ?? (settings.log && watched ? await printConsole(this, ref) : [])
        for (const item of owners) item.report.tail = shown
      } catch (error) {
        if (error instanceof Interrupted || signal.aborted) throw error
        for (const item of owners) {
          item.report.error = errorText(error)
          item.failure = error
        }
        await this.endStatuses(owners, statusFailure(error, signal))
      }
    }
    this.side(complete())
  }

  /** A queue item or build that cannot be followed further. */
  private lost(owners: Owners, error: Error): void {
    const { work } = this.step
    for (const item of owners) {
      item.live?.close()
      // Its queue item was cancelled: by this step's fail-fast.
      if (item.stopping && work.item(item.index).ref === undefined) {
        item.report.stopped = 'cancelled in the queue by fail-fast'
        work.finished(item.index)
        continue
      }
      this.fail(item, error)
    }
  }

  /** The item failed before a result: said, counted, and the others stopped with fail-fast. What it started may run on (the verdict says so). */
  private fail(item: Item, error: unknown): void {
    const { api, work } = this.step
    const message = errorText(error)
    item.report.error = message
    item.failure = error
    if (this.present.several) this.log.info(`Jenkins ${item.entry.jobName}: ${message}`)
    if (error instanceof QueueItemEnded) {
      // Nothing of it runs: the post step has nothing to stop.
      work.noted(
        item.index,
        State.Ended,
        `${error.shown}, ${queueItemUrl(api.baseUrl, error.queueId)}`
      )
    }
    this.side(this.endStatuses([item], message.split('\n')[0] ?? 'Failed'))
    this.failFast(item)
  }

  // ---- fail-fast -------------------------------------------------------------

  /** fail-fast (fail-fast.ts): the first failure stops every other build this step started. */
  private failFast(cause: Item): void {
    if (!this.step.settings.failFast || this.failingFast) return
    this.failingFast = true
    for (const stop of stopOthers(this, cause, this.items)) this.side(stop)
  }

  // ---- helpers ---------------------------------------------------------------

  /** The item's queue item: the one given, the given build's, or the one it queued. */
  private queueIdOf({ begin, index }: Item): number | undefined {
    if (begin.kind === 'queue-item') return begin.queueId
    return begin.kind === 'build' ? begin.build.queueId : this.step.work.item(index).queueId
  }

  /** Runs `then` with the items that follow the engine's `track`, if any. */
  private owners(track: number, then: (owners: Owners) => void): void {
    const [first, ...rest] = this.items.filter(item => item.track === track)
    if (first) then([first, ...rest])
  }

  /** Work on the side: awaited before the run ends, and the engine runs until it settled (it may drain a console). */
  private side(work: Promise<unknown> | undefined): void {
    if (!work) return
    const tracked = work.catch(error => {
      if (!(error instanceof Interrupted) && !this.step.signal.aborted) {
        this.log.warning(`Jenkins builds: ${errorText(error)}`)
      }
    })
    this.pending.add(tracked)
    this.follower.hold(tracked)
    void tracked.finally(() => this.pending.delete(tracked))
  }

  /** Waits for the work on the side (which may add more); once the step was stopped, only briefly. */
  private async settlePending(): Promise<void> {
    while (this.pending.size > 0) {
      const work = Promise.all([...this.pending])
      if (this.step.signal.aborted) {
        await settleBy(work, Date.now() + SETTLE_ON_ABORT_MS)
        return
      }
      await work
    }
  }
}
