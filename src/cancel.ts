import type { Logger } from './logger.js'
import { JenkinsError } from './jenkins/errors.js'
import { CAUSES_TREE, isShared } from './jenkins/shared-work.js'
import type { BuildRef, JenkinsApi, JobPath, QueueItem } from './jenkins/types.js'
import { sleep } from './wait.js'

/** What we know of the remote work when the step has to give up on it. */
export interface RemoteTarget {
  job: JobPath
  queueId?: number
  build?: BuildRef
  /** Jenkins merged the trigger into an item another request had queued (303): never ours alone to cancel. */
  shared?: boolean
}

export interface AbortTimings {
  /** How long to wait for `stop` to end the build before escalating (ms). */
  stopWaitMs: number
  /** How long to wait after `term` before `kill` (ms). */
  termWaitMs: number
  /** How long to wait after `kill` (ms). */
  killWaitMs: number
  pollMs: number
}

/**
 * The runner sends SIGINT, then SIGTERM 7.5 s later, then kills: the whole
 * escalation has to fit well inside that.
 */
export const DEFAULT_ABORT_TIMINGS: AbortTimings = {
  stopWaitMs: 3000,
  termWaitMs: 1500,
  killWaitMs: 1000,
  pollMs: 250
}

/**
 * Cancels the queue item or stops the build, escalating for Pipelines
 * (stop, then term, then kill: jenkins-api.md 7), and says what it did.
 * Work shared with another request is left alone: a 303 says so at once,
 * and the item or build is looked at right before acting, since another
 * request can fold into ours at any time while it is queued
 * (jenkins/shared-work.ts). Never throws: the caller is already failing the step.
 */
export async function abortRemote(
  api: JenkinsApi,
  target: RemoteTarget,
  logger: Logger,
  timings: AbortTimings = DEFAULT_ABORT_TIMINGS
): Promise<string> {
  try {
    let build = target.build
    if (!build && target.queueId !== undefined) {
      const id = target.queueId
      if (target.shared) return leftShared(`queue item ${id}`)
      let item: QueueItem | null | undefined = await readQueueItem(api, id)
      if (item && !hasLeft(item)) {
        // No compare-and-cancel in Jenkins: a fold between this read and the
        // cancel (one round trip) is not seen.
        if (isShared(item.actions)) return leftShared(`queue item ${id}`)
        const outcome = await api.cancelQueueItem(id)
        if (outcome === 'cancelled') return `cancelled Jenkins queue item ${id}`
        // It left between the read and the cancel: read it again.
        item = undefined
      }
      // Too late: it left the queue, so a build may be running.
      build = await buildOfQueueItem(api, target.job, id, item)
      if (!build) return `queue item ${id} was no longer queued and started no build`
    }
    if (!build) return 'nothing was running in Jenkins yet'
    if (target.shared) return leftShared(`build #${build.number}`)
    return await stopBuild(api, build, logger, timings)
  } catch (error) {
    logger.warning(`Could not abort the Jenkins work: ${(error as Error).message}`)
    return 'could not abort the Jenkins work (see the warning above)'
  }
}

function leftShared(what: string): string {
  return `left ${what} running: shared with another request`
}

/** The queue item, or null when Jenkins no longer knows it (404). */
async function readQueueItem(api: JenkinsApi, queueId: number): Promise<QueueItem | null> {
  try {
    return await api.getQueueItem(queueId)
  } catch (error) {
    if (error instanceof JenkinsError && error.kind === 'not-found') return null
    throw error
  }
}

/** A LeftItem: it carries `executable` (maybe null) and `cancelled` (jenkins-api.md 4). */
function hasLeft(item: QueueItem): boolean {
  return (
    item._class?.endsWith('$LeftItem') === true || 'executable' in item || item.cancelled === true
  )
}

/** `first`: the item as just read (null: Jenkins no longer knows it), to save reading it again. */
async function buildOfQueueItem(
  api: JenkinsApi,
  job: JobPath,
  queueId: number,
  first?: QueueItem | null
): Promise<BuildRef | undefined> {
  let number: number | undefined
  let item = first
  // A left item's executable is null for a moment while the run is
  // created (jenkins-api.md 4): look again briefly before giving up.
  for (let i = 0; i < 8 && number === undefined; i++) {
    if (i > 0 || item === undefined) item = await readQueueItem(api, queueId)
    if (item === null) break
    const executable = item.executable?.number
    number = typeof executable === 'number' ? executable : undefined
    if (number === undefined && (item.cancelled || item.executable === undefined)) break
    if (number === undefined) await sleep(250)
  }
  if (item === null) {
    // Expired or dropped by a restart: look the build up by its queue id.
    number = (await api.recentBuilds(job, 100)).find(b => b.queueId === queueId)?.number
  }
  return number === undefined ? undefined : { job, number, url: api.buildUrl(job, number) }
}

async function stopBuild(
  api: JenkinsApi,
  build: BuildRef,
  logger: Logger,
  timings: AbortTimings
): Promise<string> {
  const label = `build #${build.number}`
  const current = await api.getBuild(build.job, build.number, {
    tree: `number,building,result,${CAUSES_TREE}`
  })
  if (!current.building) return `${label} had already finished (${current.result ?? 'no result'})`
  // Folded into after we queued it, or found through a 201 that folded ours in.
  if (isShared(current.actions)) return leftShared(label)
  const steps: Array<['stop' | 'term' | 'kill', number]> = [
    ['stop', timings.stopWaitMs],
    ['term', timings.termWaitMs],
    ['kill', timings.killWaitMs]
  ]
  for (const [how, waitMs] of steps) {
    try {
      await api.stopBuild(build, how)
    } catch (error) {
      // Freestyle builds have no term/kill (404): stop is all there is.
      if (how !== 'stop' && error instanceof JenkinsError && error.kind === 'not-found') break
      throw error
    }
    logger.info(`Sent ${how} to Jenkins ${label}.`)
    const ended = await waitUntilOver(api, build, waitMs, timings.pollMs)
    if (ended) return `stopped Jenkins ${label} (${how}; result ${ended})`
  }
  return `asked Jenkins to stop ${label}, but it was still running when the step gave up`
}

async function waitUntilOver(
  api: JenkinsApi,
  build: BuildRef,
  waitMs: number,
  pollMs: number
): Promise<string | undefined> {
  const until = Date.now() + waitMs
  for (;;) {
    const b = await api.getBuild(build.job, build.number, { tree: 'number,building,result' })
    if (!b.building) return b.result ?? 'no result'
    if (Date.now() >= until) return undefined
    await sleep(pollMs)
  }
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
