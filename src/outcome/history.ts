/**
 * The job's recent history, for "is this failure new?": its last finished
 * builds before this one (from the job read the step makes anyway, so it
 * costs no request), shown in the summary as one line of result symbols
 * with links and the median duration (historyLine), and set as
 * the `history` output.
 */
import type { BuildResult } from '../util/constants.js'
import { Interrupted } from '../jenkins/transport/errors.js'
import type { JobPath } from '../jenkins/model/types.js'
import type { RecentBuild } from '../jenkins/reads/decode.js'
import type { JenkinsApi } from '../jenkins/client.js'
import type { Logger } from '../util/logger.js'
import { errorText } from '../util/error-text.js'
import { formatDuration } from '../util/duration.js'
import { escapeHtml, link } from '../util/html.js'

/** One finished build of the job, as the `history` output has it: its duration in ms, its URL on the configured base. */
export type HistoryEntry = ReturnType<typeof historyOf>[number]

/** The finished builds of `builds` (newest first), with their URLs on our base. */
export function historyOf(
  builds: readonly Pick<RecentBuild, 'number' | 'result' | 'duration' | 'building'>[],
  urlOf: (number: number) => string
) {
  return builds.flatMap(({ number, result, duration, building }) =>
    building || !result || duration === undefined
      ? []
      : [{ number, result, duration, url: urlOf(number) }]
  )
}

/** Builds asked for: ten finished ones and a few running ones before them (as the job read). */
const HISTORY_READ = 16
/** Finished builds kept. */
const HISTORY_KEPT = 10

/**
 * For a build this step did not trigger (`build: last`, `last-successful`):
 * the job's last finished builds before it, in one bounded read (a
 * `builds[…]{0,16}` range). Undefined when they cannot be read: a help,
 * said in the debug log only.
 */
export async function readHistory(
  api: Pick<JenkinsApi, 'recentBuilds' | 'buildUrl'>,
  job: JobPath,
  before: number,
  logger: Logger
): Promise<HistoryEntry[] | undefined> {
  const builds = await api.recentBuilds(job, HISTORY_READ, { outcome: true }).catch(error => {
    if (error instanceof Interrupted) throw error
    logger.debug(`Could not read the job's earlier builds: ${errorText(error)}`)
  })
  const earlier = builds?.filter(b => b.number < before)
  return earlier && historyOf(earlier, n => api.buildUrl(job, n)).slice(0, HISTORY_KEPT)
}

/** The symbol shown before a result (summary, history, pull request comment). */
export const RESULT_ICONS: Record<BuildResult, string> = {
  SUCCESS: '✅',
  UNSTABLE: '⚠️',
  FAILURE: '❌',
  ABORTED: '⛔',
  NOT_BUILT: '⚪'
}

/**
 * The median of the durations (ms); undefined for none.
 * @internal
 */
export function medianDuration(entries: readonly HistoryEntry[]): number | undefined {
  const sorted = entries.map(e => e.duration).sort((a, b) => a - b)
  if (sorted.length === 0) return undefined
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1
    ? sorted[middle]
    : Math.round(((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2)
}

/**
 * The history line, oldest build first so that it reads as a timeline up
 * to this build; nothing when the job had no finished build before it.
 */
export function historyLine(entries: readonly HistoryEntry[]): string | undefined {
  if (entries.length === 0) return undefined
  const symbols = [...entries]
    .reverse()
    .map(e => link(RESULT_ICONS[e.result] ?? '⚪', e.url))
    .join(' ')
  const median = medianDuration(entries) ?? 0
  return `<p>Last ${entries.length} finished build(s), oldest first: ${symbols} — median duration ${escapeHtml(formatDuration(median))}.</p>`
}
