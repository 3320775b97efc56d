/**
 * An item's first step: what its build begins from, read before anything
 * is triggered, so that a wrong name fails the step with nothing started
 * (naming the closest jobs). Each distinct job is read once (names are
 * case-insensitive); branches that have no job yet are scanned for one at
 * a time (a scan prints its log in a group of its own).
 */
import { resolveBranch, type BranchJob } from '../follow/branch.js'
import { lastBuild, suggestingJobs } from '../follow/build-parts.js'
import { resolveGivenBuild } from '../follow/given-build.js'
import type { BuildMode } from '../inputs/input-values.js'
import type { JobEntry } from '../inputs/jobs-input.js'
import { itemMessage } from '../inputs/build-reference.js'
import { InputError } from '../util/input-error.js'
import { fullName, jobKey } from '../jenkins/model/job-path.js'
import type { Build, JobInfo } from '../jenkins/model/types.js'
import type { JenkinsApi } from '../jenkins/client.js'
import type { Logger } from '../util/logger.js'
import type { StepRun } from './bounded-step.js'

/** What an item's build begins from. */
export type Begin =
  /** A new build of the job as read (or of the branch job a scan found, with the build the scan queued). */
  | { kind: 'trigger'; info: JobInfo; branch?: BranchJob }
  /** A build the step did not start: `build: last`, `last-successful`, or a number or URL. */
  | { kind: 'build'; build: Build; mode: Exclude<BuildMode, 'new'> }
  /** A queue item given by its URL: followed to its build, never the step's to stop. */
  | { kind: 'queue-item'; queueId: number; queueUrl: string }

/** Every item with its beginning, in the order given; throws (naming the closest jobs for a 404) when one cannot be read. */
export async function resolveItems<T extends { entry: JobEntry }>(
  step: StepRun,
  logger: Logger,
  items: readonly T[]
): Promise<Array<T & { begin: Begin }>> {
  const { api, settings } = step
  const byRead = new Map<string, Promise<Begin>>()
  const reads = items.map(item => {
    const { entry } = item
    // The item's own `build` (a number or URL), else the input's.
    const mode = entry.given ? 'given' : settings.build
    const { branch } = entry
    const suggesting = (read: Promise<Begin>): Promise<Begin> =>
      suggestingJobs(api, entry.job, logger, read)
    if (branch && mode === 'new')
      return { item, scan: () => suggesting(branchJob(step, logger, entry, branch)) }
    const key = JSON.stringify([jobKey(entry.job), mode, entry.given?.text])
    let read = byRead.get(key)
    if (!read) byRead.set(key, (read = suggesting(readOne(api, entry, settings.build))))
    return { item, read }
  })
  // Every read settled before one failure is thrown (the first in the order given).
  await Promise.allSettled(reads.map(r => r.read))
  const resolved: Array<T & { begin: Begin }> = []
  // One branch at a time: a scan prints in a group of its own.
  for (const { item, read, scan } of reads) {
    resolved.push({ ...item, begin: await (read ?? scan()) })
  }
  return resolved
}

/** One item's job, or the build it follows. */
async function readOne(api: JenkinsApi, entry: JobEntry, mode: BuildMode): Promise<Begin> {
  const { given: reference } = entry
  if (reference) {
    const given = await resolveGivenBuild(api, entry.job, reference).catch((error: unknown) => {
      const { where } = reference
      throw where && error instanceof InputError
        ? new InputError(itemMessage(error.message, where))
        : error
    })
    return 'build' in given
      ? { kind: 'build', build: given.build, mode: 'given' }
      : { kind: 'queue-item', ...given }
  }
  if (mode !== 'new') return { kind: 'build', build: await lastBuild(api, entry.job, mode), mode }
  return { kind: 'trigger', info: await api.getJob(entry.job) }
}

/** A new build of a branch: its job, scanned for when it does not exist yet. */
async function branchJob(
  { api, settings, io, signal, work }: StepRun,
  logger: Logger,
  entry: JobEntry,
  branchOf: NonNullable<JobEntry['branch']>
): Promise<Begin> {
  const branch = await resolveBranch({
    api,
    settings: { ...entry, branch: branchOf, scan: settings.scan, build: 'new' },
    // A scan prints in a group of its own.
    out: { logger, startGroup: title => io.startGroup(title), endGroup: () => io.endGroup() },
    signal,
    // A cancel leaves the scan running and says so.
    onScan: () => work.scans.push(fullName(branchOf.project))
  })
  return { kind: 'trigger', info: branch.info, branch }
}
