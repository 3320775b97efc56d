import { InputError } from '../util/input-error.js'
import {
  branchItemName,
  fullName,
  jobKey,
  parseJobPath,
  redactUrl
} from '../jenkins/model/job-path.js'
import type { BuildParameters, JobPath } from '../jenkins/model/types.js'
import { isRecord } from '../util/is-record.js'
import { duplicateKey, kindOf, parseJsonInput, parseParameters } from './parameters.js'
import { artifactSegments } from '../util/workspace-paths.js'
import { parseFiles, type FileRequest } from './upload-files.js'
import { clip } from '../util/shorten.js'
import { parseBranch } from './input-values.js'
import { itemMessage, parseBuildReference, type BuildReference } from './build-reference.js'

/**
 * One build the inputs ask for, validated: the `job` input, or an item of
 * `jobs` (jobEntry builds it; an item's `"build"` adds `given`).
 */
export type JobEntry = ReturnType<typeof jobEntry> & {
  /** `build: <number or URL>` (an item's `"build"`): the build or queue item to follow instead of triggering one. */
  given?: BuildReference
}

/** What every item shares unless it says otherwise. */
export interface SharedJobInputs {
  parameters: BuildParameters
  hasParameters: boolean
  /** The `files` input (none when left out). */
  files?: readonly FileRequest[]
  /** The `branch` input ('' for none). */
  branch: string
  /** The `values-file` input (none when left out). */
  valuesFile?: string
}

/** What an item's key other than `job` takes besides a string (`parameters` and `files`: an object too; `build`: a number). */
const ITEM_VALUES: Readonly<Record<string, string>> = {
  parameters: 'an object such as {"NAME": "value"}, or NAME=value lines in a string',
  files: 'an object such as {"PACKAGE": "dist/app.zip"}, or NAME=path lines in a string',
  branch: 'a branch or pull-request name, e.g. "feature/x" or "PR-42"',
  'values-file': 'the path of an artifact the build archives, e.g. "values.json"',
  build: 'a build number of its job, or a build or queue item URL'
}
/** Keys an item object may have. */
const ITEM_KEYS = ['job', ...Object.keys(ITEM_VALUES)]
/** More builds than this from one step is a mistake or an abuse: a matrix or several steps say it better. */
const MAX_JOBS = 100

const FORMS =
  'expected a JSON array whose items are a job path or {"job": "...", "parameters": {...} or "NAME=value lines", "files": {"NAME": "path"} or "NAME=path lines", "branch": "...", "values-file": "...", "build": 42 or "URL"}, or one job path per line'

/**
 * Parses the `jobs` input: a JSON array (the text starts with `[`) whose
 * items are a job path or an object with `job`, `parameters` (an object, or
 * `NAME=value` lines) and `branch`; or plain lines, one job path per line.
 * Each item takes the shared `parameters` and `branch`; an item's own
 * parameters go over the shared ones (same name: the item's wins), its own
 * `branch` replaces the shared one (`""` for none). Messages name the item
 * (1-based) and never echo a parameter value. `warnings`: for the step log
 * (an item given twice).
 */
export function parseJobs(text: string, url: string, shared: SharedJobInputs) {
  const trimmed = text.trim()
  if (trimmed.startsWith('{')) {
    throw new InputError(`Input 'jobs' is a JSON object, not an array: ${FORMS}.`)
  }
  const items = trimmed.startsWith('[') ? jsonItems(trimmed) : lineItems(text)
  if (items.length === 0) throw new InputError(`Input 'jobs' lists no job: ${FORMS}.`)
  if (items.length > MAX_JOBS) {
    throw new InputError(
      `Input 'jobs' lists ${items.length} jobs, more than the ${MAX_JOBS} one step follows: split them over several steps or a matrix.`
    )
  }
  const entries = items.map(item => entryOf(item, url, shared))
  return { entries, warnings: repeats(entries) }
}

/** An item as written, before validation: where it is (1-based) and what it says. */
interface RawItem {
  index: number
  job: string
  /** The item's own parameters: lines or an object; undefined when it has none. */
  parameters?: string | Record<string, unknown>
  /** The item's own files: lines or an object; undefined when it has none. */
  files?: string | Record<string, unknown>
  branch?: string
  'values-file'?: string
  /** A build number or URL to follow instead of triggering (a JSON number or a string). */
  build?: number | string
}

function lineItems(text: string): RawItem[] {
  const jobs = text.split(/\r?\n/).map(line => line.trim())
  return jobs.filter(job => job !== '').map((job, i) => ({ index: i + 1, job }))
}

function jsonItems(text: string): RawItem[] {
  const data = parseJsonInput(text, "Input 'jobs'", FORMS)
  if (!Array.isArray(data)) throw new InputError(`Input 'jobs' is JSON but not an array: ${FORMS}.`)
  const twice = duplicateKey(text, Infinity)
  if (twice) {
    throw new InputError(
      `Input 'jobs' item ${twice.item ?? '?'} has the key '${clip(redactUrl(twice.name))}' twice (${twice.lines}): a key may appear once.`
    )
  }
  return data.map((value: unknown, i) => rawItem(value, i + 1))
}

function rawItem(value: unknown, index: number): RawItem {
  const where = `Input 'jobs' item ${index}`
  if (typeof value === 'string') return { index, job: value }
  if (!isRecord(value)) throw new InputError(`${where} is ${kindOf(value)}: ${FORMS}.`)
  const unknown = Object.keys(value).filter(key => !ITEM_KEYS.includes(key))
  if (unknown.length > 0) {
    throw new InputError(
      `${where} has unknown key${unknown.length > 1 ? 's' : ''} ${unknown.map(k => `'${clip(redactUrl(k))}'`).join(', ')}: an item takes ${ITEM_KEYS.map(k => `'${k}'`).join(', ')} (${FORMS}).`
    )
  }
  const job = value['job']
  if (typeof job !== 'string' || job.trim() === '') {
    throw new InputError(`${where} has no 'job' (a non-empty string naming the job): ${FORMS}.`)
  }
  for (const [key, expected] of Object.entries(ITEM_VALUES)) {
    const given = value[key]
    const lines = key === 'parameters' || key === 'files'
    if (given === undefined || typeof given === 'string') continue
    if (lines ? isRecord(given) : key === 'build' && typeof given === 'number') continue
    const what = lines ? `'${key}' that are` : `a '${key}' that is`
    throw new InputError(`${where} has ${what} ${kindOf(given)}: expected ${expected}.`)
  }
  // cast: every key is one of ITEM_KEYS, each checked for its kind above.
  return { ...(value as Partial<RawItem>), index, job }
}

function entryOf(item: RawItem, url: string, shared: SharedJobInputs): JobEntry {
  const where = `Input 'jobs' item ${item.index}`
  // An item's own value, parsed (undefined: it has none), named in messages by its key.
  const own = <T, R>(value: T | undefined, key: string, parse: (value: T, where: string) => R) =>
    value === undefined ? undefined : parse(value, `${where}'s '${key}'`)
  const entry = jobEntry(parseProject(item.job, url, where), shared, {
    // An object was parsed with the rest; written out again it goes through
    // the same rules as the `parameters` input (value types, empty names).
    parameters: own(item.parameters, 'parameters', (value, at) =>
      parseParameters(typeof value === 'string' ? value : JSON.stringify(value), at)
    ),
    // `""` is none, over a shared one.
    branch: own(item.branch, 'branch', (value, at) => parseBranch(value, at) ?? ''),
    files: own(item.files, 'files', parseFiles),
    valuesFile: own(
      item['values-file'],
      'values-file',
      (value, at) => parseValuesFile(value, at) ?? ''
    )
  })
  return item.build === undefined ? entry : { ...entry, given: givenBuild(item, url, entry) }
}

/** An item's own `build`: a build number of its job, or a build or queue item URL Jenkins gave for it. */
function givenBuild(item: RawItem, url: string, entry: JobEntry): BuildReference {
  const where = `Input 'jobs' item ${item.index}'s 'build'`
  const text = String(item.build).trim()
  const expected = `expected a build number of its job (42), or a build or queue item URL Jenkins gave for it`
  if (entry.hasParameters || entry.files.length > 0) {
    throw new InputError(
      `Input 'jobs' item ${item.index} has 'build' and ${entry.hasParameters ? 'parameters' : 'files'}: a given build is followed, not triggered, so they would be ignored.`
    )
  }
  const given = renamed(
    () => parseBuildReference(text, url, entry.job),
    message => itemMessage(message, where)
  )
  if (!given) throw new InputError(`${where} ('${clip(redactUrl(text))}') is not one: ${expected}.`)
  return { ...given, where }
}

/** A job path as `where` (`Input 'job'`, or an item of `jobs`) gives it. */
export function parseProject(text: string, url: string, where: string): JobPath {
  // Its messages name 'job'.
  return renamed(
    () => parseJobPath(text, url),
    message => message.replace("Input 'job'", where)
  )
}

/** What an item of `jobs` sets for itself, parsed (`''`: none, over a shared one). */
type OwnInputs = Partial<Omit<SharedJobInputs, 'hasParameters'>>

/**
 * The build one job asks for: `job` with the shared inputs, or an item of
 * `jobs` with its own over them. With a branch, the branch job of the
 * multibranch project; the status context names the project, so that a
 * required check keeps its name from one pull request to the next.
 */
export function jobEntry(project: JobPath, shared: SharedJobInputs, own: OwnInputs = {}) {
  const parameters = own.parameters ?? {}
  const branchName = own.branch ?? shared.branch
  const branch = branchName === '' ? undefined : { name: branchName, project }
  const job = branch ? Object.freeze([...project, branchItemName(branch.name)]) : project
  const valuesFile = own.valuesFile ?? shared.valuesFile ?? ''
  const context = fullName(project)
  return {
    /** Item names from the root ([] for the root, with `list-jobs`); with a branch, the branch job (project + encoded branch). */
    job,
    /** Full name for messages and outputs, e.g. 'team/service/deploy' ('' for the root). */
    jobName: fullName(job),
    /** The shared `parameters`, with an item's own over them. */
    parameters: { ...shared.parameters, ...parameters },
    /** True when the shared `parameters` or the item's own were non-empty. */
    hasParameters: shared.hasParameters || Object.keys(parameters).length > 0,
    /** The shared `files`, with an item's own over them (same NAME: the item's); checked as text (upload-files.ts checks them on disk). */
    files: mergeFiles(shared.files ?? [], own.files ?? []),
    /** An item's `branch`, else the shared one: the branch as Jenkins and the SCM name it, and its multibranch project. */
    ...(branch ? { branch } : {}),
    /** Commit status context: `jenkins/<job>` (with a branch, `jenkins/<project>`); a later item of `jobs` with the same context gets ` (2)`, ` (3)`… */
    statusContext: context === '' ? 'jenkins' : `jenkins/${context}`,
    /** The artifact (its path among the build's artifacts) read into `values`: an item's `"values-file"`, else the shared input's; undefined for none. */
    ...(valuesFile === '' ? {} : { valuesFile })
  }
}

/** The shared files, an item's own over them by NAME. */
function mergeFiles(shared: readonly FileRequest[], own: readonly FileRequest[]): FileRequest[] {
  return [...shared.filter(file => !own.some(mine => mine.name === file.name)), ...own]
}

/**
 * What repeats among the items, in one pass. Items after the first with the
 * same context get ` (2)`, ` (3)`…, so that no status overwrites another's.
 * Two items naming the same job (Jenkins compares names case-insensitively)
 * with the same parameters: Jenkins folds a request into an identical one
 * still queued (Queue.scheduleInternal, ParametersAction.shouldSchedule), so
 * both may report one build. Allowed, and said: the warnings returned.
 */
function repeats(entries: JobEntry[]): string[] {
  const contexts = new Map<string, number>()
  const first = new Map<string, number>()
  const warnings: string[] = []
  entries.forEach((entry, i) => {
    const context = entry.statusContext.toLowerCase()
    const count = (contexts.get(context) ?? 0) + 1
    contexts.set(context, count)
    if (count > 1) entry.statusContext = `${entry.statusContext} (${count})`
    const key = JSON.stringify([
      jobKey(entry.job),
      Object.entries(entry.parameters).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    ])
    const earlier = first.get(key)
    if (earlier === undefined) first.set(key, i + 1)
    else {
      warnings.push(
        `Input 'jobs' lists ${entry.jobName} twice with the same parameters (items ${earlier} and ${i + 1}): Jenkins merges identical requests while one is still queued, so both items may report one and the same build.`
      )
    }
  })
  return warnings
}

/** What `parse` returns; its InputError worded by `rename` (it names another input). */
function renamed<T>(parse: () => T, rename: (message: string) => string): T {
  try {
    return parse()
  } catch (error) {
    if (error instanceof InputError) throw new InputError(rename(error.message))
    throw error
  }
}

/**
 * The `values-file` input (and a `jobs` item's `"values-file"`): a path among
 * the build's artifacts, as the `artifacts` output lists them. Checked as
 * Jenkins writes artifact paths (src/util/workspace-paths.ts), on Jenkins'
 * side of the path only: it names a URL below `artifact/`, never a file of
 * the runner, so Windows' file-name rules do not apply. The artifact path,
 * or undefined when the input is empty; `where` names the input in the error
 * (`Input 'values-file'`).
 */
export function parseValuesFile(value: string, where: string): string | undefined {
  const path = value.trim()
  if (path === '') return undefined
  const segments = artifactSegments(path, 'linux')
  if (!Array.isArray(segments)) {
    throw new InputError(
      `${where} ('${clip(path)}') ${segments.reason}: expected the path of an artifact the build archives, relative to its artifacts, such as values.json or out/build.env.`
    )
  }
  return path
}
