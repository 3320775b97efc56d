/**
 * What an upload whose answer was lost left in Jenkins, and what is done
 * about it; never a second trigger (it could queue a second deploy). The
 * build with our files is followed; one with every parameter at its default
 * and no file is cancelled or stopped when it is ours alone (shared-work.ts
 * isOwnAlone), else named and left alone; shapes that match several items
 * are all named. The cases: docs/internals.md, "An upload whose answer was lost".
 */
import { cancelQueueItem, stopBuild } from './actions.js'
import { JenkinsError, type LostTrigger } from '../transport/errors.js'
import { isOwnAlone, type ExportedCauses } from './shared-work.js'
import { buildUrl, jobUrl, queueItemUrl } from '../model/job-path.js'
import { SETTLE_MS, SLOW_SETTLE_MS, jobBuilds, lookIn } from './reconcile.js'
import type { Requester } from '../transport/requester.js'
import type { LostAnswer } from './trigger.js'
import type { JobPath, TriggerResult } from '../model/types.js'
import { errorText } from '../../util/error-text.js'

export interface LostUpload {
  name: string
  job: JobPath
  lost: LostAnswer
  /** How much of the body had gone out when it broke, when it had not all gone. */
  cut: string | undefined
  complete: LostTrigger
  broken: LostTrigger
  settleMs?: number
}

/** A queue item or build that matches one shape; `queueId` ties the two together. */
interface Found {
  queueId?: number
  buildNumber?: number
  /** What it was found with, for the shared-work rule. */
  causes: ExportedCauses
}

/** Follows the whole upload when it alone is found; otherwise cleans up or names what it found, and throws. */
export async function recoverUpload(
  http: Requester,
  upload: LostUpload
): Promise<Omit<TriggerResult, 'unknownParameters'>> {
  const { name, lost } = upload
  const jobPage = jobUrl(http.baseUrl, upload.job)
  const what = `${lost.error.message} while uploading to job '${name}'${upload.cut ? ` (${upload.cut})` : ''}`
  const failure = (rest: string): JenkinsError => new JenkinsError('network', `${what}${rest}`)
  http.logger.info(
    `The upload's answer was lost (${lost.reason}); looking in Jenkins for what it queued, without sending it again.`
  )
  const settleMs = upload.settleMs ?? (lost.slow ? SLOW_SETTLE_MS : SETTLE_MS)
  let complete: Found[] = []
  let broken: Found[] = []
  try {
    // Jenkins queues a broken upload only once it read the body to its break: let it.
    for (let look = 0; look < 2; look++) {
      await http.pause(settleMs, 'look for what the upload queued')
      ;({ complete, broken } = await look2(http, upload))
      if (complete.length + broken.length > 0) break
    }
  } catch (error) {
    if (error instanceof JenkinsError && error.kind === 'aborted') throw error
    throw failure(
      `, and Jenkins could not be asked what it queued (${errorText(error)}): a build without the files may be queued or running. Check ${jobPage}; nothing was sent again.`
    )
  }
  const describe = (found: Found): string =>
    found.buildNumber !== undefined
      ? `build #${found.buildNumber} (${buildUrl(http.baseUrl, upload.job, found.buildNumber)})`
      : `queue item ${found.queueId} (${queueItemUrl(http.baseUrl, found.queueId)})`
  const [found, ...others] = [...complete, ...broken]
  if (!found) {
    throw failure(
      `. Jenkins shows no build queued from it (the upload did not reach the job, or Jenkins refused the broken body); nothing was sent again: run the step again to upload the files.`
    )
  }
  if (others.length > 0) {
    const all = [found, ...others].map(describe).join(', ')
    throw failure(
      `. Jenkins shows several items of '${name}' that this upload may have queued, and they cannot be told apart from other triggers: ${all}. None was touched and nothing was sent again; check them (one may run without the files).`
    )
  }
  if (complete.length === 1) {
    if (found.queueId === undefined) {
      throw failure(
        `. Jenkins shows ${describe(found)} with these parameters and files, but not its queue item: check it; nothing was sent again.`
      )
    }
    http.logger.info(
      `Jenkins shows ${describe(found)} of '${name}' with these parameters and files: following it.`
    )
    return {
      queueId: found.queueId,
      queueUrl: queueItemUrl(http.baseUrl, found.queueId),
      merged: false,
      adopted: found.buildNumber === undefined ? 'queue' : 'build'
    }
  }
  const user = upload.broken.user
  if (!isOwnAlone(found.causes, user)) {
    throw failure(
      `. Jenkins shows ${describe(found)} with every parameter at its default and no file, as the broken upload would have queued it, but ${notOurs(found.causes, user)}: it was left alone. Check it (it may run without the files); nothing was sent again.`
    )
  }
  const done = await removeBroken(http, upload, found)
  throw failure(
    `. Jenkins queued ${describe(found)} from the broken upload with every parameter at its default and no file: ${done}. Nothing was sent again: run the step again to upload the files.`
  )
}

/** One look at the queue and the builds since the trigger, for both shapes. */
async function look2(
  http: Requester,
  upload: LostUpload
): Promise<{ complete: Found[]; broken: Found[] }> {
  const look = lookIn(http, upload.complete)
  const match = async ({ parameters }: LostTrigger): Promise<Found[]> => {
    // The queue is read first: an item that started between the two reads is already there as a build.
    const queued = await look.queued(parameters)
    const found: Found[] = (await look.built(parameters)).map(build => ({
      queueId: build.queueId,
      buildNumber: build.number,
      causes: build
    }))
    for (const item of queued) {
      if (!found.some(f => f.queueId === item.id)) found.push({ queueId: item.id, causes: item })
    }
    return found
  }
  return { complete: await match(upload.complete), broken: await match(upload.broken) }
}

/** Why work of the broken shape is not ours to cancel or stop (our own words: no Jenkins text). */
function notOurs(causes: ExportedCauses, user: string | undefined): string {
  if (user === undefined) return 'this step has no user to tell its own requests by'
  const count = causes.causes?.length ?? 0
  if (count > 1) return `${count} requests share it (another was merged with this step's)`
  if (count === 0) return 'Jenkins does not say whose request it is'
  return `it is not a request of user '${user}'`
}

/** Cancels a queued broken build, or stops a started one (ours alone, as found); says which. */
async function removeBroken(http: Requester, upload: LostUpload, found: Found): Promise<string> {
  const { job } = upload
  let number = found.buildNumber
  try {
    if (number === undefined && found.queueId !== undefined) {
      const outcome = await cancelQueueItem(http, found.queueId)
      if (outcome === 'cancelled') return 'cancelled it'
      // It left the queue: it started (or ended) as a build.
      const build = (await jobBuilds(http, job)).find(b => b.queueId === found.queueId)
      if (!build)
        return `it left the queue before it could be cancelled; check ${jobUrl(http.baseUrl, job)}`
      // No compare-and-cancel in Jenkins: another request may have been folded in before it started.
      if (!isOwnAlone(build, upload.broken.user)) {
        return `it started as build #${build.number} (${buildUrl(http.baseUrl, job, build.number)}) before it could be cancelled, and ${notOurs(build, upload.broken.user)}: it was left running; check it`
      }
      number = build.number
    }
    if (number === undefined) return 'could not tell which build it is'
    await stopBuild(http, { job, number, url: '' }, 'stop')
    return `stopped build #${number}`
  } catch (error) {
    if (error instanceof JenkinsError && error.kind === 'aborted') throw error
    return `could not cancel or stop it (${errorText(error)}): stop it by hand`
  }
}
