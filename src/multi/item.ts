import type { BranchJob } from '../follow/branch.js'
import type { CommitStatusReporter } from '../outcome/commit-status.js'
import type { JobEntry } from '../inputs/jobs-input.js'
import type { Build, BuildRef, JobInfo } from '../jenkins/model/types.js'
import type { BuildReport } from '../outcome/report.js'

/** One item of `jobs` as the step follows it. */
export interface Item {
  index: number
  entry: JobEntry
  report: BuildReport
  info?: JobInfo
  branch?: BranchJob
  /** build: last — the build as first read. */
  first?: Build
  ref?: BuildRef
  /** Its queue item, once triggered. */
  queueId?: number
  /** The follower's id of its build (items that started the same work share one). */
  track?: number
  status?: CommitStatusReporter
  /** The step told it to stop (fail-fast). */
  stopping: boolean
  /** Nothing more to wait for. */
  done: boolean
}
