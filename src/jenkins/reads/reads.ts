import { BUILD_RESULTS } from '../../util/constants.js'
import { isRecord } from '../../util/is-record.js'
import { JenkinsError } from '../transport/errors.js'
import {
  countOf,
  fields,
  isBuildNumber,
  isCount,
  list,
  shownValue,
  text,
  texts
} from '../model/counts.js'
import { buildUrl, fullName, jobUrl, queueItemUrl } from '../model/job-path.js'
import {
  ACTIONS_FIELDS,
  buildSummaryOf,
  buildsOf,
  actionsOf,
  decodeBuild,
  entriesOf,
  isBuildResult,
  type CheckedBuildJson,
  jobNamesFromUrl,
  type PasswordNames,
  type RecentBuild
} from './decode.js'
import type { Requester } from '../transport/requester.js'
import type { HttpResponse } from '../transport/http.js'
import { htmlGlitch, oddAnswer, type ErrorContext } from '../transport/responses.js'
import type {
  Build,
  BuildRef,
  JobInfo,
  JobPath,
  ParameterDefinition,
  ProgressiveText,
  QueuedTask
} from '../model/types.js'

/** Folder levels listJobs walks in its one request. */
const LIST_DEPTH = 10

/** Newest builds Jenkins estimates the next build's length from (Job.getEstimatedDurationCandidates). */
const ESTIMATE_BUILDS = 6
/** Finished builds kept as the job's history (the summary's "is this failure new?" line). */
const HISTORY_BUILDS = 10
/** Builds asked for: the history's ten, and room for a few still running before them. */
const JOB_BUILDS = 16

/**
 * Only what getJob needs (jenkins-api.md 5.5: `tree` ignores visibility and
 * keeps answers small). The six newest builds and the last successful one
 * are what Jenkins estimates the next build's length from
 * (Job.getEstimatedDurationCandidates): the follower aims its polls with
 * them, at no extra request. The last successful build matters on a busy
 * job, whose six newest builds may all still be running. The same list,
 * a few builds longer (Stapler's range `{0,16}`, in Jenkins since long
 * before 2.150.1), gives the job's last finished builds at no extra request.
 * @internal
 */
export const JOB_TREE = `_class,name,buildable,disabled,nextBuildNumber,property[parameterDefinitions[name,type,defaultParameterValue[value],choices]],jobs[name],builds[number,result,duration,building]{0,${JOB_BUILDS}},lastSuccessfulBuild[number,result,duration,building]`

/**
 * The lists of a build whose elements are plugins' data: an action each
 * (every plugin adds its own), a change set per SCM. One element nested too
 * deep is left out with a warning and the rest of the build read (json.ts);
 * any other part too deep (`number`, `result`, `artifacts`, any other
 * field) still refuses the whole answer, as no real Jenkins sends it.
 */
export const BUILD_PLUGIN_LISTS = ['actions', 'changeSets'] as const

/**
 * Fields read from `queue/api/json` (tree ignores visibility: jenkins-api.md 5.5).
 * @internal
 */
export const QUEUE_TREE = `items[id,task[url,name],${ACTIONS_FIELDS},inQueueSince,why]`

/** Item classes that hold jobs rather than being one (jenkins-api.md 9). */
const FOLDER_CLASSES = new Set([
  'com.cloudbees.hudson.plugins.folder.Folder',
  'org.jenkinsci.plugins.workflow.multibranch.WorkflowMultiBranchProject',
  'jenkins.branch.OrganizationFolder'
])

/**
 * Multibranch projects: branch-api's MultiBranchProject subclasses
 * (WorkflowMultiBranchProject for Pipelines, others from plugins) all end
 * in MultiBranchProject; an OrganizationFolder holds such projects.
 */
function folderKindOf(className: string | undefined): JobInfo['folderKind'] {
  if (/MultiBranchProject$/.test(className ?? '')) return 'multibranch'
  return className === 'jenkins.branch.OrganizationFolder' ? 'organization' : 'folder'
}

/**
 * `jobs[name,_class,jobs[…]]` nested `depth` levels.
 * @internal
 */
export function listTree(depth: number): string {
  let fields = 'name,_class'
  for (let level = 1; level < depth; level++) fields = `name,_class,jobs[${fields}]`
  return `jobs[${fields}]`
}

/** The 404 of a job, which may exist unseen by anonymous users (`following`: Requester.anonymousHint). */
export function jobNotFound(
  http: Requester,
  name: string,
  hint: { following?: boolean } = {}
): string {
  return `Job '${name}' was not found on Jenkins at ${http.baseUrl} (404)${http.anonymousHint(hint)}`
}

/**
 * A JSON answer that must be an object: anything else (null, a list, a
 * number) is refused, as no real Jenkins sends it.
 */
export async function getObject(
  http: Requester,
  label: string,
  url: string,
  context: ErrorContext,
  options?: { droppable?: readonly string[] }
): Promise<Record<string, unknown>> {
  const data = await http.getJson(label, url, context, options)
  if (!isRecord(data)) throw oddAnswer(http.baseUrl, `${context.what} without an object`)
  return data
}

/** The 404 of a build. */
export function buildNotFound(http: Requester, name: string, number: number): string {
  return `Build #${number} of job '${name}' was not found on Jenkins at ${http.baseUrl} (404)`
}

/** A job's JSON, reduced to what triggering it needs. */
export async function getJob(http: Requester, job: JobPath): Promise<JobInfo> {
  // The crumb is needed before the trigger that usually follows: fetch it
  // alongside the job to save a round trip.
  http.prefetchCrumb()
  const name = fullName(job)
  const data = await getObject(
    http,
    'job',
    `${jobUrl(http.baseUrl, job)}api/json?tree=${encodeURIComponent(JOB_TREE)}`,
    http.context(`job '${name}'`, { notFound: jobNotFound(http, name) })
  )
  const info: JobInfo = {
    name: text(data.name) ?? job[job.length - 1] ?? '',
    // Jenkins' own `url` comes from its configured root URL, which may be
    // another host (jenkins-api.md 9): always our base.
    url: jobUrl(http.baseUrl, job),
    parameterDefinitions: parameterDefinitions(data.property),
    isFolder: isFolder(data)
  }
  if (typeof data._class === 'string') info._class = data._class
  if (info.isFolder) info.folderKind = folderKindOf(info._class)
  if (typeof data.buildable === 'boolean') info.buildable = data.buildable
  if (typeof data.disabled === 'boolean') info.disabled = data.disabled
  if (isBuildNumber(data.nextBuildNumber)) info.nextBuildNumber = data.nextBuildNumber
  // The well-formed entries; anything else is skipped (it only aims polls).
  const builds = list(data.builds).flatMap(entry => buildSummaryOf(entry) ?? [])
  // A folder has no `builds`: no history, rather than an empty one.
  if (Array.isArray(data.builds)) {
    info.history = builds.filter(b => !b.building && b.result !== null).slice(0, HISTORY_BUILDS)
  }
  const recent = builds.slice(0, ESTIMATE_BUILDS)
  // Older than the six newest when it is not among them: expectationFrom
  // then finds it as Jenkins does, as the last successful build.
  const lastSuccessful = buildSummaryOf(data.lastSuccessfulBuild)
  if (lastSuccessful && !recent.some(b => b.number === lastSuccessful.number)) {
    recent.push(lastSuccessful)
  }
  if (recent.length > 0) info.recent = recent
  return info
}

/** Full names of every job below `folder` (root when empty), in one request. */
export async function listJobs(http: Requester, folder: JobPath): Promise<string[]> {
  const where = folder.length > 0 ? `folder '${fullName(folder)}'` : 'the root'
  const base = folder.length > 0 ? jobUrl(http.baseUrl, folder) : `${http.baseUrl}/`
  const data = await getObject(
    http,
    'jobs',
    `${base}api/json?tree=${encodeURIComponent(listTree(LIST_DEPTH))}`,
    http.context(`the job list of ${where}`, {
      notFound: `Folder '${fullName(folder)}' was not found on Jenkins at ${http.baseUrl} (404)${http.anonymousHint()}`
    })
  )
  if (!Array.isArray(data.jobs)) {
    throw new JenkinsError(
      'bad-request',
      `'${fullName(folder)}' on Jenkins at ${http.baseUrl} is a job, not a folder: there are no jobs to list below it`
    )
  }
  return collectJobs(http, data.jobs, folder.length > 0 ? `${fullName(folder)}/` : '')
}

/**
 * A queue item's JSON (Queue.Item; a LeftItem adds `executable` and
 * `cancelled`: jenkins-api.md 4), decoded: a field of a type Jenkins never
 * sends is refused, as no real Jenkins sends it.
 */
export async function getQueueItem(http: Requester, queueId: number): Promise<QueueItem> {
  const raw = await http.getJson(
    'queue',
    `${queueItemUrl(http.baseUrl, queueId)}api/json`,
    http.context(`queue item ${queueId}`, {
      notFound: `Queue item ${queueId} is not known to Jenkins at ${http.baseUrl} (404): it left the queue more than 5 minutes ago, or Jenkins restarted${http.anonymousHint({ following: true })}`,
      following: true
    })
  )
  return queueItemOf(http, queueId, raw)
}

/** getQueueItem's decode: a field of a type Jenkins never sends is refused. */
function queueItemOf(http: Requester, queueId: number, raw: unknown) {
  const refused = (what: string) => oddAnswer(http.baseUrl, `queue item ${queueId} ${what}`)
  if (!isRecord(raw) || typeof raw.id !== 'number') throw refused('without an id')
  const field = <T>(name: string, expected: string, is: (value: unknown) => value is T) => {
    const value = raw[name]
    if (value === undefined || is(value)) return value
    throw refused(`with ${name} ${shownValue(value)}: expected ${expected}`)
  }
  const why = field('why', 'a text or null', v => typeof v === 'string' || v === null)
  const task = field('task', 'an object or null', v => v === null || isRecord(v))
  const executable = field('executable', 'an object or null', v => v === null || isRecord(v))
  const number = executable?.number
  // A number that addresses no build would reach URLs and outputs.
  if (number !== undefined && !isBuildNumber(number)) {
    throw refused(
      `with a build whose number is ${shownValue(number)}: expected a whole number from 1 to ${Number.MAX_SAFE_INTEGER}`
    )
  }
  // Jenkins' own URL of the run, kept only when it sent one: requests go to
  // the `url` input's host and build their URLs from it (jenkins-api.md 9).
  const url = text(executable?.url)
  return {
    id: raw.id,
    _class: field('_class', 'a class name', v => typeof v === 'string'),
    cancelled: field('cancelled', 'true or false', v => typeof v === 'boolean'),
    /** Why it still waits: Jenkins' text, redacted (the step prints it as it waits: a `why` that echoes the request's cookie or crumb must not); null once it left. */
    why: typeof why === 'string' ? http.redact(why) : why,
    /** CauseAction (one cause per request folded into the item: shared-work.ts), ParametersAction, … */
    actions: field('actions', 'a list', (v): v is unknown[] => Array.isArray(v)),
    /** The job it builds; `url` absolute, from Jenkins' root URL (jenkins-api.md 4), absent when it sent none. */
    task: task && (typeof task.url === 'string' ? { url: task.url } : {}),
    /** Epoch ms on Jenkins' clock, a count; absent when Jenkins sent none or no count. */
    inQueueSince: isCount(raw.inQueueSince) ? raw.inQueueSince : undefined,
    /**
     * A LeftItem's run once created: its number a build number; null while
     * it is being created, or when it never was (or an executable that
     * names none). `url` is Jenkins' own (maybe another host), absent when
     * it sent none: never a request target (use JenkinsClient.buildUrl).
     */
    ...(executable !== undefined && {
      executable: number === undefined ? null : { number, ...(url !== undefined && { url }) }
    })
  }
}

/** A queue item (GET queue/item/N/api/json), decoded by getQueueItem; a caller that knows only some of it gives those. */
export type QueueItem = Partial<ReturnType<typeof queueItemOf>> & { id: number }

/**
 * The root URL Jenkins is configured with (`url` of `/api/json`,
 * Jenkins.getRootUrl: what it writes in every item and build `url`), or
 * null when none is configured (it then writes the request's host).
 */
export async function rootUrl(http: Requester): Promise<string | null> {
  const data = await getObject(
    http,
    'root',
    `${http.baseUrl}/api/json?tree=url`,
    http.context('the root of Jenkins')
  )
  return text(data.url) || null
}

/** A build's JSON, by number or permalink. */
export async function getBuild(
  http: Requester,
  job: JobPath,
  which: number | 'lastBuild' | 'lastSuccessfulBuild',
  options: { tree?: string; passwords?: PasswordNames } = {}
): Promise<Build> {
  const name = fullName(job)
  const search = options.tree === undefined ? '' : `?tree=${encodeURIComponent(options.tree)}`
  const url = `${jobUrl(http.baseUrl, job)}${which}/api/json${search}`
  const notFound =
    which === 'lastBuild'
      ? `Job '${name}' has no builds yet on Jenkins at ${http.baseUrl} (no last build; or the job does not exist)`
      : which === 'lastSuccessfulBuild'
        ? `Job '${name}' has no last successful build on Jenkins at ${http.baseUrl} (or the job does not exist)`
        : buildNotFound(http, name, which)
  const build = await http.getJson(
    'build',
    url,
    http.context(
      typeof which === 'number' ? `build #${which} of '${name}'` : `the ${which} of '${name}'`,
      { notFound, following: true }
    ),
    { droppable: BUILD_PLUGIN_LISTS }
  )
  if (!isRecord(build) || typeof build.number !== 'number') {
    throw oddAnswer(http.baseUrl, `a build of '${name}' without a number`)
  }
  if (!isBuildNumber(build.number)) {
    throw oddAnswer(
      http.baseUrl,
      `a build of '${name}' with the number ${shownValue(build.number)}: expected a whole number from 1 to ${Number.MAX_SAFE_INTEGER}`
    )
  }
  const result = build.result
  // Only hudson.model.Result's five names exist (jenkins-api.md 5.2); anything
  // else is a broken or hostile server, and would reach outputs and messages.
  if (result !== undefined && result !== null && !isBuildResult(result)) {
    throw oddAnswer(
      http.baseUrl,
      `build #${build.number} of '${name}' with an unexpected result ${shownValue(result, 60)}: expected one of ${BUILD_RESULTS.join(', ')}, or null while it runs`
    )
  }
  // cast: its number and result are checked above.
  return decodeBuild(build as CheckedBuildJson, { passwords: options.passwords })
}

/** Every item waiting in the queue, with its task's item names, causes and parameters. */
export async function getQueue(http: Requester): Promise<QueuedTask[]> {
  const data = await getObject(
    http,
    'queue',
    `${http.baseUrl}/queue/api/json?tree=${encodeURIComponent(QUEUE_TREE)}`,
    http.context('the queue')
  )
  const items: QueuedTask[] = []
  for (const item of list(data.items).map(fields)) {
    const url = fields(item.task).url
    if (!isCount(item.id) || typeof url !== 'string') continue
    const names = jobNamesFromUrl(url)
    if (!names) continue
    items.push({
      id: item.id,
      job: names,
      ...actionsOf(item.actions),
      ...(typeof item.why === 'string' ? { why: http.redact(item.why) } : {})
    })
  }
  return items
}

/**
 * The job's most recent builds, newest first, with their queue ids (with
 * `actions`, causes and parameters; with `outcome`, result, duration and
 * whether they still run).
 */
export async function recentBuilds(
  http: Requester,
  job: JobPath,
  limit: number,
  options: { actions?: boolean; outcome?: boolean } = {}
): Promise<RecentBuild[]> {
  const name = fullName(job)
  let wanted = options.actions ? `number,queueId,${ACTIONS_FIELDS}` : 'number,queueId'
  if (options.outcome) wanted += ',result,duration,building'
  const tree = `builds[${wanted}]{0,${Math.max(1, Math.floor(limit))}}`
  const data = await getObject(
    http,
    'builds',
    `${jobUrl(http.baseUrl, job)}api/json?tree=${encodeURIComponent(tree)}`,
    http.context(`the builds of job '${name}'`, {
      notFound: jobNotFound(http, name, { following: true }),
      following: true
    })
  )
  return buildsOf(data.builds, options)
}

/** GET logText/progressiveText?start=N, its body streamed. */
export async function progressiveText(
  http: Requester,
  build: BuildRef,
  start: number
): Promise<ProgressiveText> {
  const name = fullName(build.job)
  const url = `${buildUrl(http.baseUrl, build.job, build.number)}logText/progressiveText?start=${start}`
  const context = http.context(`the console of build #${build.number} of '${name}'`, {
    notFound: buildNotFound(http, name, build.number),
    following: true
  })
  return http.read('log', url, context, response => {
    if (response.contentType.includes('text/html')) {
      // A login page now and then is an SSO proxy's blip; every time, it is the answer.
      throw htmlGlitch(context, response.status)
    }
    const offsets = logOffsets(http, response, context)
    // Streamed, not buffered: a console can be hundreds of MB. The stream
    // is still bounded (limits.ts: stall guard, deadline, cancel).
    return { body: response.stream(), ...offsets }
  })
}

/**
 * X-Text-Size and X-More-Data of a progressiveText answer (LargeText): the
 * offset to ask for next, and whether more is coming; X-More-Data is absent
 * (never "false") once the log is complete (jenkins-api.md 6.1).
 */
export function logOffsets(
  http: Requester,
  response: HttpResponse,
  context: ErrorContext
): { textSize: number; moreData: boolean } {
  const textSize = countOf(response.header('x-text-size'))
  if (textSize === undefined) {
    response.discard()
    throw oddAnswer(http.baseUrl, `${context.what} without a usable X-Text-Size header`)
  }
  return { textSize, moreData: response.header('x-more-data') === 'true' }
}

// ---------------------------------------------------------------------------

/**
 * Full names of the jobs in a `jobs` tree, in Jenkins' order, folders
 * walked in place, no deeper than LIST_DEPTH levels: the answer is
 * Jenkins', and a hostile one can nest far deeper than the tree asked for
 * (an unbounded recursive walk overflowed the stack).
 */
function collectJobs(http: Requester, items: unknown[], prefix: string): string[] {
  const names: string[] = []
  let skipped = false
  const walk = (level: unknown[], prefix: string, depth: number): void => {
    for (const item of level.map(fields)) {
      if (typeof item.name !== 'string') continue
      const path = `${prefix}${item.name}`
      if (Array.isArray(item.jobs)) {
        if (depth < LIST_DEPTH) walk(item.jobs, `${path}/`, depth + 1)
        else skipped = true
      } else if (isFolder(item)) {
        http.logger.debug(
          `Not listing the jobs of '${path}': deeper than ${LIST_DEPTH} folder levels`
        )
      } else {
        names.push(path)
      }
    }
  }
  walk(items, prefix, 1)
  if (skipped) {
    http.logger.debug(
      `Jenkins answered with folders nested deeper than the ${LIST_DEPTH} levels asked for; not listed`
    )
  }
  return names
}

function isFolder(item: Record<string, unknown>): boolean {
  return (
    (typeof item._class === 'string' && FOLDER_CLASSES.has(item._class)) || Array.isArray(item.jobs)
  )
}

function parameterDefinitions(property: unknown): ParameterDefinition[] {
  return (entriesOf(property, 'parameterDefinitions') ?? []).flatMap(def => {
    if (!isRecord(def) || typeof def.name !== 'string') return []
    const definition: ParameterDefinition = { name: def.name }
    if (typeof def.type === 'string') definition.type = def.type
    if (/Password/i.test(definition.type ?? '')) definition.password = true
    else if (isRecord(def.defaultParameterValue) && 'value' in def.defaultParameterValue) {
      definition.defaultValue = def.defaultParameterValue.value
    }
    if (Array.isArray(def.choices)) definition.choices = texts(def.choices)
    return [definition]
  })
}
