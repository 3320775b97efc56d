/**
 * Multibranch projects (jenkins-api.md 3.8): `job/<project>/build` schedules
 * a scan, and `indexing/` shows the current or last one. Sources:
 * cloudbees-folder's ComputedFolder (doBuild, getComputation) and
 * FolderComputation (doConsoleText, getLogText), branch-api's
 * MultiBranchProject (getIndexing) and BranchIndexing.
 */
import type { Exchange } from '../http/exchange.js'
import { BranchIndexing } from '../model/indexing.js'
import { itemPath } from '../http/json.js'
import { layoutPage } from '../http/pages.js'
import type { JobState } from '../model/state.js'
import { serveConsoleText, serveProgressiveText } from './build-log.js'
import { quietPeriod } from './trigger.js'
import { userIdCause } from '../model/causes.js'
import {
  can,
  deny,
  notFound,
  Oops,
  redirect,
  refererOr,
  requestBase,
  requirePost,
  sendLayout
} from './respond.js'

/**
 * ComputedFolder.doBuild: @RequirePOST, Job/Build, then a 500 when the
 * project is disabled ("cannot be recomputed"); else the scan is queued
 * (merged into one already queued) and the answer is
 * HttpResponses.forwardToPreviousPage: 302 to the Referer, or to the
 * project. No queue Location. Plain folders have no `build`.
 */
export function scanMultibranch(ex: Exchange, folder: JobState): void {
  if (folder.type !== 'multibranch') return notFound(ex)
  if (!requirePost(ex)) return
  if (!can(ex, 'build')) return deny(ex, 'build')
  const model = ex.ctx.model
  if (!model.isBuildable(folder)) throw new Oops(500, `${folder.fullName} cannot be recomputed`)
  // `delay` is a @QueryParameter TimeDuration; absent means 0, not the quiet period.
  const delay = ex.params.has('delay') ? quietPeriod(ex, folder) : 0
  model.schedule(folder, [], [userIdCause(ex.identity)], delay)
  return redirect(ex, 302, refererOr(ex, requestBase(ex) + '/' + itemPath(folder)))
}

/**
 * `indexing/…` (MultiBranchProject.getIndexing) and `computation/…`
 * (ComputedFolder.getComputation): the page, `consoleText` and
 * `logText/progressiveText` of the current scan, or of the last one until a
 * queued scan starts. A FolderComputation has no getApi: `api/json` is a 404.
 */
export function indexing(ex: Exchange, folder: JobState, tail: string[]): void {
  if (folder.type !== 'multibranch' || !folder.indexing) return notFound(ex)
  const scan = folder.indexing as BranchIndexing
  const path = tail.join('/')
  if (path === '') {
    return sendLayout(
      ex,
      200,
      layoutPage(`Scan ${folder.fullName}`, `<h1>Scan Repository Log</h1><pre></pre>`)
    )
  }
  if (path === 'consoleText') return serveConsoleText(ex, scan.log)
  if (path === 'logText/progressiveText') {
    return serveProgressiveText(ex, scan.log, scan.result === null)
  }
  notFound(ex)
}
