import { Build, BuildRunner, DEFAULT_END_GAP, isJob } from './build.js'
import { branchIndexingCause, foldCause } from './causes.js'
import { BranchIndexing, completedScan, runScan, type ScanHost } from './indexing.js'
import { decodeBranchName, encodeBranchName } from './name-encoder.js'
import { defaultValues, sameParameters } from './parameters.js'
import { mulberry32 } from './prng.js'
import type { EndGap, JobSpec, Millis, Result, TriggerEcho } from '../types.js'
import type { Cause, JobState, ParameterValueState, QueueItemState, ServerState } from './state.js'

export interface ModelOptions {
  executors: number
  quietPeriodSec: number
  leftItemTtlMs: number
  executableDelayMs: number
  endGap?: EndGap
  /** Seeds the draws of end gaps given as ranges. */
  seed?: number
}

interface QueueItem extends QueueItemState {
  build: Build | null
}

/** Jobs, the queue and the builds, driven by real timers. */
export class JenkinsModel implements ServerState {
  readonly root: JobState
  readonly queue: QueueItem[] = []
  readonly executors: number
  /** Called when a build starts (used to aim a restart fault). */
  onBuildStart: ((build: Build) => void) | undefined
  private nextQueueId = 1
  private busyExecutors = 0
  /** Items that left the queue but whose run is not created yet, per job. */
  private readonly pendingRuns = new Map<JobState, number>()
  private readonly timers = new Set<NodeJS.Timeout>()
  private queueTimer: NodeJS.Timeout | undefined
  private readonly runner: BuildRunner

  constructor(private readonly options: ModelOptions) {
    this.executors = options.executors
    this.root = this.makeItem('', { type: 'folder' }, null)
    const random = mulberry32(options.seed ?? 1)
    this.runner = new BuildRunner({
      timer: (fn, ms) => this.timer(fn, ms),
      cancel: t => {
        clearTimeout(t)
        this.timers.delete(t)
      },
      draw: (ms: Millis) =>
        typeof ms === 'number' ? ms : Math.round(ms[0] + (ms[1] - ms[0]) * random()),
      endGap: options.endGap ?? DEFAULT_END_GAP,
      // A non-concurrent job's next build waits for `building`, not for the log.
      finished: () => this.tick(),
      released: () => {
        this.busyExecutors--
        this.tick()
      }
    })
  }

  // ---- items ----

  private makeItem(name: string, spec: JobSpec, parent: JobState | null): JobState {
    const underMultibranch = parent?.type === 'multibranch'
    const type = spec.type ?? (underMultibranch ? 'pipeline' : 'freestyle')
    const item: JobState = {
      name,
      fullName: parent && parent.fullName !== '' ? `${parent.fullName}/${name}` : name,
      displayName: spec.displayName ?? (underMultibranch ? decodeBranchName(name) : name),
      type,
      parent,
      children: new Map(),
      disabled: spec.disabled ?? false,
      // Freestyle projects default to no concurrent builds, Pipeline jobs allow them.
      concurrent: spec.concurrent ?? type === 'pipeline',
      quietPeriodSec: spec.quietPeriodSec,
      parameters: spec.parameters ?? [],
      script: spec.script ?? {},
      builds: [],
      nextBuildNumber: 1,
      authToken: spec.authToken,
      heads: spec.heads ? new Map(Object.entries(spec.heads)) : undefined,
      indexing: undefined,
      scanDurationMs: spec.scanDurationMs ?? 500,
      indexingBuild: spec.indexingBuild ?? true
    }
    for (const [childName, childSpec] of Object.entries(spec.jobs ?? {})) {
      item.children.set(childName.toLowerCase(), this.makeItem(childName, childSpec, item))
    }
    if (type === 'multibranch') item.indexing = completedScan(item, Date.now())
    return item
  }

  /** A new head in a multibranch project's SCM; the next scan creates its job. */
  addHead(project: JobState, branch: string, spec: JobSpec): void {
    if (project.type !== 'multibranch') throw new Error(`${project.fullName} is not multibranch`)
    project.heads ??= new Map(
      [...project.children.values()].map(child => [decodeBranchName(child.name), {}])
    )
    project.heads.set(branch, spec)
  }

  /** Adds (or replaces) an item; missing parent folders are created. */
  addJob(fullName: string, spec: JobSpec): JobState {
    const names = fullName.split('/').filter(n => n !== '')
    const last = names.pop()
    if (last === undefined) throw new Error('addJob: empty name')
    let parent = this.root
    for (const name of names) {
      let next = parent.children.get(name.toLowerCase())
      if (!next) {
        next = this.makeItem(name, { type: 'folder' }, parent)
        parent.children.set(name.toLowerCase(), next)
      }
      parent = next
    }
    const item = this.makeItem(last, spec, parent)
    parent.children.set(last.toLowerCase(), item)
    return item
  }

  /** One URL segment below `parent`, case-insensitively (Jenkins' CASE_INSENSITIVE_ORDER maps). */
  child(parent: JobState, name: string): JobState | undefined {
    const found = parent.children.get(name.toLowerCase())
    if (found || parent.type !== 'multibranch') return found
    // MultiBranchProject.getItem: then the NameEncoder-decoded name, then
    // the encoded one, so `feature/x` finds `feature%2Fx` (jenkins-api.md 3.8).
    if (name.includes('%')) {
      const decoded = parent.children.get(decodeBranchName(name).toLowerCase())
      if (decoded) return decoded
    }
    return parent.children.get(encodeBranchName(name).toLowerCase())
  }

  findJob(fullName: string): JobState | undefined {
    let item: JobState | undefined = this.root
    for (const name of fullName.split('/').filter(n => n !== '')) {
      if (!item) return undefined
      item = item.children.get(name.toLowerCase())
    }
    return item === this.root ? undefined : item
  }

  isBuildable(job: JobState): boolean {
    // ComputedFolder.isBuildable: not disabled (a scan of a disabled project is refused).
    if (job.type === 'multibranch') return !job.disabled
    if (!isJob(job) || job.disabled) return false
    // Since 2.547 a disabled multibranch parent makes its branches unbuildable too.
    return !(job.parent?.type === 'multibranch' && job.parent.disabled)
  }

  setDisabled(job: JobState, disabled: boolean): void {
    job.disabled = disabled
    if (!disabled) return
    // Disabling a job cancels its queued items (ParameterizedJobMixIn.doDisable).
    for (const item of this.queue) {
      if (item.job === job && item.state !== 'left') this.leave(item, true)
    }
    this.tick()
  }

  quietPeriodSec(job: JobState): number {
    return job.quietPeriodSec ?? this.options.quietPeriodSec
  }

  /**
   * Job.getEstimatedDuration: the mean duration of up to three candidates,
   * -1 without any. The candidates (Job.getEstimatedDurationCandidates) are
   * the last successful (or unstable) build, then successful or unstable builds among the
   * six newest that are not building, then failed ones to make up three.
   */
  estimatedDuration(job: JobState): number {
    const builds = [...job.builds].reverse() as Build[]
    const ok = (b: Build): boolean => b.result === 'SUCCESS' || b.result === 'UNSTABLE'
    const lastSuccessful = builds.find(b => !b.building && ok(b))
    const candidates: Build[] = lastSuccessful ? [lastSuccessful] : []
    const fallback: Build[] = []
    for (const b of builds.slice(0, 6)) {
      if (candidates.length >= 3) break
      if (b.building || b.result === null || b === lastSuccessful) continue
      if (ok(b)) candidates.push(b)
      else if (b.result === 'FAILURE') fallback.push(b)
    }
    while (candidates.length < 3 && fallback.length > 0) candidates.push(fallback.shift() as Build)
    const total = candidates.reduce((sum, b) => sum + b.durationMs, 0)
    return total === 0 ? -1 : Math.round(total / candidates.length)
  }

  // ---- queue ----

  /**
   * Queue.schedule2 → scheduleInternal: a request for a task that already has
   * an item in the queue (waiting, blocked or buildable) with an equal
   * parameter set (ParametersAction.shouldSchedule; a job without parameters
   * always matches) queues nothing. Its FoldableActions fold into every such
   * item instead: CauseAction.foldIntoExisting adds its cause to the item's
   * cause bag, which the item and, once it runs, its build (Executor.run adds
   * the item's actions to the run) export once per count. The first item is
   * returned.
   */
  schedule(
    job: JobState,
    parameters: ParameterValueState[],
    causes: Cause[],
    quietPeriodSec: number,
    echo?: TriggerEcho
  ): { item: QueueItemState; merged: boolean } {
    const now = Date.now()
    const dueAt = now + Math.max(0, quietPeriodSec) * 1000
    const duplicates = this.queue.filter(
      i => i.state !== 'left' && i.job === job && sameParameters(i.parameters, parameters)
    )
    const existing = duplicates[0]
    if (existing) {
      for (const item of duplicates) {
        for (const cause of causes) foldCause(item.causes, cause)
        // When merging into a WaitingItem the earlier due time wins (Queue.scheduleInternal).
        if (item.state === 'waiting') item.dueAt = Math.min(item.dueAt, dueAt)
      }
      this.tick()
      return { item: existing, merged: true }
    }
    const item: QueueItem = {
      id: this.nextQueueId++,
      job,
      parameters,
      causes,
      inQueueSince: now,
      dueAt,
      state: 'waiting',
      buildableSince: null,
      leftAt: null,
      cancelled: false,
      build: null,
      ...(echo ? { echo } : {})
    }
    this.queue.push(item)
    this.tick()
    return { item, merged: false }
  }

  /** A queue item by id; LeftItems expire after the TTL. */
  queueItem(id: number): QueueItem | undefined {
    this.expireLeftItems()
    return this.queue.find(i => i.id === id)
  }

  /** Queue.cancel: false when the item already left the queue. */
  cancel(item: QueueItemState): boolean {
    if (item.state === 'left') return false
    this.leave(item as QueueItem, true)
    this.tick()
    return true
  }

  /** After a restart Jenkins has forgotten every LeftItem (jenkins-api.md 4). */
  forgetLeftItems(): void {
    for (let i = this.queue.length - 1; i >= 0; i--) {
      if (this.queue[i]?.state === 'left') this.queue.splice(i, 1)
    }
  }

  /** The build blocking a non-concurrent job, if any. */
  runningBuild(job: JobState): Build | undefined {
    return [...job.builds].reverse().find(b => b.building) as Build | undefined
  }

  private expireLeftItems(): void {
    const now = Date.now()
    for (let i = this.queue.length - 1; i >= 0; i--) {
      const item = this.queue[i]
      if (item?.leftAt != null && now - item.leftAt > this.options.leftItemTtlMs) {
        this.queue.splice(i, 1)
      }
    }
  }

  private leave(item: QueueItem, cancelled: boolean): void {
    item.state = 'left'
    item.leftAt = Date.now()
    item.cancelled = cancelled
  }

  private jobBusy(job: JobState): boolean {
    // A scan waits while one runs (a Task is not concurrent unless it says so).
    if (job.type === 'multibranch') return job.indexing?.result === null
    return (this.pendingRuns.get(job) ?? 0) > 0 || job.builds.some(b => b.building)
  }

  /** Moves items through waiting → blocked/buildable → left and starts builds. */
  tick(): void {
    const now = Date.now()
    this.expireLeftItems()
    const pending = this.queue.filter(i => i.state !== 'left').sort((a, b) => a.id - b.id)
    for (const item of pending) {
      if (item.state === 'waiting' && item.dueAt <= now) {
        item.state = 'buildable'
        item.buildableSince = now
      }
    }
    for (const item of pending) {
      if (item.state === 'waiting') continue
      if (!item.job.concurrent && this.jobBusy(item.job)) item.state = 'blocked'
      // A scan is a Queue.FlyweightTask: it runs on a one-off executor, never waits for one.
      else if (item.job.type === 'multibranch') this.startScan(item)
      else if (this.busyExecutors >= this.executors) item.state = 'buildable'
      else this.start(item)
    }
    if (this.queueTimer) {
      clearTimeout(this.queueTimer)
      this.timers.delete(this.queueTimer)
      this.queueTimer = undefined
    }
    const waiting = pending.filter(i => i.state === 'waiting').map(i => i.dueAt)
    if (waiting.length > 0) {
      this.queueTimer = this.timer(() => this.tick(), Math.max(0, Math.min(...waiting) - now))
    }
  }

  /** ComputedFolder.createExecutable: a new computation replaces the project's current one. */
  private startScan(item: QueueItem): void {
    this.leave(item, false)
    const project = item.job
    const indexing = new BranchIndexing(item.causes, Date.now())
    project.indexing = indexing
    item.indexing = indexing
    runScan(this.scanHost, project, indexing, () => this.tick())
  }

  private readonly scanHost: ScanHost = {
    child: (project, name) => this.child(project, name),
    createBranch: (project, encodedName, spec) => {
      const job = this.makeItem(encodedName, spec, project)
      project.children.set(encodedName.toLowerCase(), job)
      return job
    },
    scheduleIndexingBuild: job => {
      if (!this.isBuildable(job)) return false
      this.schedule(
        job,
        defaultValues(job.parameters),
        [branchIndexingCause()],
        this.quietPeriodSec(job)
      )
      return true
    },
    timer: (fn, ms) => void this.timer(fn, ms)
  }

  private start(item: QueueItem): void {
    this.busyExecutors++
    this.leave(item, false)
    const delay = this.options.executableDelayMs
    if (delay <= 0) {
      this.createBuild(item)
      return
    }
    // Executor.run registers the LeftItem before createExecutable: `executable` is null meanwhile.
    this.pendingRuns.set(item.job, (this.pendingRuns.get(item.job) ?? 0) + 1)
    this.timer(() => {
      this.pendingRuns.set(item.job, (this.pendingRuns.get(item.job) ?? 1) - 1)
      if (item.job.disabled) {
        // createExecutable() returns null for a disabled job: executable stays null for good.
        this.busyExecutors--
        this.tick()
        return
      }
      this.createBuild(item)
    }, delay)
  }

  private createBuild(item: QueueItem): void {
    const job = item.job
    const executor = job.builds.filter(b => b.building).length
    const build = new Build(
      job,
      job.nextBuildNumber++,
      item.id,
      item.parameters,
      item.causes,
      item.inQueueSince,
      Date.now(),
      executor
    )
    build.echo = item.echo
    job.builds.push(build)
    item.build = build
    this.runner.start(build)
    this.onBuildStart?.(build)
  }

  // ---- builds ----

  /** stop / term / kill (jenkins-api.md 7). A build that is not running is left alone. */
  stop(build: Build, how: 'stop' | 'term' | 'kill', userName: string): void {
    this.runner.stop(build, how, userName)
  }

  appendConsole(build: Build, line: string): void {
    build.write(line.endsWith('\n') ? line : line + '\n')
  }

  /** Finished builds added to a job's history, oldest first, ending before now (see TestJenkins.addHistory). */
  addHistory(job: JobState, builds: Array<{ durationMs: number; result?: Result }>): void {
    let end = Date.now() - 1000
    const past = [...builds].reverse().map(spec => {
      const startedAt = end - spec.durationMs
      const at = { startedAt, finishedAt: end, spec }
      end = startedAt - 1000
      return at
    })
    for (const { startedAt, finishedAt, spec } of past.reverse()) {
      const build = new Build(job, job.nextBuildNumber++, 0, [], [], startedAt, startedAt, 0)
      build.write('Started by user anonymous\n')
      build.result = spec.result ?? 'SUCCESS'
      build.write(`Finished: ${build.result}\n`)
      build.building = false
      build.logUpdated = false
      build.finishedAt = finishedAt
      build.logClosedAt = finishedAt
      job.builds.push(build)
    }
  }

  private timer(fn: () => void, ms: number): NodeJS.Timeout {
    const t = setTimeout(() => {
      this.timers.delete(t)
      fn()
    }, ms)
    t.unref()
    this.timers.add(t)
    return t
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t)
    this.timers.clear()
  }
}
