/**
 * fail-fast: the first failure stops every other build this step started
 * (cancels its queue item, or stops it, escalating as on cancel), never
 * one shared with another request, which is left running and not waited
 * for. Stopped builds are still followed to their end, and reported
 * (run-builds.ts).
 */
import { abortRemote, SHARED_WORK_LEFT } from '../follow/cancel.js'
import { namedLogger } from '../util/logger.js'
import type { BuildsRun, Item } from './run-builds.js'

/** What stopping needs of the run: its record, engine and log. */
type Run = Pick<BuildsRun, 'step' | 'follower' | 'log'>

/** Stops the work of `items` but `cause` that is still open, one stop for the items of one track. */
export function stopOthers(run: Run, cause: Item, items: readonly Item[]): Promise<void>[] {
  const { work } = run.step
  // Not those that ended already (their reports are on the way).
  const others = items.filter(
    item =>
      item !== cause &&
      !work.item(item.index).done &&
      !item.report.error &&
      item.report.outcome.result === undefined
  )
  if (others.length === 0) return []
  run.log.info(
    `fail-fast: ${cause.entry.jobName} did not pass; stopping the other builds this step started.`
  )
  const tracks = new Map<unknown, Item[]>()
  for (const item of others) {
    const key = item.track ?? item
    tracks.set(key, [...(tracks.get(key) ?? []), item])
  }
  return [...tracks.values()].map(group => stopGroup(run, group))
}

async function stopGroup(run: Run, group: Item[]): Promise<void> {
  const { api, work } = run.step
  const [first] = group
  if (!first) return
  const name = first.entry.jobName
  const target = work.targetOf(first.index, api)
  const note = `left ${SHARED_WORK_LEFT}`
  if (!target || target.shared) {
    leave(run, group, target?.shared ? note : undefined)
    return
  }
  for (const item of group) item.stopping = true
  const said = await abortRemote(api, target, namedLogger(run.log, name))
  run.log.info(`fail-fast: ${name}: ${said}.`)
  if (said.endsWith(SHARED_WORK_LEFT)) {
    leave(run, group, note)
    return
  }
  if (first.track !== undefined) run.follower.expedite(first.track)
}

/** Stops following the items (their work is not this step's alone to stop). */
function leave(run: Run, group: Item[], note: string | undefined): void {
  for (const item of group) {
    if (note) item.report.left = note
    if (item.track !== undefined) run.follower.drop(item.track)
    run.step.work.finished(item.index)
  }
}
