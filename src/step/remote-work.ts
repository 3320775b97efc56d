import type { RemoteTarget } from '../follow/cancel.js'
import { buildRef } from '../follow/build-parts.js'
import { State } from '../util/constants.js'
import { fullName, jobKey } from '../jenkins/model/job-path.js'
import type { BuildRef, JobPath } from '../jenkins/model/types.js'
import type { JenkinsApi } from '../jenkins/client.js'
import type { LostTrigger } from '../jenkins/transport/errors.js'
import type { StepIO } from '../runner/io.js'

/** What one item of the step (the `job`, or one of `jobs`) started in Jenkins. */
export interface WorkItem {
  readonly job: JobPath
  queueId?: number
  /** The build followed: started by this step, or (`build: last`) one it only reports. */
  ref?: BuildRef
  /** Jenkins answered that the trigger folded into an item already queued (303). */
  merged: boolean
  /** A trigger whose answer was lost or cut by the cancel: it may have queued a build. */
  lost?: LostTrigger
  /** The main step dealt with it: followed to its end, or stopped, or left running on purpose. */
  done: boolean
  /** What the post step is told of it: it runs on as asked (`returned`), or its queue item ended without a build (`ended`). */
  note?: { key: State.Returned | State.Ended; shown: string }
}

/** The state saved for the post step: each queue item's work; `done` once the main step dealt with it. */
interface SavedEntry {
  job: JobPath
  queueId?: number
  number?: number
  /** This step's requests folded into the item. */
  own: number
  shared: boolean
  done?: true
}

type Api = Pick<JenkinsApi, 'buildUrl'>

/**
 * What the step started in Jenkins (one item for `job`, one per item of
 * `jobs`), for cancel, timeout and fail-fast, and saved as state for the
 * post step, which runs in a new process and is the only safety net when
 * the runner killed this one. Items that started the same work (the same
 * job listed twice, folded by Jenkins into one queue item) are one target,
 * which counts them as its own requests. A build this step did not start
 * (`build: last`) is never a target.
 */
export class RemoteWork {
  /** The multibranch projects this step asked to scan: a scan is never cancelled or stopped (cancel.ts scanLeft). */
  readonly scans: string[] = []
  private readonly items: WorkItem[]

  constructor(
    /** The step's `jobs`, or its one `job`: an item each. */
    { job, jobs }: { job: JobPath; jobs?: ReadonlyArray<{ job: JobPath }> },
    private readonly io: Pick<StepIO, 'saveState'>
  ) {
    this.items = (jobs ?? [{ job }]).map(e => ({ job: e.job, merged: false, done: false }))
  }

  /** The item at `index`, as known so far. */
  item(index: number): Readonly<WorkItem> {
    return this.entry(index)
  }

  queued(index: number, queueId: number, merged: boolean): void {
    Object.assign(this.entry(index), { queueId, merged, lost: undefined })
    this.persist()
  }

  /** A trigger that may have queued a build whose queue item never came back. */
  maybeQueued(index: number, lost: LostTrigger): void {
    this.entry(index).lost = lost
  }

  /** The item's build is known (saved only when this step queued it). */
  started(index: number, ref: BuildRef): void {
    this.entry(index).ref = ref
    this.persist()
  }

  /** The main step needs nothing more from the post step for this item. */
  finished(index: number): void {
    this.entry(index).done = true
    this.persist()
  }

  /** Whether anything was (or may have been) started. */
  get anything(): boolean {
    return this.items.some(e => e.queueId !== undefined || e.lost !== undefined)
  }

  /** How many builds the step follows that it did not start (`build: last`, a number or URL): never stopped. */
  get adopted(): number {
    return this.items.filter(e => e.ref !== undefined && e.queueId === undefined && !e.lost).length
  }

  /** Every item is dealt with (the step ends, or gave up on them on purpose), but the jobs (by jobKey) in `except`: the post step stops their work. */
  done({ except }: { except?: ReadonlySet<string> } = {}): void {
    for (const item of this.items) if (!except?.has(jobKey(item.job))) item.done = true
    this.persist()
  }

  /** The step failed for another reason than cancel or timeout and leaves its work running (`urls`): the post step must not stop it. */
  leftRunning(urls: string): void {
    this.io.saveState(State.LeftRunning, urls)
    this.done()
  }

  /**
   * The main step dealt with the item, and the post step is told how
   * (`shown`, with its link): its queue item ended in Jenkins without a
   * build, nothing of it runs (`Ended`); or the step returns without waiting
   * for its work (`wait: false` or `started`), as asked (`Returned`).
   */
  noted(index: number, key: State.Returned | State.Ended, shown: string): void {
    this.entry(index).note = { key, shown }
    this.finished(index)
  }

  /** The work still running that this step started, one target per queue item. */
  targets(api: Api): Array<RemoteTarget & { name: string }> {
    const targets = this.groups().flatMap(group => (group.done ? [] : [targetOf(group, api)]))
    for (const item of this.items) {
      if (item.queueId === undefined && item.lost && !item.done) {
        targets.push({ name: fullName(item.job), job: item.job, lostTrigger: item.lost })
      }
    }
    return targets
  }

  /** The work the item at `index` started (with the items that started the same), while it may run. */
  targetOf(index: number, api: Api): RemoteTarget | undefined {
    const { queueId, lost } = this.entry(index)
    return this.targets(api).find(target =>
      queueId === undefined ? lost && target.lostTrigger === lost : target.queueId === queueId
    )
  }

  /** The queue items started, each as saved (Jenkins folds identical requests into one). */
  private groups(): SavedEntry[] {
    // One entry at the first item of each queue item; JSON leaves out what is undefined.
    return this.items.flatMap(first => {
      const same = this.items.filter(e => e.queueId === first.queueId)
      if (first.queueId === undefined || same[0] !== first) return []
      return {
        job: first.job,
        queueId: first.queueId,
        number: first.ref?.number,
        own: same.length,
        shared: same.every(e => e.merged),
        done: same.every(e => e.done) ? true : undefined
      }
    })
  }

  private entry(index: number): WorkItem {
    const item = this.items[index]
    if (!item) throw new Error(`RemoteWork: no item ${index}`)
    return item
  }

  private persist(): void {
    const saved = this.groups()
    this.io.saveState(State.Builds, JSON.stringify(saved))
    this.io.saveState(State.Done, saved.every(e => e.done) ? 'true' : 'false')
    for (const key of [State.Returned, State.Ended]) {
      const shown = this.items.flatMap(item => (item.note?.key === key ? [item.note.shown] : []))
      if (shown.length > 0) this.io.saveState(key, shown.join('; '))
    }
  }
}

/** A queue item's work as a target to stop (`name`: its job's). */
function targetOf(
  { job, queueId, number, own, shared }: SavedEntry,
  api: Api
): RemoteTarget & { name: string } {
  const build = number === undefined ? undefined : buildRef(api, job, number)
  // Every request of ours folded into one already queued: not ours alone.
  return { name: fullName(job), job, queueId, build, shared, ownRequests: own }
}

/** What the main step left for the post step, read back from its state: how it dealt with its work, or the work it left. */
export type SavedWork =
  | { dealt: 'left running' | 'ended' | 'returned' | 'finished'; shown: string }
  | { dealt: false; targets(api: Api): Array<RemoteTarget & { name: string }> }

/** Reads what the main step saved (the post step's one reader of the state this file writes). */
export function savedWork(getState: (key: State) => string): SavedWork {
  if (getState(State.Done) === 'false') {
    return { dealt: false, targets: api => savedTargets(getState(State.Builds), api) }
  }
  const notes = [
    ['left running', getState(State.LeftRunning)],
    ['ended', getState(State.Ended)],
    ['returned', getState(State.Returned)]
  ] as const
  const [dealt, shown] = notes.find(([, text]) => text !== '') ?? ['finished', '']
  return { dealt, shown }
}

/**
 * The work a killed main step left behind, from its saved state (State.Builds).
 * @internal
 */
export function savedTargets(state: string, api: Api): Array<RemoteTarget & { name: string }> {
  let saved: unknown
  try {
    saved = JSON.parse(state)
  } catch {
    return []
  }
  if (!Array.isArray(saved)) return []
  return saved.flatMap((raw: Partial<SavedEntry> | null) => {
    if (typeof raw !== 'object' || raw === null || raw.done === true) return []
    const { job, queueId, number, own } = raw
    if (!Array.isArray(job) || !job.every(n => typeof n === 'string')) return []
    return targetOf(
      {
        job: Object.freeze([...job]),
        queueId: typeof queueId === 'number' ? queueId : undefined,
        number: typeof number === 'number' ? number : undefined,
        own: typeof own === 'number' && own > 0 ? own : 1,
        shared: raw.shared === true
      },
      api
    )
  })
}
