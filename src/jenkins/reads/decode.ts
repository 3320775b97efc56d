/**
 * Pieces of Jenkins JSON that several reads export the same way: an item's
 * names from its URL, the parameters and causes of an `actions` array, and
 * a job's `builds` list. Decoded here, once, for the reads and the
 * trigger's reconciliation alike: what leaves this file is true to its type.
 */
import { fields, isBuildNumber, isCount, isEstimate, list, text } from '../model/counts.js'
import { BUILD_RESULTS, type BuildResult } from '../../util/constants.js'
import type {
  Build,
  BuildSummary,
  ExportedParameter,
  JsonValue,
  QueuedTask
} from '../model/types.js'

/** One of hudson.model.Result's five names (jenkins-api.md 5.2). */
export function isBuildResult(value: unknown): value is BuildResult {
  return BUILD_RESULTS.some(result => result === value)
}

/**
 * A job's `builds` list (`job/…/api/json?tree=builds[…]`), newest first; an
 * entry without a usable number is skipped. What it was asked for: with
 * `actions`, causes and parameters; with `outcome`, result, duration, building.
 */
export function buildsOf(raw: unknown, asked: { actions?: boolean; outcome?: boolean } = {}) {
  return list(raw)
    .map(fields)
    .flatMap(build => {
      if (!isBuildNumber(build.number)) return []
      return {
        ...(asked.outcome && buildSummaryOf(build)),
        number: build.number,
        ...(isCount(build.queueId) && { queueId: build.queueId }),
        ...(asked.actions && actionsOf(build.actions))
      }
    })
}

/**
 * One of a job's recent builds: with `actions`, its causes, their userIds
 * and its parameters (as a QueuedTask's); with `outcome`, its result (null
 * while it runs), duration (ms) and whether it runs.
 */
export type RecentBuild = ReturnType<typeof buildsOf>[number]

/** A `builds` entry's number and outcome; undefined unless its number and duration are counts (it only aims polls). */
export function buildSummaryOf(raw: unknown): BuildSummary | undefined {
  const b = fields(raw)
  if (!isBuildNumber(b.number) || !isCount(b.duration)) return undefined
  return {
    number: b.number,
    result: isBuildResult(b.result) ? b.result : null,
    duration: b.duration,
    building: b.building === true
  }
}

/** Decoded item names from a job URL (`…/job/a/job/b%20c/` → ['a', 'b c']); undefined if not a job URL. */
export function jobNamesFromUrl(url: string): string[] | undefined {
  const segments = (pathOf(url) ?? '').split('/').filter(s => s !== '')
  // The context path comes first; item names follow each 'job' marker.
  const start = segments.indexOf('job')
  const rest = segments.slice(start)
  if (start < 0 || rest.length % 2 === 1 || rest.some((s, i) => i % 2 === 0 && s !== 'job')) {
    return undefined
  }
  try {
    return rest.filter((_, i) => i % 2 === 1).map(name => decodeURIComponent(name))
  } catch {
    return undefined
  }
}

/** The names of a job's password parameters (ParameterDefinition.password). */
export type PasswordNames = ReadonlySet<string>

/**
 * The parameters a build or queue item carries: those of every action that
 * lists `parameters` (the ParametersAction; a plugin's subclass has its own
 * `_class`), or undefined when no action does. The one reader of
 * ParametersAction: the reconciliation matches by it, the summary shows it.
 *
 * A password's value is taken out of the JSON itself, so that nothing made
 * of it (the `build` output) holds one: Jenkins marks a password by its
 * value's class (PasswordParameterValue exports no value, jenkins-api.md
 * 5.3; plugins' kin share the name) or by the job's definition (`passwords`),
 * and a plugin, an older or a hostile Jenkins may still send a value.
 */
function parametersIn(
  actions: unknown,
  passwords?: PasswordNames
): ExportedParameter[] | undefined {
  return entriesOf(actions, 'parameters')?.flatMap(raw => {
    const p = fields(raw)
    if (typeof p.name !== 'string') return []
    const parameter: ExportedParameter = { name: p.name }
    if (/Password/i.test(String(p._class ?? '')) || passwords?.has(p.name)) {
      delete p.value
      parameter.password = true
    } else if ('value' in p) {
      parameter.value = p.value
    }
    if (/FileParameterValue$/.test(String(p._class ?? ''))) parameter.file = true
    return [parameter]
  })
}

/** The fields of an `actions` list that actionsOf reads (a `tree`'s part). */
export const ACTIONS_FIELDS = 'actions[causes[_class,userId],parameters[name,value]]'

/**
 * What an exported `actions` array says of whose request it is and what it
 * carries: `_class` of every cause (the CauseAction's list), the userId of
 * each that has one (absent when none does), and the ParametersAction's
 * parameters ([] when none).
 */
export function actionsOf(actions: unknown): Pick<QueuedTask, 'causes' | 'userIds' | 'parameters'> {
  const causes: string[] = []
  const userIds: Array<string | null> = []
  for (const raw of entriesOf(actions, 'causes') ?? []) {
    const { _class, userId: id } = fields(raw)
    if (typeof _class === 'string') causes.push(_class)
    if (typeof id === 'string' || id === null) userIds.push(id)
  }
  return {
    causes,
    ...(userIds.length > 0 ? { userIds } : {}),
    parameters: parametersIn(actions) ?? []
  }
}

/**
 * The entries of the `field` list of every element of `within`, in order (the
 * `causes` of each of a build's `actions`, the `parameterDefinitions` of each
 * of a job's `property`); undefined when no element has one.
 */
export function entriesOf(within: unknown, field: string): unknown[] | undefined {
  const lists = list(within)
    .map(element => fields(element)[field])
    .filter(Array.isArray)
  return lists.length > 0 ? lists.flat() : undefined
}

/**
 * A build's item names and number from its absolute URL (Jenkins' root URL,
 * which may be another host: only the path counts). The context path comes
 * first; names follow each `job` marker; the number ends it.
 */
export function buildOfUrl(url: string): { job: string[]; number: number } | undefined {
  const [, folder, digits] = /^(.*\/)(\d+)\/?$/.exec(pathOf(url) ?? '') ?? []
  const number = Number(digits)
  const job = folder === undefined ? undefined : jobNamesFromUrl(folder)
  if (!job || job.length === 0 || !isBuildNumber(number)) return undefined
  return { job, number }
}

/** The path of an absolute or relative URL; undefined when it is none. */
function pathOf(url: string): string | undefined {
  return URL.parse(url, 'http://placeholder/')?.pathname
}

/** A build's JSON whose number and result the read checked (reads.ts getBuild, whose errors name the job). */
export type CheckedBuildJson = Record<string, unknown> & {
  number: number
  result: BuildResult | null
}

/**
 * A build's JSON, whole or with a `tree`, into a Build, once, where it is
 * read. Counts that are not counts (1e+21 from a broken or hostile server)
 * are left out rather than passed on; Run.getDescription is `@Exported`
 * and null when none; Run.getDisplayName is `#N` unless the build set one;
 * ParametersAction is decoded by parametersIn, `passwords` naming the job's
 * password parameters. The JSON is kept as it came, but for the values of
 * passwords, in `json`, for the `build` output only.
 */
export function decodeBuild(
  json: CheckedBuildJson,
  options: { passwords?: PasswordNames } = {}
): Build {
  const build: Build = {
    number: json.number,
    building: json.building === true,
    result: json.result,
    description: text(json.description) ?? '',
    displayName: text(json.displayName) ?? `#${json.number}`,
    json
  }
  if (typeof json._class === 'string') build._class = json._class
  if (typeof json.url === 'string') build.url = json.url
  if (isCount(json.duration)) build.duration = json.duration
  // -1: Jenkins has no estimate (Job.getEstimatedDuration).
  if (isEstimate(json.estimatedDuration)) build.estimatedDuration = json.estimatedDuration
  if (isCount(json.timestamp)) build.timestamp = json.timestamp
  if (isCount(json.queueId)) build.queueId = json.queueId
  if (Array.isArray(json.actions)) build.actions = json.actions
  const parameters = parametersIn(json.actions, options.passwords)
  if (parameters) build.parameters = parameters
  return build
}

/**
 * The `build-parameters` output: a ParametersAction's values by name with
 * their JSON type. ParametersAction exports each ParameterValue's `value`
 * for the types that export it (StringParameterValue,
 * BooleanParameterValue…): FileParameterValue exports none (its file is
 * served apart), shown as null; PasswordParameterValue none either (a
 * Secret), left out. A prototype-less object: a parameter named
 * `__proto__` is a key like any other.
 */
export function parameterValues(
  parameters: readonly ExportedParameter[] | undefined
): Record<string, JsonValue> {
  // cast: Object.create is untyped; the object is filled below.
  const values = Object.create(null) as Record<string, JsonValue>
  for (const p of parameters ?? []) {
    // cast: a parameter's value is a part of Jenkins' answer, as JSON.parse gave it.
    if (p.value !== undefined) values[p.name] = p.value as JsonValue
    else if (p.file) values[p.name] = null
  }
  return values
}
