import type { RemoteTarget } from '../follow/cancel.js'
import { State } from '../util/constants.js'
import { fullName } from '../jenkins/model/job-path.js'
import type { BuildRef, JenkinsApi, JobPath } from '../jenkins/model/types.js'
import type { LostTrigger } from '../jenkins/transport/errors.js'

/** What one item of `jobs` started in Jenkins. */
interface Entry {
  job: JobPath
  queueId?: number
  number?: number
  /** Jenkins answered that the trigger folded into an item already queued (303). */
  merged: boolean
  /** A trigger whose answer was cut by the cancel: it may have queued a build. */
  lost?: LostTrigger
  /** The main step dealt with it: followed to its end, or stopped, or left running on purpose. */
  done: boolean
}

/** The state saved for the post step: each item's work, while any may still run. */
interface SavedEntry {
  job: string[]
  queueId?: number
  number?: number
  /** This step's requests folded into the item. */
  own: number
  shared: boolean
}

/**
 * What the several-jobs step started, for cancel, timeout and fail-fast, and
 * saved as state for the post step (which runs in a new process and is the
 * only safety net when the runner killed this one). Items that started the
 * same work (the same job listed twice, folded by Jenkins into one queue
 * item) are one target, which counts them as its own requests.
 */
export class Ledger {
  private readonly entries: Entry[]

  constructor(
    jobs: readonly JobPath[],
    private readonly save: (name: string, value: string) => void
  ) {
    this.entries = jobs.map(job => ({ job, merged: false, done: false }))
  }

  queued(index: number, queueId: number, merged: boolean): void {
    const entry = this.entry(index)
    entry.queueId = queueId
    entry.merged = merged
    entry.lost = undefined
    this.persist()
  }

  /** A trigger that may have queued a build whose queue item never came back. */
  maybeQueued(index: number, lost: LostTrigger): void {
    this.entry(index).lost = lost
  }

  started(index: number, ref: BuildRef): void {
    this.entry(index).number = ref.number
    this.persist()
  }

  /** The main step needs nothing more from the post step for this item. */
  finished(index: number): void {
    this.entry(index).done = true
    this.persist()
  }

  /** Whether anything was (or may have been) started. */
  get anything(): boolean {
    return this.entries.some(e => e.queueId !== undefined || e.lost !== undefined)
  }

  /** The work still running that this step started, one target per queue item. */
  targets(api: Pick<JenkinsApi, 'buildUrl'>): Array<RemoteTarget & { name: string }> {
    const targets: Array<RemoteTarget & { name: string }> = []
    for (const group of this.groups()) {
      const [first] = group
      if (!first || group.every(e => e.done)) continue
      targets.push({
        name: fullName(first.job),
        ...targetOf(first.job, first.queueId, first.number, group, api)
      })
    }
    for (const entry of this.entries) {
      if (entry.queueId === undefined && entry.lost && !entry.done) {
        targets.push({ name: fullName(entry.job), job: entry.job, lostTrigger: entry.lost })
      }
    }
    return targets
  }

  /** The work the item at `index` started (with the items that started the same), while it may run. */
  targetOf(index: number, api: Pick<JenkinsApi, 'buildUrl'>): RemoteTarget | undefined {
    const entry = this.entry(index)
    const group = this.groups().find(g => g.includes(entry))
    if (group) return targetOf(entry.job, entry.queueId, entry.number, group, api)
    if (entry.lost && !entry.done) return { job: entry.job, lostTrigger: entry.lost }
    return undefined
  }

  /** Whether the item at `index` shares its work with a request that is not this step's. */
  shared(index: number): boolean {
    const group = this.groups().find(g => g.includes(this.entry(index)))
    return group !== undefined && group.every(e => e.merged)
  }

  /** Every item is dealt with (the step ends, or gave up on them on purpose). */
  done(): void {
    for (const entry of this.entries) entry.done = true
    this.persist()
  }

  /** Items by the queue item they started (Jenkins folds identical requests into one). */
  private groups(): Entry[][] {
    const byQueue = new Map<number, Entry[]>()
    for (const entry of this.entries) {
      if (entry.queueId === undefined) continue
      const group = byQueue.get(entry.queueId)
      if (group) group.push(entry)
      else byQueue.set(entry.queueId, [entry])
    }
    return [...byQueue.values()]
  }

  private entry(index: number): Entry {
    const entry = this.entries[index]
    if (!entry) throw new Error(`Ledger: no item ${index}`)
    return entry
  }

  private persist(): void {
    const running = this.groups().filter(group => !group.every(e => e.done))
    const saved: SavedEntry[] = running.map(group => {
      const first = group[0] as Entry
      return {
        job: [...first.job],
        ...(first.queueId === undefined ? {} : { queueId: first.queueId }),
        ...(first.number === undefined ? {} : { number: first.number }),
        own: group.length,
        shared: group.every(e => e.merged)
      }
    })
    this.save(State.Builds, JSON.stringify(saved))
    this.save(State.Done, saved.length > 0 ? 'false' : 'true')
  }
}

function targetOf(
  job: JobPath,
  queueId: number | undefined,
  number: number | undefined,
  group: ReadonlyArray<{ merged: boolean }>,
  api: Pick<JenkinsApi, 'buildUrl'>
): RemoteTarget {
  return {
    job,
    queueId,
    build: number === undefined ? undefined : { job, number, url: api.buildUrl(job, number) },
    // Every request of ours folded into one already queued: not ours alone.
    shared: group.every(e => e.merged),
    ownRequests: group.length
  }
}

/** The work a killed several-jobs step left behind, from its saved state. */
export function savedTargets(
  state: string,
  api: Pick<JenkinsApi, 'buildUrl'>
): Array<RemoteTarget & { name: string }> {
  let saved: unknown
  try {
    saved = JSON.parse(state)
  } catch {
    return []
  }
  if (!Array.isArray(saved)) return []
  const targets: Array<RemoteTarget & { name: string }> = []
  for (const raw of saved as Array<Partial<SavedEntry> | null>) {
    if (!raw || !Array.isArray(raw.job) || !raw.job.every(n => typeof n === 'string')) continue
    const job = Object.freeze([...raw.job])
    const own = typeof raw.own === 'number' && raw.own > 0 ? raw.own : 1
    targets.push({
      name: fullName(job),
      ...targetOf(
        job,
        typeof raw.queueId === 'number' ? raw.queueId : undefined,
        typeof raw.number === 'number' ? raw.number : undefined,
        Array.from({ length: own }, () => ({ merged: raw.shared === true })),
        api
      )
    })
  }
  return targets
}
