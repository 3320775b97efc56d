/**
 * Every build running on Jenkins, in one request: `computer/api/json` with a
 * `tree` over each computer's executors and one-off executors.
 *
 * It lists exactly the builds this user may read, and a build the queue
 * said started that is missing from it has ended with its log complete;
 * the answer grows with the executors, not the builds followed. Why, from
 * Jenkins' source: docs/performance.md, "Every running build in one request".
 */
import { jobKey } from '../model/job-path.js'
import { fields, isCount, isEstimate, list, text } from '../model/counts.js'
import { buildOfUrl } from './decode.js'
import type { Requester } from '../transport/requester.js'

const EXECUTABLE = 'currentExecutable[url,number,queueId,timestamp,estimatedDuration]'
/**
 * What the list asks for: each executor's and one-off executor's build, and only that.
 * @internal
 */
export const EXECUTORS_TREE = `computer[executors[${EXECUTABLE}],oneOffExecutors[${EXECUTABLE}]]`

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
  const data = await http.getJson(
    'computer',
    `${http.baseUrl}/computer/api/json?tree=${encodeURIComponent(EXECUTORS_TREE)}`,
    http.context('the running builds (computer/api/json)'),
    { deadline: options.deadline ?? http.deadline }
  )
  const builds = new Map<string, RunningBuild>()
  for (const computer of list(fields(data).computer)) {
    const c = fields(computer)
    for (const executor of [...list(c.executors), ...list(c.oneOffExecutors)]) {
      const build = runningOf(fields(executor).currentExecutable)
      if (!build) continue
      const key = runningKey(build.job, build.number)
      // Each entry holds only the fields it has: the first one's win.
      builds.set(key, { ...build, ...builds.get(key) })
    }
  }
  return [...builds.values()]
}

/** An executor's build, from its `currentExecutable`; undefined when its URL names no build. */
function runningOf(executable: unknown) {
  const raw = fields(executable)
  const build = buildOfUrl(text(raw.url) ?? '')
  return (
    build && {
      ...build,
      // The queue item it came from (a Pipeline's `node` block alone does not say).
      ...(isCount(raw.queueId) && { queueId: raw.queueId }),
      ...(isCount(raw.timestamp) && raw.timestamp > 0 && { timestamp: raw.timestamp }),
      // Jenkins' estimate of its duration (ms; -1 when unknown).
      ...(isEstimate(raw.estimatedDuration) && { estimatedDuration: raw.estimatedDuration })
    }
  )
}

/** A build on one of Jenkins' executors (computer/api/json), as the list shows it. */
export type RunningBuild = NonNullable<ReturnType<typeof runningOf>>

/** The key a build is matched by: its jobKey and number. */
export function runningKey(job: readonly string[], number: number): string {
  return `${jobKey(job)}#${number}`
}
