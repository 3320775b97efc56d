import { InputError } from '../util/input-error.js'
import type { BuildMode, WaitMode } from './input-values.js'
import type { JobEntry } from './jobs-input.js'

/**
 * What the conflict checks look at: which inputs were given, and how; the
 * job's parameters, files, branch and values file as Settings has them
 * (`job`'s, or with `jobs` the shared ones).
 */
export interface InputUse extends Pick<
  JobEntry,
  'parameters' | 'hasParameters' | 'files' | 'branch' | 'valuesFile'
> {
  disable: boolean
  listJobs: boolean
  build: BuildMode
  wait: WaitMode
  /** The job token ('' for none). */
  jobToken: string
  /** The `artifacts` patterns (none: download nothing). */
  artifacts: readonly unknown[]
  /** The `jobs` entries; undefined with `job`. */
  jobs?: readonly JobEntry[] | undefined
  failFast?: boolean
  /** Whether `status-context` was given. */
  statusContext?: boolean
  /** Input `values-file-required`. */
  valuesFileRequired?: boolean
  /** The `commit-parameter` input. */
  commitParameter?: string | undefined
}

/** An error naming two inputs that cannot be used together, and why. */
export function conflict(a: string, b: string, why: string): InputError {
  return new InputError(`Inputs '${a}' and '${b}' cannot be used together: ${why}.`)
}

/**
 * Refuses combinations of inputs that cannot mean what they say, first
 * found first. `disable`, `list-jobs` and `build` other than new start no
 * build, which parameters, files, a job token and fail-fast all need.
 */
export function checkConflicts(s: InputUse): void {
  const shown = s.build === 'given' ? '<number or URL>' : s.build
  const none = s.disable ? 'disable' : s.listJobs ? 'list-jobs' : s.build !== 'new' ? 'build' : ''
  const unbuilt = {
    disable: 'a disabled job is not built',
    'list-jobs': 'listing jobs builds nothing',
    build: `'build: ${shown}' reports an existing build and triggers nothing`,
    '': ''
  }[none]
  const waited = `which 'wait: ${s.wait === 'queued' ? 'false' : 'started'}' does not wait for; use 'wait: true'`
  if (s.branch && s.listJobs) {
    throw conflict(
      'branch',
      'list-jobs',
      `to list the branches of a multibranch project, name it in 'job' and leave 'branch' out`
    )
  }
  if (s.jobToken !== '' && none !== '') {
    const why = {
      'list-jobs': 'listing reads the jobs',
      disable: 'disabling needs user and token with Job/Configure',
      build: `'build: ${shown}' triggers nothing`
    }[none]
    throw conflict('job-token', none, `a job token only triggers builds; ${why}`)
  }
  if (s.files.length > 0 && none !== '') {
    throw conflict(
      'files',
      none,
      `files are uploaded with a new build only, and '${none}' starts none`
    )
  }
  if (s.disable && s.listJobs) {
    throw conflict('disable', 'list-jobs', 'disabling a job and listing jobs are separate runs')
  }
  if (s.hasParameters && none !== '') {
    throw conflict(none, 'parameters', `${unbuilt}, so parameters would be ignored`)
  }
  if (s.commitParameter !== undefined) commitParameterConflicts(s, s.commitParameter, none, unbuilt)
  if ((s.disable || s.listJobs) && s.build !== 'new') {
    throw conflict(
      none,
      'build',
      s.disable
        ? `'disable' does not report a build; leave 'build' at new`
        : `listing jobs reports no build; leave 'build' at new`
    )
  }
  if (s.artifacts.length > 0 && (s.disable || s.listJobs)) {
    throw conflict('artifacts', none, 'no build is reported, so there are no artifacts to download')
  }
  if (s.artifacts.length > 0 && s.wait !== 'finish') {
    throw conflict('artifacts', 'wait', `artifacts are downloaded once the build ends, ${waited}`)
  }
  if (s.valuesFileRequired && !(s.jobs ?? [s]).some(entry => entry.valuesFile !== undefined)) {
    throw new InputError(
      `Input 'values-file-required' is true but no values file is named: name the artifact to read in 'values-file' (or an item's "values-file"), or leave 'values-file-required' out.`
    )
  }
  if (s.valuesFileRequired && s.wait !== 'finish') {
    throw conflict(
      'values-file-required',
      'wait',
      `the values file is read once the build ends, ${waited}`
    )
  }
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
  // Shared parameters and files were refused above; here an item's own.
  const item = s.jobs.findIndex(entry => entry.hasParameters) + 1
  if (item > 0 && none !== '') {
    throw conflict(
      'jobs',
      none,
      `item ${item} has parameters, but ${unbuilt}, so they would be ignored`
    )
  }
  const withFiles = s.jobs.findIndex(entry => entry.files.length > 0) + 1
  if (withFiles > 0 && none !== '') {
    throw conflict(
      'jobs',
      none,
      `item ${withFiles} has files, which are uploaded with a new build only`
    )
  }
  if (s.failFast && none !== '') {
    throw conflict(
      'fail-fast',
      none,
      s.disable
        ? 'disabling jobs starts no build to stop'
        : `'build: ${shown}' reports builds this step did not start, and it never stops those`
    )
  }
  if (s.failFast && s.wait !== 'finish') {
    throw conflict('fail-fast', 'wait', `fail-fast acts when a build ends, ${waited}`)
  }
}

/** `commit-parameter` fills a parameter of a new build: there must be one, and nothing else may set that parameter. */
function commitParameterConflicts(s: InputUse, name: string, none: string, unbuilt: string): void {
  if (none !== '') {
    throw conflict('commit-parameter', none, `${unbuilt}, so no parameter would take the commit`)
  }
  const own = `${name} takes the commit under test ('commit-parameter'): leave it out of`
  if (Object.hasOwn(s.parameters, name)) {
    throw conflict('commit-parameter', 'parameters', `${own} 'parameters'`)
  }
  const item = (s.jobs ?? []).findIndex(entry => Object.hasOwn(entry.parameters, name)) + 1
  if (item > 0) {
    throw conflict('commit-parameter', 'jobs', `${own} item ${item}'s parameters`)
  }
}
