import { describe, expect, it } from 'vitest'
import { checkConflicts, type InputUse } from '../../src/inputs/input-conflicts.js'
import type { JobEntry } from '../../src/inputs/jobs-input.js'
import { InputError } from '../../src/util/input-error.js'

/**
 * The conflict rules one by one: each refusal with exactly the two inputs
 * it names, and each input (or pair) the rules must let through. A rule
 * whose condition is loosened refuses an accepted row; one that is dropped
 * or tightened lets a refused row through, or names another input.
 */

/** A plain `job` run: nothing but a new build, followed to its end. */
const plain: InputUse = {
  disable: false,
  listJobs: false,
  build: 'new',
  parameters: {},
  hasParameters: false,
  files: [],
  wait: 'finish',
  jobToken: '',
  artifacts: []
}

/** A file for the `files` input, a branch for `branch`, a job token and an `artifacts` pattern. */
const FILES = [{ name: 'PKG', path: 'a.zip' }]
const BRANCH = { name: 'main', project: ['app'] }
const TOKEN = 'job-token'
const PATTERNS = [{ glob: '**', negate: false, text: '**' }]

/** The message checkConflicts throws for `use`, or undefined when it accepts it. */
function refusal(check: () => void): string | undefined {
  try {
    check()
  } catch (error) {
    expect(error).toBeInstanceOf(InputError)
    return (error as InputError).message
  }
  return undefined
}

const together = (a: string, b: string, why: string): string =>
  `Inputs '${a}' and '${b}' cannot be used together: ${why}.`

describe('checkConflicts accepts', () => {
  it.each<[string, Partial<InputUse>]>([
    ['a plain new build', {}],
    [
      'files with a new build, parameters and artifacts',
      { files: FILES, hasParameters: true, artifacts: PATTERNS }
    ],
    ['files with wait: started', { files: FILES, wait: 'started' }],
    ['files with wait: false', { files: FILES, wait: 'queued' }],
    ['files with a branch and a job token', { files: FILES, branch: BRANCH, jobToken: TOKEN }],
    ['disable alone', { disable: true }],
    ['list-jobs alone', { listJobs: true }],
    ['list-jobs with wait: false', { listJobs: true, wait: 'queued' }],
    ['build: last alone', { build: 'last' }],
    ['build: last-successful with artifacts', { build: 'last-successful', artifacts: PATTERNS }],
    ['build: last with a branch', { build: 'last', branch: BRANCH }],
    ['parameters alone', { hasParameters: true }],
    ['a branch with parameters', { branch: BRANCH, hasParameters: true }],
    [
      'a job token with parameters and wait: false',
      {
        jobToken: TOKEN,
        hasParameters: true,
        wait: 'queued'
      }
    ],
    ['artifacts alone', { artifacts: PATTERNS }],
    ['wait: false alone', { wait: 'queued' }],
    ['wait: started alone', { wait: 'started' }]
  ])('%s', (_name, use) => {
    expect(refusal(() => checkConflicts({ ...plain, ...use }))).toBeUndefined()
  })
})

describe('checkConflicts refuses, naming both inputs', () => {
  it.each<[Partial<InputUse>, string]>([
    [
      { branch: BRANCH, listJobs: true },
      together(
        'branch',
        'list-jobs',
        "to list the branches of a multibranch project, name it in 'job' and leave 'branch' out"
      )
    ],
    [
      { jobToken: TOKEN, listJobs: true },
      together('job-token', 'list-jobs', 'a job token only triggers builds; listing reads the jobs')
    ],
    [
      { jobToken: TOKEN, disable: true },
      together(
        'job-token',
        'disable',
        'a job token only triggers builds; disabling needs user and token with Job/Configure'
      )
    ],
    [
      { jobToken: TOKEN, build: 'last-successful' },
      together(
        'job-token',
        'build',
        "a job token only triggers builds; 'build: last-successful' triggers nothing"
      )
    ],
    [
      { files: FILES, disable: true },
      together(
        'files',
        'disable',
        "files are uploaded with a new build only, and 'disable' starts none"
      )
    ],
    [
      { files: FILES, listJobs: true },
      together(
        'files',
        'list-jobs',
        "files are uploaded with a new build only, and 'list-jobs' starts none"
      )
    ],
    [
      { files: FILES, build: 'last' },
      together(
        'files',
        'build',
        "files are uploaded with a new build only, and 'build' starts none"
      )
    ],
    [
      // disable is named before build, whichever the files meet first.
      { files: FILES, disable: true, build: 'last' },
      together(
        'files',
        'disable',
        "files are uploaded with a new build only, and 'disable' starts none"
      )
    ],
    [
      { files: FILES, listJobs: true, build: 'last' },
      together(
        'files',
        'list-jobs',
        "files are uploaded with a new build only, and 'list-jobs' starts none"
      )
    ],
    [
      { disable: true, listJobs: true },
      together('disable', 'list-jobs', 'disabling a job and listing jobs are separate runs')
    ],
    [
      { disable: true, hasParameters: true },
      together(
        'disable',
        'parameters',
        'a disabled job is not built, so parameters would be ignored'
      )
    ],
    [
      { disable: true, build: 'last' },
      together('disable', 'build', "'disable' does not report a build; leave 'build' at new")
    ],
    [
      { listJobs: true, hasParameters: true },
      together(
        'list-jobs',
        'parameters',
        'listing jobs builds nothing, so parameters would be ignored'
      )
    ],
    [
      { listJobs: true, build: 'last-successful' },
      together('list-jobs', 'build', "listing jobs reports no build; leave 'build' at new")
    ],
    [
      { build: 'last', hasParameters: true },
      together(
        'build',
        'parameters',
        "'build: last' reports an existing build and triggers nothing, so parameters would be ignored"
      )
    ],
    [
      { artifacts: PATTERNS, disable: true },
      together(
        'artifacts',
        'disable',
        'no build is reported, so there are no artifacts to download'
      )
    ],
    [
      { artifacts: PATTERNS, listJobs: true },
      together(
        'artifacts',
        'list-jobs',
        'no build is reported, so there are no artifacts to download'
      )
    ],
    [
      { artifacts: PATTERNS, wait: 'started' },
      together(
        'artifacts',
        'wait',
        "artifacts are downloaded once the build ends, which 'wait: started' does not wait for; use 'wait: true'"
      )
    ],
    [
      { artifacts: PATTERNS, wait: 'queued' },
      together(
        'artifacts',
        'wait',
        "artifacts are downloaded once the build ends, which 'wait: false' does not wait for; use 'wait: true'"
      )
    ]
  ])('%o', (use, message) => {
    expect(refusal(() => checkConflicts({ ...plain, ...use }))).toBe(message)
  })
})

function entry(job: string, extra: Partial<JobEntry> = {}): JobEntry {
  return {
    job: [job],
    jobName: job,
    parameters: {},
    hasParameters: false,
    files: [],
    statusContext: `jenkins/${job}`,
    ...extra
  }
}

/** Three plain jobs, a new build each, followed to the end. */
const jobsRun: InputUse = {
  ...plain,
  jobs: [entry('a'), entry('b'), entry('c')],
  failFast: false,
  statusContext: false
}

const withParameters = entry('b', { parameters: { A: '1' }, hasParameters: true })
const withFiles = entry('c', { files: [{ name: 'PKG', path: 'a.zip' }] })

describe('checkConflicts with jobs accepts', () => {
  it.each<[string, Partial<InputUse>]>([
    ['one job (no jobs) without fail-fast', { jobs: undefined }],
    ['one job with status-context', { jobs: undefined, statusContext: true }],
    // disable with build: last is refused for one job and for jobs alike (above).
    ['one job with disable', { jobs: undefined, disable: true }],
    ['one job with build: last', { jobs: undefined, build: 'last' }],
    ['jobs alone', {}],
    ['jobs with fail-fast', { failFast: true }],
    [
      'jobs with fail-fast, parameters and files',
      {
        failFast: true,
        jobs: [entry('a'), withParameters, withFiles]
      }
    ],
    ['jobs with disable, no item with parameters or files', { disable: true }],
    ['jobs with build: last, no item with parameters or files', { build: 'last' }],
    ['jobs with wait: started', { wait: 'started' }],
    ['jobs with wait: false', { wait: 'queued' }],
    [
      'jobs with parameters and files, wait: false',
      {
        jobs: [withParameters, withFiles],
        wait: 'queued'
      }
    ]
  ])('%s', (_name, use) => {
    expect(refusal(() => checkConflicts({ ...jobsRun, ...use }))).toBeUndefined()
  })
})

describe('checkConflicts with jobs refuses', () => {
  it.each<[string, Partial<InputUse>, string]>([
    [
      'fail-fast without jobs',
      { jobs: undefined, failFast: true },
      "Input 'fail-fast' only applies with 'jobs': with one 'job' there is no other build to stop; list the jobs in 'jobs', or leave 'fail-fast' out."
    ],
    [
      'status-context with jobs',
      { statusContext: true },
      together(
        'status-context',
        'jobs',
        "each build of 'jobs' gets its own commit status, with context jenkins/<job> (jenkins/<project> for a branch)"
      )
    ],
    [
      'the second item has parameters, with disable',
      { jobs: [entry('a'), withParameters, entry('c')], disable: true },
      together(
        'jobs',
        'disable',
        'item 2 has parameters, but a disabled job is not built, so they would be ignored'
      )
    ],
    [
      'the first item has parameters, with build: last-successful',
      { jobs: [withParameters, entry('c')], build: 'last-successful' },
      together(
        'jobs',
        'build',
        "item 1 has parameters, but 'build: last-successful' reports an existing build and triggers nothing, so they would be ignored"
      )
    ],
    [
      'the third item has files, with disable',
      { jobs: [entry('a'), entry('b'), withFiles], disable: true },
      together('jobs', 'disable', 'item 3 has files, which are uploaded with a new build only')
    ],
    [
      'the third item has files, with build: last',
      { jobs: [entry('a'), entry('b'), withFiles], build: 'last' },
      together('jobs', 'build', 'item 3 has files, which are uploaded with a new build only')
    ],
    [
      'fail-fast with disable',
      { failFast: true, disable: true },
      together('fail-fast', 'disable', 'disabling jobs starts no build to stop')
    ],
    [
      'fail-fast with build: last',
      { failFast: true, build: 'last' },
      together(
        'fail-fast',
        'build',
        "'build: last' reports builds this step did not start, and it never stops those"
      )
    ],
    [
      'fail-fast with wait: started',
      { failFast: true, wait: 'started' },
      together(
        'fail-fast',
        'wait',
        "fail-fast acts when a build ends, which 'wait: started' does not wait for; use 'wait: true'"
      )
    ],
    [
      'fail-fast with wait: false',
      { failFast: true, wait: 'queued' },
      together(
        'fail-fast',
        'wait',
        "fail-fast acts when a build ends, which 'wait: false' does not wait for; use 'wait: true'"
      )
    ]
  ])('%s', (_name, use, message) => {
    expect(refusal(() => checkConflicts({ ...jobsRun, ...use }))).toBe(message)
  })
})

describe('values-file-required', () => {
  it('with a values file, a build followed to its end: accepted, with job and with jobs', () => {
    const use = { valuesFileRequired: true, valuesFile: 'values.json' }
    expect(refusal(() => checkConflicts({ ...plain, ...use }))).toBeUndefined()
    // With jobs, an item's (the shared one is each item's too).
    const jobs = [entry('a'), entry('b', { valuesFile: 'values.json' })]
    expect(refusal(() => checkConflicts({ ...jobsRun, valuesFileRequired: true, jobs }))).toBe(
      undefined
    )
  })

  it('without any values file: refused, saying what to name', () => {
    const message = `Input 'values-file-required' is true but no values file is named: name the artifact to read in 'values-file' (or an item's "values-file"), or leave 'values-file-required' out.`
    expect(refusal(() => checkConflicts({ ...plain, valuesFileRequired: true }))).toBe(message)
    expect(refusal(() => checkConflicts({ ...jobsRun, valuesFileRequired: true }))).toBe(message)
  })

  it('with a wait that does not reach the end: refused, the values are read at the end', () => {
    const use = { valuesFileRequired: true, valuesFile: 'values.json', wait: 'started' } as const
    expect(refusal(() => checkConflicts({ ...plain, ...use }))).toBe(
      together(
        'values-file-required',
        'wait',
        "the values file is read once the build ends, which 'wait: started' does not wait for; use 'wait: true'"
      )
    )
  })
})
