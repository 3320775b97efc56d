/**
 * Reconciliation of a trigger whose answer was lost (a reset, a timeout, a
 * proxy's 500/502/504): rather than send it again blindly, look for what
 * Jenkins did (a queue item of the job with exactly our parameters, or a
 * build from `nextBuildNumber` on with our parameters and user) and adopt it;
 * nothing found after a settle period: send it again. How parameters are
 * compared, and the risks that remain:
 * docs/internals.md, "A trigger whose answer was lost".
 */
import type { Logger } from '../../util/logger.js'
import { sameJob } from '../model/job-path.js'
import { ACTIONS_FIELDS } from '../reads/decode.js'
import type {
  BuildParameters,
  ExportedParameter,
  FoundTrigger,
  ParameterDefinition,
  QueuedTask,
  RecentBuild
} from '../model/types.js'
import type { LostTrigger } from '../transport/errors.js'
import { sameUser, type ExportedCauses } from './shared-work.js'

/** Fields read from the job for recent builds; newest first, as Jenkins lists them. */
export const RECENT_BUILDS_TREE = `builds[number,queueId,${ACTIONS_FIELDS}]{0,20}`

/** A build since the trigger, with its causes (shared-work.ts: whose request it is) and parameters. */
export type BuildCandidate = RecentBuild & Pick<QueuedTask, 'parameters'>

/** What the reconciliation needs to read from Jenkins. */
export interface ReconcileReader {
  queue(): Promise<Array<Omit<QueuedTask, 'causes'> & ExportedCauses>>
  builds(): Promise<BuildCandidate[]>
}

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

export function causedBy(candidate: BuildCandidate, user: string | undefined): boolean {
  if (user === undefined || candidate.userIds === undefined || candidate.userIds.length === 0) {
    return true
  }
  return candidate.userIds.some(id => sameUser(id, user))
}

/**
 * One look: a queued item first (the usual case), then builds started since the trigger.
 * @internal
 */
export async function findTriggered(
  reader: ReconcileReader,
  expectation: LostTrigger
): Promise<Adopted | undefined> {
  const queued = (await reader.queue()).filter(
    item =>
      sameJob(item.job, expectation.job) && sameParameters(expectation.parameters, item.parameters)
  )
  // The oldest: a merged request would have joined it.
  queued.sort((a, b) => a.id - b.id)
  const item = queued[0]
  if (item) return { queueId: item.id, from: 'queue' }
  const floor = expectation.firstBuildNumber
  if (floor === undefined) return undefined
  const builds = (await reader.builds()).filter(
    build =>
      build.number >= floor &&
      build.queueId !== undefined &&
      sameParameters(expectation.parameters, build.parameters) &&
      causedBy(build, expectation.user)
  )
  builds.sort((a, b) => a.number - b.number)
  const build = builds[0]
  if (build?.queueId === undefined) return undefined
  return { queueId: build.queueId, from: 'build', buildNumber: build.number }
}

/**
 * Looks, waits `settleMs`, looks again. Returns what was found, or undefined
 * when Jenkins shows nothing after the settle period (the request did not act).
 */
export async function reconcile(
  reader: ReconcileReader,
  expectation: LostTrigger,
  options: { settleMs: number; sleep: (ms: number) => Promise<void>; logger: Logger }
): Promise<Adopted | undefined> {
  const first = await findTriggered(reader, expectation)
  if (first) return first
  options.logger.debug(
    `No queued item or new build with these parameters yet; looking again in ${options.settleMs} ms`
  )
  await options.sleep(options.settleMs)
  return findTriggered(reader, expectation)
}
