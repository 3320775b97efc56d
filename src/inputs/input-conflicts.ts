import { InputError } from '../util/input-error.js'
import type { BuildMode, WaitMode } from './input-values.js'
import type { JobEntry } from './jobs-input.js'

/** What the conflict checks look at: which inputs were given, and how. */
export interface InputUse {
  disable: boolean
  listJobs: boolean
  build: BuildMode
  hasParameters: boolean
  /** The `files` input is non-empty. */
  hasFiles?: boolean
  commitStatus: boolean
  wait: WaitMode
  branch: boolean
  jobToken: boolean
  hasArtifacts: boolean
}

/** An error naming two inputs that cannot be used together, and why. */
export function conflict(a: string, b: string, why: string): InputError {
  return new InputError(`Inputs '${a}' and '${b}' cannot be used together: ${why}.`)
}

/** Refuses combinations of inputs that cannot mean what they say. */
export function checkConflicts(s: InputUse): void {
  if (s.branch && s.listJobs) {
    throw conflict(
      'branch',
      'list-jobs',
      `to list the branches of a multibranch project, name it in 'job' and leave 'branch' out`
    )
  }
  if (s.jobToken && s.listJobs) {
    throw conflict(
      'job-token',
      'list-jobs',
      'a job token only triggers builds; listing reads the jobs'
    )
  }
  if (s.jobToken && s.disable) {
    throw conflict(
      'job-token',
      'disable',
      'a job token only triggers builds; disabling needs user and token with Job/Configure'
    )
  }
  if (s.jobToken && s.build !== 'new') {
    throw conflict(
      'job-token',
      'build',
      `a job token only triggers builds; 'build: ${buildShown(s.build)}' triggers nothing`
    )
  }
  if (s.hasFiles) {
    const other = s.disable
      ? 'disable'
      : s.listJobs
        ? 'list-jobs'
        : s.build !== 'new'
          ? 'build'
          : ''
    if (other !== '') {
      throw conflict(
        'files',
        other,
        `files are uploaded with a new build only, and '${other}' starts none`
      )
    }
  }
  if (s.disable && s.listJobs) {
    throw conflict('disable', 'list-jobs', 'disabling a job and listing jobs are separate runs')
  }
  if (s.disable && s.hasParameters) {
    throw conflict(
      'disable',
      'parameters',
      'a disabled job is not built, so parameters would be ignored'
    )
  }
  if (s.disable && s.build !== 'new') {
    throw conflict('disable', 'build', `'disable' does not report a build; leave 'build' at new`)
  }
  if (s.listJobs && s.hasParameters) {
    throw conflict(
      'list-jobs',
      'parameters',
      'listing jobs builds nothing, so parameters would be ignored'
    )
  }
  if (s.listJobs && s.build !== 'new') {
    throw conflict('list-jobs', 'build', `listing jobs reports no build; leave 'build' at new`)
  }
  if (s.build !== 'new' && s.hasParameters) {
    throw conflict(
      'build',
      'parameters',
      `'build: ${buildShown(s.build)}' reports an existing build and triggers nothing, so parameters would be ignored`
    )
  }
  if (s.hasArtifacts && (s.disable || s.listJobs)) {
    throw conflict(
      'artifacts',
      s.disable ? 'disable' : 'list-jobs',
      'no build is reported, so there are no artifacts to download'
    )
  }
  if (s.hasArtifacts && s.wait !== 'finish') {
    throw conflict(
      'artifacts',
      'wait',
      `artifacts are downloaded once the build ends, which 'wait: ${s.wait === 'queued' ? 'false' : 'started'}' does not wait for; use 'wait: true'`
    )
  }
  // A pending status that nothing ever resolves would block a protected
  // branch for good.
  if (s.commitStatus && s.wait === 'queued') {
    throw conflict(
      'commit-status',
      'wait',
      `with 'wait: false' the result is never known, so the commit status would stay pending; use 'wait: true'`
    )
  }
}

/** What the checks of `jobs` and `fail-fast` look at. */
export interface JobsUse {
  /** The `jobs` entries; undefined with `job`. */
  jobs: readonly JobEntry[] | undefined
  failFast: boolean
  disable: boolean
  build: BuildMode
  wait: WaitMode
  /** Whether `status-context` was given. */
  statusContext: boolean
}

/**
 * Refuses what `jobs` and `fail-fast` cannot do. Shared `parameters` met
 * checkConflicts already; an item's own parameters are checked here.
 */
export function checkJobsConflicts(s: JobsUse): void {
  if (!s.jobs) {
    if (s.failFast) {
      throw new InputError(
        `Input 'fail-fast' only applies with 'jobs': with one 'job' there is no other build to stop; list the jobs in 'jobs', or leave 'fail-fast' out.`
      )
    }
    return
  }
  if (s.statusContext) {
    throw conflict(
      'status-context',
      'jobs',
      `each build of 'jobs' gets its own commit status, with context jenkins/<job> (jenkins/<project> for a branch)`
    )
  }
  const item = s.jobs.findIndex(entry => entry.hasParameters) + 1
  if (item > 0 && s.disable) {
    throw conflict(
      'jobs',
      'disable',
      `item ${item} has parameters, but a disabled job is not built, so they would be ignored`
    )
  }
  if (item > 0 && s.build !== 'new') {
    throw conflict(
      'jobs',
      'build',
      `item ${item} has parameters, but 'build: ${buildShown(s.build)}' reports an existing build and triggers nothing`
    )
  }
  const withFiles = s.jobs.findIndex(entry => entry.files.length > 0) + 1
  if (withFiles > 0 && (s.disable || s.build !== 'new')) {
    throw conflict(
      'jobs',
      s.disable ? 'disable' : 'build',
      `item ${withFiles} has files, which are uploaded with a new build only`
    )
  }
  if (s.failFast && s.disable) {
    throw conflict('fail-fast', 'disable', 'disabling jobs starts no build to stop')
  }
  if (s.failFast && s.build !== 'new') {
    throw conflict(
      'fail-fast',
      'build',
      `'build: ${buildShown(s.build)}' reports builds this step did not start, and it never stops those`
    )
  }
  if (s.failFast && s.wait !== 'finish') {
    throw conflict(
      'fail-fast',
      'wait',
      `fail-fast acts when a build ends, which 'wait: ${s.wait === 'queued' ? 'false' : 'started'}' does not wait for; use 'wait: true'`
    )
  }
}

/** `build` as a message shows it: a number or URL is `given` inside. */
function buildShown(build: BuildMode): string {
  return build === 'given' ? '<number or URL>' : build
}
