import { once } from 'node:events'
import type { Logger } from '../util/logger.js'
import { unlessNotFound } from '../jenkins/transport/errors.js'
import { CAUSES_TREE, isShared } from '../jenkins/trigger/shared-work.js'
import type { BuildRef, JobPath } from '../jenkins/model/types.js'
import type { QueueItem } from '../jenkins/reads/reads.js'
import type { JenkinsApi } from '../jenkins/client.js'
import type { LostTrigger } from '../jenkins/transport/errors.js'
import { sleep as wait } from '../util/wait.js'
import { errorText } from '../util/error-text.js'
import { buildNumberByQueueId } from './queue-ended.js'
import { buildRef } from './build-parts.js'

/**
 * Why a scan is left running on cancel or timeout. Jenkins folds every scan
 * request for a project into the one queued item (ComputedFolder.doBuild →
 * Queue.schedule2), other requests can fold in between a look at its causes
 * and a cancel, and once the scan runs Jenkins exports no causes at all (a
 * FolderComputation has no API). A scan also indexes every branch of the
 * project, not only this step's: stopping it would leave the others unseen.
 */
export function scanLeft(project: string): string {
  return `left the scan of ${project} running: shared by every request waiting for the project's branches`
}

/** What we know of the remote work when the step has to give up on it. */
export interface RemoteTarget {
  job: JobPath
  queueId?: number
  build?: BuildRef
  /** Jenkins merged the trigger into an item another request had queued (303): never ours alone to cancel. */
  shared?: boolean
  /** A trigger whose answer was lost or cut by the cancel: what it queued is looked for, then cancelled. */
  lostTrigger?: LostTrigger
  /** How many of this step's own requests Jenkins folded into the item (default 1): only more causes than that mean another request shares it. */
  ownRequests?: number
}

/**
 * The runner sends SIGINT, then SIGTERM 7.5 s later, then kills: the whole
 * escalation has to fit well inside that. With a deadline (`until`), each
 * wait is also cut to a share of the time left, so that term and kill still
 * get their turn.
 */
const DEFAULT_ABORT_TIMINGS = {
  /** How long to wait for `stop` to end the build before escalating (ms). */
  stopWaitMs: 3000,
  /** How long to wait after `term` before `kill` (ms). */
  termWaitMs: 1500,
  /** How long to wait after `kill` (ms). */
  killWaitMs: 1000,
  pollMs: 250,
  /** How long the look for a request folded into ours may take before we act anyway (ms). */
  shareCheckMs: 1000
}

/** abortRemote's waits; its budget `until` (epoch ms); how it waits (util/wait.ts's sleep; a test passes its virtual clock's). */
interface AbortOptions {
  timings?: typeof DEFAULT_ABORT_TIMINGS
  until?: number
  sleep?: (ms: number) => Promise<void>
}

/**
 * Cancels the queue item or stops the build, escalating for Pipelines
 * (stop, then term, then kill: jenkins-api.md 7), and says what it did.
 * Work shared with another request is left alone: a 303 says so at once, and
 * a brief look (shareCheckMs) right before acting finds a request folded in
 * since (shared-work.ts); without an answer in time it acts on what the
 * trigger said. `until` (epoch ms) is the abort's budget. Never throws: the
 * caller is already failing the step.
 */
export async function abortRemote(
  api: JenkinsApi,
  target: RemoteTarget,
  logger: Logger,
  options: AbortOptions = {}
): Promise<string> {
  const { timings = DEFAULT_ABORT_TIMINGS, sleep = wait } = options
  try {
    let { build, queueId } = target
    let found = ''
    if (target.shared) {
      return leftShared(build ? `build #${build.number}` : `queue item ${queueId ?? '?'}`)
    }
    if (!build && queueId === undefined && target.lostTrigger) {
      // The trigger may have queued a build we never heard of: find it by
      // its parameters (reads only), never send another trigger.
      const lost = await api.findLostTrigger(target.lostTrigger)
      if (!lost) {
        return "the trigger's answer never came, and Jenkins shows no queued item or build for it: nothing to cancel"
      }
      found = " (found by its parameters: the trigger's answer never came)"
      if (lost.buildNumber === undefined) queueId = lost.queueId
      else build = buildRef(api, target.job, lost.buildNumber)
    }
    if (!build && queueId !== undefined) {
      const id = queueId
      // undefined: no answer in time; null: Jenkins no longer knows the item.
      let item = await briefly(unlessNotFound(api.getQueueItem(id), null), timings.shareCheckMs)
      if (item && isShared(item.actions, target.ownRequests)) return leftShared(`queue item ${id}`)
      if (item === undefined || (item !== null && !hasLeft(item))) {
        // No compare-and-cancel in Jenkins: a fold between the look and the
        // cancel (one round trip) is not seen.
        const outcome = await api.cancelQueueItem(id)
        if (outcome === 'cancelled') return `cancelled Jenkins queue item ${id}${found}`
        // It left the queue meanwhile: read it again.
        item = undefined
      }
      // Too late: it left the queue, so a build may be running. A left item's
      // executable is null for a moment while the run is created
      // (jenkins-api.md 4): look again briefly before giving up.
      let number: number | undefined
      for (let i = 0; i < 8; i++) {
        if (i > 0 || item === undefined) item = await unlessNotFound(api.getQueueItem(id), null)
        number = item?.executable?.number
        if (number !== undefined || !item || item.cancelled || item.executable === undefined) break
        await sleep(250)
      }
      // Expired or dropped by a restart: look the build up by its queue id.
      if (item === null) number = await buildNumberByQueueId(api, target.job, id)
      if (number === undefined) return `queue item ${id} was no longer queued and started no build`
      build = buildRef(api, target.job, number)
    }
    if (!build) return 'nothing was running in Jenkins yet'
    const current = await briefly(
      api.getBuild(build.job, build.number, { tree: `number,building,result,${CAUSES_TREE}` }),
      timings.shareCheckMs
    )
    if (current && !current.building) {
      return `build #${build.number} had already finished (${current.result ?? 'no result'})`
    }
    // Folded into after we queued it, or found through a 201 that folded ours in.
    if (current && isShared(current.actions, target.ownRequests)) {
      return leftShared(`build #${build.number}`)
    }
    return `${await stopBuild(api, build, logger, options)}${found}`
  } catch (error) {
    logger.warning(`Could not abort the Jenkins work: ${errorText(error)}`)
    return COULD_NOT_ABORT
  }
}

/** abortRemote's answer when its requests failed: the work may still run, and the post step tries again. */
export const COULD_NOT_ABORT = 'could not abort the Jenkins work (see the warning above)'

/** How abortRemote's answer ends when it left the work alone because another request shares it. */
export const SHARED_WORK_LEFT = 'running: shared with another request'

function leftShared(what: string): string {
  return `left ${what} ${SHARED_WORK_LEFT}`
}

/** What `read` gives within `ms`, or undefined when it failed or took longer (it is left to the client's own bound). */
function briefly<T>(read: Promise<T>, ms: number): Promise<T | undefined> {
  const late = once(AbortSignal.timeout(ms), 'abort').then(() => undefined)
  return Promise.race([read.catch(() => undefined), late])
}

/** A LeftItem: it carries `executable` (maybe null) and `cancelled` (jenkins-api.md 4). */
function hasLeft(item: QueueItem): boolean {
  return (
    item._class?.endsWith('$LeftItem') === true || 'executable' in item || item.cancelled === true
  )
}

/** Sends stop (then term, kill) and watches the build end; says what happened. */
async function stopBuild(
  api: JenkinsApi,
  build: BuildRef,
  logger: Logger,
  { timings = DEFAULT_ABORT_TIMINGS, until, sleep = wait }: AbortOptions
): Promise<string> {
  const label = `build #${build.number}`
  // [how, longest wait after it, share of the time left it may take]
  const steps: Array<['stop' | 'term' | 'kill', number, number]> = [
    ['stop', timings.stopWaitMs, 0.5],
    ['term', timings.termWaitMs, 0.5],
    ['kill', timings.killWaitMs, 1]
  ]
  let sent: string | undefined
  const waitUntilOver = async (by: number): Promise<string | undefined> => {
    for (;;) {
      const b = await api.getBuild(build.job, build.number, { tree: 'number,building,result' })
      if (!b.building) return b.result ?? 'no result'
      if (Date.now() >= by) return undefined
      await sleep(timings.pollMs)
    }
  }
  try {
    for (const [how, waitMs, share] of steps) {
      const request = api.stopBuild(build, how)
      // Freestyle builds have no term/kill (404): stop is all there is.
      if ((await (how === 'stop' ? request : unlessNotFound(request, 'none'))) === 'none') break
      sent = how
      logger.info(`Sent ${how} to Jenkins ${label}.`)
      const longest = until === undefined ? waitMs : Math.min(waitMs, (until - Date.now()) * share)
      const ended = await waitUntilOver(Date.now() + Math.max(0, longest))
      // Stop is a no-op on a build that had ended (jenkins-api.md 7): its result says which.
      if (ended !== undefined) {
        return how === 'stop' && ended !== 'ABORTED'
          ? `${label} had already finished (${ended})`
          : `stopped Jenkins ${label} (${how}; result ${ended})`
      }
    }
  } catch (error) {
    if (sent === undefined) throw error
    return `sent ${sent} to Jenkins ${label}, but could not see it end: ${errorText(error)}`
  }
  return `asked Jenkins to stop ${label}, but it was still running when the step gave up`
}

/**
 * Turns the runner's SIGINT/SIGTERM into an abort of `controller`, so the
 * follower stops waiting and main can stop the remote build. Returns a
 * function that removes the handlers.
 */
export function onCancelSignals(controller: AbortController, logger: Logger): () => void {
  const handler = (signal: NodeJS.Signals): void => {
    if (controller.signal.aborted) {
      logger.info(`Received ${signal} again; still stopping the Jenkins work.`)
      return
    }
    logger.info(`Received ${signal}: the workflow was cancelled.`)
    controller.abort('cancelled')
  }
  process.on('SIGINT', handler)
  process.on('SIGTERM', handler)
  return () => {
    process.off('SIGINT', handler)
    process.off('SIGTERM', handler)
  }
}
