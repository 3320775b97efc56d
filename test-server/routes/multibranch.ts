/** Multibranch projects: `job/<project>/build` schedules a branch scan (jenkins-api.md 3.8). */
import type { Exchange } from '../exchange.js'
import { itemPath } from '../json.js'
import type { JobState } from '../types.js'
import { can, deny, notFound, redirect, refererOr, requestBase, requirePost } from './respond.js'

/** ComputedFolder.doBuild: schedules a scan and redirects back; plain folders have no `build`. */
export function scanMultibranch(ex: Exchange, folder: JobState): void {
  if (folder.type !== 'multibranch') return notFound(ex)
  if (!requirePost(ex)) return
  if (!can(ex, 'build')) return deny(ex, 'build')
  return redirect(ex, 302, refererOr(ex, requestBase(ex) + '/' + itemPath(folder)))
}
