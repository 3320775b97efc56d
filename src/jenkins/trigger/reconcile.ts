/**
 * Reconciliation of a trigger whose answer was lost (a reset, a timeout, a
 * proxy's 500/502/504): rather than send it again blindly, look for what
 * Jenkins did (a queue item of the job with exactly our parameters, or a
 * build from `nextBuildNumber` on with our parameters and user) and adopt it;
 * nothing found after a settle period: send it again. How parameters are
 * compared, and the risks that remain:
 * docs/internals.md, "A trigger whose answer was lost".
 */
import { fullName, jobUrl, sameJob } from '../model/job-path.js'
import { ACTIONS_FIELDS, buildsOf, type RecentBuild } from '../reads/decode.js'
import { getObject, getQueue } from '../reads/reads.js'
import type { Requester } from '../transport/requester.js'
import type {
  BuildParameters,
  ExportedParameter,
  FoundTrigger,
  JobPath,
  ParameterDefinition,
  QueuedTask
} from '../model/types.js'
import type { LostTrigger } from '../transport/errors.js'
import { sameUser, type ExportedCauses } from './shared-work.js'

/** Fields read from the job for recent builds; newest first, as Jenkins lists them. */
const RECENT_BUILDS_TREE = `builds[number,queueId,${ACTIONS_FIELDS}]{0,20}`

/** What was found, and where. */
export type Adopted = FoundTrigger & { from: 'queue' | 'build' }

/** Settle periods: how long Jenkins may still be acting after the answer was lost. */
export const SETTLE_MS = 1500
/** A gateway timeout or our own request timeout: the upstream is probably still busy. */
export const SLOW_SETTLE_MS = 4000

/**
 * Every defined parameter with the value Jenkins will store: ours, else the
 * default, as text (booleans 'true'/'false'; a multi-value parameter's values
 * joined with ','). `undefined` means "cannot know" and matches anything.
 */
export function expectedParameters(
  definitions: readonly ParameterDefinition[],
  params: BuildParameters
): Map<string, string | undefined> {
  const expected = new Map<string, string | undefined>()
  for (const definition of definitions) {
    const given = Object.prototype.hasOwnProperty.call(params, definition.name)
      ? params[definition.name]
      : undefined
    const isBoolean = /Boolean/i.test(definition.type ?? '')
    const isPassword = definition.password === true
    let value: string | undefined
    if (given !== undefined) {
      value = typeof given === 'string' ? given : given.join(',')
      // Boolean.parseBoolean: anything but "true" (any case) is false (3.2).
      if (isBoolean) value = String(value.toLowerCase() === 'true')
    } else if (definition.defaultValue !== undefined && definition.defaultValue !== null) {
      value = textOf(definition.defaultValue)
    } else if (/Choice/i.test(definition.type ?? '') && definition.choices?.length) {
      value = definition.choices[0]
    }
    // Jenkins never exports a password value, so there is nothing to compare.
    expected.set(definition.name, isPassword ? undefined : value)
  }
  return expected
}

function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return undefined
}

/** True when `actual` holds exactly the expected names, with equal values where both are known. */
export function sameParameters(
  expected: ReadonlyMap<string, string | undefined>,
  actual: readonly ExportedParameter[]
): boolean {
  if (actual.length !== expected.size) return false
  const seen = new Set<string>()
  for (const parameter of actual) {
    if (!expected.has(parameter.name) || seen.has(parameter.name)) return false
    seen.add(parameter.name)
    const want = expected.get(parameter.name)
    const got = textOf(parameter.value)
    if (want !== undefined && got !== undefined && want !== got) return false
  }
  return true
}

/**
 * Whether `candidate` may be the lost trigger's build: its causes name `user`,
 * or nothing tells who started it.
 * @internal
 */
export function causedBy(candidate: ExportedCauses, user: string | undefined): boolean {
  if (user === undefined || candidate.userIds === undefined || candidate.userIds.length === 0) {
    return true
  }
  return candidate.userIds.some(id => sameUser(id, user))
}

/** The job's recent builds, newest first, with their causes and parameters (shared-work.ts: whose request each is). */
export async function jobBuilds(http: Requester, job: JobPath): Promise<RecentBuild[]> {
  const data = await getObject(
    http,
    'builds',
    `${jobUrl(http.baseUrl, job)}api/json?tree=${encodeURIComponent(RECENT_BUILDS_TREE)}`,
    http.context(`the builds of job '${fullName(job)}'`)
  )
  return buildsOf(data.builds, { actions: true })
}

/**
 * One look at Jenkins for what `lost` may have queued, by the values it
 * would carry: the job's queue items with them, and its builds with them from
 * `firstBuildNumber` on (none without one) by its user. The queue and the
 * builds are each read once, and only when asked for.
 */
export function lookIn(http: Requester, lost: Omit<LostTrigger, 'parameters'>) {
  let queue: Promise<QueuedTask[]> | undefined
  let builds: Promise<RecentBuild[]> | undefined
  const floor = lost.firstBuildNumber
  return {
    queued: async (parameters: LostTrigger['parameters']) =>
      (await (queue ??= getQueue(http))).filter(
        item => sameJob(item.job, lost.job) && sameParameters(parameters, item.parameters)
      ),
    built: async (parameters: LostTrigger['parameters']) =>
      floor === undefined
        ? []
        : (await (builds ??= jobBuilds(http, lost.job))).filter(
            build =>
              build.number >= floor &&
              causedBy(build, lost.user) &&
              sameParameters(parameters, build.parameters ?? [])
          )
  }
}

/**
 * One look: a queued item first (the usual case), then builds started since the trigger.
 * @internal
 */
export async function findTriggered(
  http: Requester,
  expectation: LostTrigger
): Promise<Adopted | undefined> {
  const look = lookIn(http, expectation)
  // The oldest: a merged request would have joined it.
  const [item] = (await look.queued(expectation.parameters)).sort((a, b) => a.id - b.id)
  if (item) return { queueId: item.id, from: 'queue' }
  const [build] = (await look.built(expectation.parameters))
    .filter(b => b.queueId !== undefined)
    .sort((a, b) => a.number - b.number)
  if (build?.queueId === undefined) return undefined
  return { queueId: build.queueId, from: 'build', buildNumber: build.number }
}

/**
 * Looks, waits `settleMs`, looks again. Returns what was found, or undefined
 * when Jenkins shows nothing after the settle period (the request did not act).
 */
export async function reconcile(
  http: Requester,
  expectation: LostTrigger,
  settleMs: number
): Promise<Adopted | undefined> {
  const first = await findTriggered(http, expectation)
  if (first) return first
  http.logger.debug(
    `No queued item or new build with these parameters yet; looking again in ${settleMs} ms`
  )
  await http.pause(settleMs, 'look for the lost trigger again')
  return findTriggered(http, expectation)
}

/** How long the abort path gives a lost trigger to show up before its second look. */
const LOST_SETTLE_MS = 1000

/**
 * Looks for what a lost trigger queued (reads only: never a new POST), with
 * a second look after a short settle when the client's deadline leaves time.
 */
export async function findLostTrigger(
  http: Requester,
  lost: LostTrigger
): Promise<FoundTrigger | undefined> {
  const left = http.deadline === undefined ? Infinity : http.deadline - Date.now()
  return reconcile(http, lost, Math.max(0, Math.min(LOST_SETTLE_MS, left / 4)))
}
