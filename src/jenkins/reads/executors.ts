/**
 * Every build running on Jenkins, in one request: `computer/api/json` with a
 * `tree` over each computer's executors and one-off executors.
 *
 * It lists exactly the builds this user may read, and a build the queue
 * said started that is missing from it has ended with its log complete;
 * the answer grows with the executors, not the builds followed. Why, from
 * Jenkins' source: docs/performance.md, "Every running build in one request".
 */
import { fullName } from '../model/job-path.js'
import { isBuildNumber, isCount } from '../model/counts.js'
import { jobNamesFromUrl } from './decode.js'
import type { Requester } from '../transport/requester.js'
import type { RunningBuild } from '../model/types.js'

const EXECUTABLE = 'currentExecutable[url,number,queueId,timestamp,estimatedDuration]'
/**
 * What the list asks for: each executor's and one-off executor's build, and only that.
 * @internal
 */
export const EXECUTORS_TREE = `computer[executors[${EXECUTABLE}],oneOffExecutors[${EXECUTABLE}]]`

interface RawExecutable {
  url?: unknown
  number?: unknown
  queueId?: unknown
  timestamp?: unknown
  estimatedDuration?: unknown
}

/**
 * The builds on every executor. A build on several (a Pipeline's run and its
 * `node` blocks) is listed once, with what its entries tell together.
 * `deadline` bounds the retries: a poll that keeps failing is better
 * replaced by the next one than retried for a minute.
 */
export async function runningBuilds(
  http: Requester,
  options: { deadline?: number } = {}
): Promise<RunningBuild[]> {
  const data = await http.getJson<{ computer?: unknown }>(
    'computer',
    `${http.baseUrl}/computer/api/json?tree=${encodeURIComponent(EXECUTORS_TREE)}`,
    http.context('the running builds (computer/api/json)'),
    { deadline: options.deadline ?? http.deadline }
  )
  const builds = new Map<string, RunningBuild>()
  for (const computer of Array.isArray(data.computer) ? data.computer : []) {
    const c = computer as { executors?: unknown; oneOffExecutors?: unknown } | null
    for (const executor of [...list(c?.executors), ...list(c?.oneOffExecutors)]) {
      const raw = (executor as { currentExecutable?: RawExecutable | null } | null)
        ?.currentExecutable
      const build = raw ? runningBuild(raw) : undefined
      if (!build) continue
      const key = runningKey(build.job, build.number)
      const known = builds.get(key)
      builds.set(key, known ? { ...build, ...definedOnly(known) } : build)
    }
  }
  return [...builds.values()]
}

/** The key a build is matched by: Jenkins' item names are case-insensitive. */
export function runningKey(job: readonly string[], number: number): string {
  return `${fullName(job).toLowerCase()}#${number}`
}

function runningBuild(raw: RawExecutable): RunningBuild | undefined {
  if (typeof raw.url !== 'string') return undefined
  const parsed = buildOfUrl(raw.url)
  if (!parsed) return undefined
  const build: RunningBuild = { job: parsed.job, number: parsed.number }
  if (isCount(raw.queueId)) build.queueId = raw.queueId
  if (isCount(raw.timestamp) && raw.timestamp > 0) build.timestamp = raw.timestamp
  // -1: Jenkins has no estimate (Job.getEstimatedDuration).
  if (Number.isSafeInteger(raw.estimatedDuration))
    build.estimatedDuration = raw.estimatedDuration as number
  return build
}

/**
 * A build's item names and number from its absolute URL (Jenkins' root URL,
 * which may be another host: only the path counts). The context path comes
 * first; names follow each `job` marker; the number ends it.
 * @internal
 */
export function buildOfUrl(url: string): { job: string[]; number: number } | undefined {
  let path: string
  try {
    path = new URL(url, 'http://placeholder/').pathname
  } catch {
    return undefined
  }
  const match = /^(.*\/)(\d+)\/?$/.exec(path)
  const number = Number(match?.[2])
  const job = match ? jobNamesFromUrl(match[1] as string) : undefined
  if (!job || job.length === 0 || !isBuildNumber(number)) return undefined
  return { job, number }
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>
}
