/**
 * The JSON shapes Jenkins exports for the root, items, builds and queue items
 * (jenkins-api.md 4, 5.2, 5.3, 9). `depth` follows Stapler's visibility rule
 * in short: an object nested at level L is complete when L <= depth, else it
 * shows only its high-visibility fields (name, url, number, color).
 */
import { artifactsJson } from '../model/artifacts.js'
import { Build, isJob, resolvePermalink } from '../model/build.js'
import type { JenkinsModel } from '../model/model.js'
import { defaultValue, isFileType } from '../model/parameters.js'
import { timeSpan } from '../model/time-span.js'
import type { EchoField, HostileField, HostileSpec, Result } from '../types.js'
import type {
  BuildState,
  Cause,
  JobState,
  ParameterValueState,
  QueueItemState
} from '../model/state.js'

export interface JsonContext {
  /** Configured root URL, ending in '/'. */
  rootUrl: string
  model: JenkinsModel
  executors: number
  useCrumbs: boolean
  /** Attacker-chosen text in the fields a client prints (ServerOptions.hostile). */
  hostile?: HostileSpec
  /** Jenkins' clock minus the real one (ServerOptions.clockSkewMs). */
  clockSkewMs: number
  /** With HostileSpec.echoRequest: what this request showed (its cookie, its session's crumb), for a `why`. */
  echo?: string
}

/** A real epoch time as this Jenkins' clock shows it (ServerOptions.clockSkewMs). */
export function jenkinsTime(ctx: Pick<JsonContext, 'clockSkewMs'>, ms: number): number {
  return ms + ctx.clockSkewMs
}

type Json = Record<string, unknown>

/** A text field as a hostile server serves it: its `text` in front (HostileSpec). */
function served(ctx: JsonContext, field: HostileField, value: string): string {
  const hostile = ctx.hostile
  if (!hostile || (hostile.fields && !hostile.fields.includes(field))) return value
  const echo = field === 'why' && ctx.echo ? `why: ${ctx.echo} ` : ''
  return hostile.text + echo + value
}

function causesJson(ctx: JsonContext, causes: Cause[]): Cause[] {
  return causes.map(c => ({
    ...c,
    shortDescription: served(ctx, 'cause', c.shortDescription),
    // Only a UserIdCause has a user name (RemoteCause and BranchIndexingCause do not).
    ...(c.userName === undefined ? {} : { userName: served(ctx, 'cause', c.userName) })
  }))
}

/** Jenkins' Util.rawEncode: keeps alphanumerics and !$&'()*+,-.=@_ (jenkins-api.md 3.8). */
function rawEncode(name: string): string {
  let out = ''
  for (const byte of Buffer.from(name, 'utf8')) {
    const ch = String.fromCharCode(byte)
    out += /[A-Za-z0-9!$&'()*+,\-.=@_]/.test(ch)
      ? ch
      : '%' + byte.toString(16).toUpperCase().padStart(2, '0')
  }
  return out
}

/** `job/a/job/b/` below the root. */
export function itemPath(item: JobState): string {
  const names: string[] = []
  for (let i: JobState | null = item; i && i.parent; i = i.parent) names.unshift(i.name)
  return names.map(n => `job/${rawEncode(n)}/`).join('')
}

function itemUrl(ctx: JsonContext, item: JobState): string {
  return ctx.rootUrl + itemPath(item)
}

export function buildUrl(ctx: JsonContext, build: BuildState): string {
  return `${itemUrl(ctx, build.job)}${build.number}/`
}

const ITEM_CLASS: Record<JobState['type'], string> = {
  freestyle: 'hudson.model.FreeStyleProject',
  pipeline: 'org.jenkinsci.plugins.workflow.job.WorkflowJob',
  folder: 'com.cloudbees.hudson.plugins.folder.Folder',
  multibranch: 'org.jenkinsci.plugins.workflow.multibranch.WorkflowMultiBranchProject'
}

function buildClass(build: BuildState): string {
  return build.job.type === 'pipeline'
    ? 'org.jenkinsci.plugins.workflow.job.WorkflowRun'
    : 'hudson.model.FreeStyleBuild'
}

const RESULT_COLOR: Record<Result, string> = {
  SUCCESS: 'blue',
  UNSTABLE: 'yellow',
  FAILURE: 'red',
  NOT_BUILT: 'notbuilt',
  ABORTED: 'aborted'
}

/** BallColor.toString(): `notbuilt`, not the icon name `nobuilt` (jenkins-api.md 9). */
function color(item: JobState): string {
  const building = item.builds.some(b => b.building)
  if (item.disabled) return building ? 'disabled_anime' : 'disabled'
  const last = item.builds[item.builds.length - 1]
  if (!last) return 'notbuilt'
  if (!last.building) return RESULT_COLOR[last.result ?? 'NOT_BUILT']
  // A running build shows the previous completed build's colour, animated.
  const previous = [...item.builds].reverse().find(b => !b.building)
  return `${previous ? RESULT_COLOR[previous.result ?? 'NOT_BUILT'] : 'notbuilt'}_anime`
}

function fullDisplayName(item: JobState): string {
  const names: string[] = []
  for (let i: JobState | null = item; i && i.parent; i = i.parent) names.unshift(i.displayName)
  return names.join(' » ')
}

function displayNames(ctx: JsonContext, item: JobState): Json {
  return {
    displayName: served(ctx, 'displayName', item.displayName),
    displayNameOrNull:
      item.displayName === item.name ? null : served(ctx, 'displayName', item.displayName),
    fullDisplayName: served(ctx, 'displayName', fullDisplayName(item))
  }
}

function sortedChildren(item: JobState): JobState[] {
  return [...item.children.values()].sort((a, b) => {
    const x = a.name.toLowerCase()
    const y = b.name.toLowerCase()
    return x < y ? -1 : x > y ? 1 : 0
  })
}

// ---- parameters ----

const VALUE_CLASS: Record<ParameterValueState['type'], string> = {
  string: 'hudson.model.StringParameterValue',
  choice: 'hudson.model.StringParameterValue',
  boolean: 'hudson.model.BooleanParameterValue',
  text: 'hudson.model.TextParameterValue',
  password: 'hudson.model.PasswordParameterValue',
  file: 'hudson.model.FileParameterValue',
  base64File: 'io.jenkins.plugins.file_parameters.Base64FileParameterValue',
  stashedFile: 'io.jenkins.plugins.file_parameters.StashedFileParameterValue'
}

const DEFINITION_TYPE: Record<ParameterValueState['type'], string> = {
  string: 'StringParameterDefinition',
  choice: 'ChoiceParameterDefinition',
  boolean: 'BooleanParameterDefinition',
  text: 'TextParameterDefinition',
  password: 'PasswordParameterDefinition',
  file: 'FileParameterDefinition',
  base64File: 'Base64FileParameterDefinition',
  stashedFile: 'StashedFileParameterDefinition'
}

/** The package of a definition's class: the file-parameters plugin's, or core's. */
function definitionPackage(type: ParameterValueState['type']): string {
  return type === 'base64File' || type === 'stashedFile'
    ? 'io.jenkins.plugins.file_parameters'
    : 'hudson.model'
}

/**
 * A parameter value as exported; a password's value is never exported, and a
 * file parameter exports its name only (FileParameterValue and the plugin's
 * AbstractFileParameterValue add no @Exported property to ParameterValue's `name`).
 */
/** A ParameterValue as exported; `passwords` a hostile Jenkins' way with a password's value (HostileSpec.passwordValues). */
function parameterValueJson(
  p: ParameterValueState,
  passwords?: HostileSpec['passwordValues']
): Json {
  if (p.type === 'password' && passwords === 'as-string') {
    return { _class: VALUE_CLASS.string, name: p.name, value: p.value }
  }
  const out: Json = { _class: VALUE_CLASS[p.type], name: p.name }
  if ((p.type !== 'password' || passwords === 'exported') && !isFileType(p.type))
    out.value = p.value
  return out
}

function propertyJson(item: JobState): Json[] {
  if (item.parameters.length === 0) return []
  return [
    {
      _class: 'hudson.model.ParametersDefinitionProperty',
      parameterDefinitions: item.parameters.map(def => {
        const type = def.type ?? 'string'
        const className = def.pluginClass ?? `${definitionPackage(type)}.${DEFINITION_TYPE[type]}`
        const out: Json = {
          _class: className,
          // A file parameter has no default value (null).
          defaultParameterValue: isFileType(type)
            ? null
            : parameterValueJson({ name: def.name, type, value: defaultValue(def) }),
          description: def.description ?? null,
          name: def.name,
          type: className.slice(className.lastIndexOf('.') + 1)
        }
        if (type === 'choice') out.choices = def.choices ?? []
        return out
      })
    }
  ]
}

// ---- items ----

function buildRef(ctx: JsonContext, build: BuildState | undefined, level: number, depth: number) {
  return build ? buildJson(ctx, build, level, depth) : null
}

export function itemJson(ctx: JsonContext, item: JobState, level: number, depth: number): Json {
  const head: Json = { _class: ITEM_CLASS[item.type] }
  if (level > depth) {
    const out: Json = { ...head, name: served(ctx, 'name', item.name), url: itemUrl(ctx, item) }
    if (isJob(item)) out.color = color(item)
    return out
  }
  const common: Json = {
    ...head,
    actions: [],
    description: null,
    ...displayNames(ctx, item),
    fullName: served(ctx, 'name', item.fullName),
    name: served(ctx, 'name', item.name),
    url: itemUrl(ctx, item)
  }
  if (!isJob(item)) {
    const folder: Json = {
      ...common,
      healthReport: [],
      jobs: sortedChildren(item).map(child => itemJson(ctx, child, level + 1, depth)),
      primaryView: {
        _class: 'hudson.model.AllView',
        name: 'All',
        url: itemUrl(ctx, item)
      },
      views: [{ _class: 'hudson.model.AllView', name: 'All', url: itemUrl(ctx, item) }]
    }
    if (item.type === 'multibranch') {
      // ComputedFolder exports `buildable`, MultiBranchProject `sources`
      // (BranchSource's own fields sit below depth 0). A FolderComputation
      // exports nothing of its own: there is no `indexing` field, and no
      // indexing/api/json (it has no getApi).
      folder.buildable = ctx.model.isBuildable(item)
      folder.sources = [{ _class: 'jenkins.branch.BranchSource' }]
    }
    return folder
  }
  const newestFirst = [...item.builds].reverse().slice(0, 100)
  const link = (name: Parameters<typeof resolvePermalink>[1]) =>
    buildRef(ctx, resolvePermalink(item, name), level + 1, depth)
  const queued = ctx.model.queue.find(q => q.job === item && q.state !== 'left')
  const out: Json = {
    ...common,
    buildable: ctx.model.isBuildable(item),
    builds: newestFirst.map(b => buildJson(ctx, b, level + 1, depth)),
    color: color(item),
    firstBuild: link('firstBuild'),
    healthReport: [],
    inQueue: queued !== undefined,
    keepDependencies: false,
    lastBuild: link('lastBuild'),
    lastCompletedBuild: link('lastCompletedBuild'),
    lastFailedBuild: link('lastFailedBuild'),
    lastStableBuild: link('lastStableBuild'),
    lastSuccessfulBuild: link('lastSuccessfulBuild'),
    lastUnstableBuild: link('lastUnstableBuild'),
    lastUnsuccessfulBuild: link('lastUnsuccessfulBuild'),
    nextBuildNumber: item.nextBuildNumber,
    property: propertyJson(item),
    queueItem: queued ? queueItemJson(ctx, queued, level + 1, depth) : null,
    concurrentBuild: item.concurrent
  }
  if (item.type === 'pipeline') {
    out.disabled = item.disabled
    out.resumeBlocked = false
  } else {
    out.disabled = item.disabled
    out.downstreamProjects = []
    out.labelExpression = null
    out.scm = { _class: 'hudson.scm.NullSCM' }
    out.upstreamProjects = []
  }
  return out
}

// ---- builds ----

function actionsJson(ctx: JsonContext, build: BuildState): Json[] {
  const actions: Json[] = []
  if (build.parameterValues.length > 0) {
    actions.push({
      _class: 'hudson.model.ParametersAction',
      parameters: build.parameterValues.map(p =>
        parameterValueJson(
          typeof p.value === 'string' && p.type !== 'password'
            ? { ...p, value: echoed(build, 'parameter', p.value) }
            : p,
          ctx.hostile?.passwordValues
        )
      )
    })
  }
  actions.push({ _class: 'hudson.model.CauseAction', causes: causesJson(ctx, build.causes) })
  // Actions that export nothing appear as {} (jenkins-api.md 5.3); clients must skip them.
  actions.push({})
  const report = (build as Build).testReport
  if (report) {
    actions.push({
      _class: 'hudson.tasks.junit.TestResultAction',
      failCount: report.counts.failed,
      skipCount: report.counts.skipped,
      totalCount: report.counts.total,
      urlName: 'testReport'
    })
  }
  // Added by the first input step; its fields are below depth 0 (default visibility).
  if ((build as Build).inputs?.length) {
    actions.push({ _class: 'org.jenkinsci.plugins.workflow.support.steps.input.InputAction' })
  }
  return actions
}

function displayNameOf(build: BuildState): string {
  return echoed(build, 'displayName', build.job.script.displayName ?? `#${build.number}`)
}

/** Run.getDescription: null when none (and nothing is echoed there). */
function echoedDescription(build: BuildState): string | null {
  const description = build.job.script.description
  const echo = echoed(build, 'description', '')
  return echo === '' ? (description ?? null) : `${echo}${description ?? ''}`
}

/** A build's text with what it echoes of its trigger in front (HostileSpec.echoTrigger). */
function echoed(build: BuildState, field: EchoField, text: string): string {
  return build instanceof Build ? build.echoed(field, text) : text
}

export function buildJson(ctx: JsonContext, build: BuildState, level: number, depth: number): Json {
  const head: Json = { _class: buildClass(build) }
  if (level > depth) return { ...head, number: build.number, url: buildUrl(ctx, build) }
  const pipeline = build.job.type === 'pipeline'
  let executor: Json | null = null
  // The executor holds the run until Run.execute returns, after the log is closed.
  if (build.logUpdated) {
    executor = { _class: pipeline ? 'hudson.model.OneOffExecutor' : 'hudson.model.Executor' }
    if (level + 1 <= depth) {
      const estimate = ctx.model.estimatedDuration(build.job)
      const elapsed = Date.now() - build.startedAt
      Object.assign(executor, {
        currentExecutable: buildJson(ctx, build, level + 2, depth),
        idle: false,
        likelyStuck: false,
        number: (build as Build).executorNumber ?? 0,
        progress: estimate > 0 ? Math.min(99, Math.floor((elapsed * 100) / estimate)) : -1
      })
    }
  }
  const finishedAt = build.finishedAt
  const out: Json = {
    ...head,
    actions: actionsJson(ctx, build),
    artifacts: artifactsJson((build as Build).artifacts ?? []),
    building: build.building,
    // Run.getDescription (null when none) and Run.getDisplayName (`#N` unless set).
    description: echoedDescription(build),
    displayName: served(ctx, 'displayName', displayNameOf(build)),
    duration:
      build.building || finishedAt === null
        ? 0
        : (build.job.script.claimedDuration ?? finishedAt - build.startedAt),
    estimatedDuration: ctx.model.estimatedDuration(build.job),
    executor,
    fullDisplayName: served(
      ctx,
      'displayName',
      `${fullDisplayName(build.job)} ${displayNameOf(build)}`
    ),
    id: String(build.number),
    inProgress: (build as Build).inProgress,
    keepLog: false,
    number: build.number,
    queueId: build.queueId,
    result: build.result === null ? null : served(ctx, 'result', build.result),
    timestamp: jenkinsTime(ctx, build.startedAt),
    url: buildUrl(ctx, build)
  }
  if (pipeline) {
    const index = build.job.builds.indexOf(build)
    const sibling = (b: BuildState | undefined) =>
      b ? { number: b.number, url: buildUrl(ctx, b) } : null
    out.changeSets = []
    out.culprits = []
    out.nextBuild = sibling(build.job.builds[index + 1])
    out.previousBuild = sibling(index > 0 ? build.job.builds[index - 1] : undefined)
  } else {
    out.builtOn = ''
    out.changeSet = { _class: 'hudson.scm.EmptyChangeLogSet', items: [], kind: null }
    out.culprits = []
  }
  return out
}

// ---- queue ----

const QUEUE_CLASS: Record<QueueItemState['state'], string> = {
  waiting: 'hudson.model.Queue$WaitingItem',
  blocked: 'hudson.model.Queue$BlockedItem',
  buildable: 'hudson.model.Queue$BuildableItem',
  left: 'hudson.model.Queue$LeftItem'
}

function queueWhy(ctx: JsonContext, item: QueueItemState): string | null {
  const now = Date.now()
  switch (item.state) {
    case 'waiting': {
      const left = item.dueAt - now
      return left > 0 ? `In the quiet period. Expires in ${timeSpan(left)}` : 'Finished waiting'
    }
    case 'blocked': {
      const running = ctx.model.runningBuild(item.job)
      if (!running) return `Blocked by ‘${item.job.fullName}’`
      const estimate = ctx.model.estimatedDuration(item.job)
      const remaining = estimate - (now - running.startedAt)
      const eta = estimate < 0 || remaining <= 0 ? 'N/A' : timeSpan(remaining)
      return `Build #${running.number} is already in progress (ETA: ${eta})`
    }
    case 'buildable':
      return 'Waiting for next available executor'
    case 'left':
      return null
  }
}

function servedWhy(ctx: JsonContext, item: QueueItemState): string | null {
  const why = queueWhy(ctx, item)
  return why === null ? null : served(ctx, 'why', why)
}

export function queueItemJson(
  ctx: JsonContext,
  item: QueueItemState,
  level: number,
  depth: number
): Json {
  const actions: Json[] = []
  if (item.parameters.length > 0) {
    actions.push({
      _class: 'hudson.model.ParametersAction',
      parameters: item.parameters.map(p => parameterValueJson(p))
    })
  }
  actions.push({ _class: 'hudson.model.CauseAction', causes: causesJson(ctx, item.causes) })
  const params = item.parameters
    .map(p => `\n${p.name}=${p.type === 'password' ? '****' : String(p.value)}`)
    .join('')
  const out: Json = {
    _class: QUEUE_CLASS[item.state],
    actions,
    blocked: item.state === 'blocked',
    buildable: item.state === 'buildable',
    id: item.id,
    inQueueSince: jenkinsTime(ctx, item.inQueueSince),
    params,
    stuck: false,
    task: itemJson(ctx, item.job, level + 1, depth),
    url: `queue/item/${item.id}/`,
    why: servedWhy(ctx, item)
  }
  switch (item.state) {
    case 'waiting':
      out.timestamp = jenkinsTime(ctx, item.dueAt)
      break
    case 'blocked':
      out.buildableStartMilliseconds = jenkinsTime(ctx, item.buildableSince ?? item.dueAt)
      break
    case 'buildable':
      out.buildableStartMilliseconds = jenkinsTime(ctx, item.buildableSince ?? item.dueAt)
      out.pending = false
      break
    case 'left':
      out.cancelled = item.cancelled
      out.executable = item.build
        ? {
            _class: buildClass(item.build),
            number: item.build.number,
            url: buildUrl(ctx, item.build)
          }
        : item.indexing
          ? { _class: 'jenkins.branch.MultiBranchProject$BranchIndexing' }
          : null
      break
  }
  return out
}

// ---- root ----

export function rootJson(ctx: JsonContext, depth: number): Json {
  const root = ctx.model.root
  return {
    _class: 'hudson.model.Hudson',
    assignedLabels: [{ name: 'built-in' }],
    mode: 'NORMAL',
    nodeDescription: "the Jenkins controller's built-in node",
    nodeName: '',
    numExecutors: ctx.executors,
    description: null,
    jobs: sortedChildren(root).map(child => itemJson(ctx, child, 1, depth)),
    overallLoad: {},
    primaryView: { _class: 'hudson.model.AllView', name: 'all', url: ctx.rootUrl },
    quietDownReason: null,
    quietingDown: false,
    slaveAgentPort: -1,
    unlabeledLoad: { _class: 'jenkins.model.UnlabeledLoadStatistics' },
    url: ctx.rootUrl,
    useCrumbs: ctx.useCrumbs,
    useSecurity: true,
    views: [{ _class: 'hudson.model.AllView', name: 'all', url: ctx.rootUrl }]
  }
}
