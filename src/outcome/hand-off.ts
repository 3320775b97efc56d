/**
 * The hand-off: the pending commit status a step leaves when it does not
 * wait (`wait: false` or `started` with `commit-status`), written and read
 * here alone. A later settle run (step/settle.ts) finds the build again from
 * it without the step's state: the job from `target_url` (the job's page,
 * which works in a browser for as long as the status shows; a queue item's
 * page 404s 5 minutes after it left the queue), the queue item and the
 * build from the description (at most 140 characters, GitHub's limit).
 * Anyone with `statuses: write` can write the same text: a settle run also
 * checks the status' creator. docs/hand-off.md says it for users.
 */
import { parseJobPath } from '../jenkins/model/job-path.js'
import type { JobPath } from '../jenkins/model/types.js'
import { isBuildNumber } from '../jenkins/model/counts.js'

/**
 * The description's start: what a person sees on the pull request, and what marks a hand-off.
 * @internal
 */
export const HAND_OFF_MARK = 'Handed off to Jenkins'

/** What a hand-off names: the queue item the step triggered, the build once known. */
export interface HandOff {
  queueId?: number
  build?: number
}

/** The hand-off's description: `Handed off to Jenkins: queue item 123, build #45`. */
export function handOffDescription({ queueId, build }: HandOff): string {
  if (queueId === undefined) return `${HAND_OFF_MARK}: build #${build}`
  if (build === undefined) return `${HAND_OFF_MARK}: queue item ${queueId}`
  return `${HAND_OFF_MARK}: queue item ${queueId}, build #${build}`
}

/** The three texts handOffDescription writes, and nothing else. */
const DESCRIPTION = new RegExp(
  `^${HAND_OFF_MARK}: (?:queue item (\\d{1,16})(?:, build #(\\d{1,16}))?|build #(\\d{1,16}))$`
)

/** The hand-off a status description names; undefined for any other text. */
export function parseHandOff(description: string | null | undefined): HandOff | undefined {
  const match = DESCRIPTION.exec(description ?? '')
  if (!match) return undefined
  const [, queued, built = match[3]] = match
  const handOff: HandOff = {}
  if (queued !== undefined) handOff.queueId = Number(queued)
  if (built !== undefined) handOff.build = Number(built)
  // What is not there passes: a hand-off names one of the two at least.
  const { queueId = 0, build = 1 } = handOff
  return Number.isSafeInteger(queueId) && isBuildNumber(build) ? handOff : undefined
}

/**
 * The job a hand-off's `target_url` names, read as the `job` input reads a
 * job URL (the same origin and context path as `url`); undefined for a URL
 * elsewhere or no job's page: nothing is ever requested there.
 */
export function handOffJob(
  targetUrl: string | null | undefined,
  baseUrl: string
): JobPath | undefined {
  if (!targetUrl || !/^https?:\/\//i.test(targetUrl)) return undefined
  try {
    const job = parseJobPath(targetUrl, baseUrl)
    return job.length > 0 ? job : undefined
  } catch {
    return undefined
  }
}
