import { resolveBranch, type BranchJob } from '../follow/branch.js'
import type { StepIO } from '../runner/io.js'
import { lastBuild, withJobSuggestions } from '../follow/build-parts.js'
import type { JobEntry } from '../inputs/jobs-input.js'
import type { BuildMode, ScanMode } from '../inputs/input-values.js'
import { JenkinsError } from '../jenkins/transport/errors.js'
import { fullName, jobKey } from '../jenkins/model/job-path.js'
import type { Build, JenkinsApi, JobInfo } from '../jenkins/model/types.js'
import type { Logger } from '../util/logger.js'

/** What the step needs of an item before triggering it (or, with build: last, its build). */
export interface Resolved {
  info?: JobInfo
  branch?: BranchJob
  /** build: last / last-successful: the build as first read. */
  first?: Build
}

export interface ResolveOptions {
  api: JenkinsApi
  entries: readonly JobEntry[]
  build: BuildMode
  scan: ScanMode
  /** Where a scan prints (a group of its own). */
  out: Pick<StepIO, 'logger' | 'startGroup' | 'endGroup'>
  logger: Logger
  signal: AbortSignal
  /** Told of each project this step asked to scan (a cancel leaves its scan running and says so). */
  onScan?: (project: string) => void
}

/**
 * Every job (or its last build) looked up before anything is triggered: a
 * wrong name fails the step with nothing started, naming the closest jobs.
 * Each distinct job is read once (names are case-insensitive). Branches
 * that have no job yet are scanned for one at a time (a scan prints its log
 * in a group of its own).
 */
export async function resolveJobs(o: ResolveOptions): Promise<Resolved[]> {
  const { api, entries } = o
  if (o.build !== 'new') {
    const mode = o.build
    const firsts = await once(o, entry => lastBuild(api, entry.job, mode))
    return firsts.map(first => ({ first }))
  }
  const infos = await once(o, async entry => {
    try {
      return await api.getJob(entry.job)
    } catch (error) {
      // A branch without a job yet is scanned for below.
      if (entry.branch && error instanceof JenkinsError && error.kind === 'not-found') {
        return undefined
      }
      throw error
    }
  })
  const resolved: Resolved[] = infos.map(info => ({ info }))
  for (const [i, entry] of entries.entries()) {
    const item = resolved[i] as Resolved
    if (item.info || !entry.branch) continue
    item.branch = await resolveBranch({
      api,
      settings: { ...entry, branch: entry.branch, scan: o.scan, build: 'new' },
      out: o.out,
      signal: o.signal,
      onScan: () => o.onScan?.(fullName(entry.branch?.project ?? []))
    })
    item.info = item.branch.info
  }
  return resolved
}

/** `read` once per distinct job, for every entry; a 404 names the closest jobs. */
async function once<T>(o: ResolveOptions, read: (entry: JobEntry) => Promise<T>): Promise<T[]> {
  const byJob = new Map<string, Promise<T>>()
  const reads = o.entries.map(entry => {
    const key = jobKey(entry.job)
    let promise = byJob.get(key)
    if (!promise) {
      promise = read(entry)
      byJob.set(key, promise)
    }
    return promise
  })
  try {
    return await Promise.all(reads)
  } catch (error) {
    const settled = await Promise.allSettled(reads)
    const failed = o.entries[settled.findIndex(s => s.status === 'rejected')]
    if (failed && error instanceof JenkinsError && error.kind === 'not-found') {
      throw new Error(await withJobSuggestions(o.api, failed.job, error, o.logger))
    }
    throw error
  }
}
