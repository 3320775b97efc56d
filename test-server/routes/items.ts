/**
 * Items: jobs and folders bound by `job/<name>` per level (`view/<name>` is
 * skipped), their page and api/json, the URL families below them in
 * ITEM_ROUTES, and builds below jobs (builds.ts).
 */
import type { Exchange } from '../http/exchange.js'
import { itemJson, itemPath } from '../http/json.js'
import { isJob } from '../model/build.js'
import type { JenkinsModel } from '../model/model.js'
import { layoutPage } from '../http/pages.js'
import type { RequestKind } from '../types.js'
import type { JobState } from '../model/state.js'
import { buildKind, buildRoute, findBuild } from './builds.js'
import { indexing, scanMultibranch } from './multibranch.js'
import {
  at,
  can,
  deny,
  notFound,
  redirect,
  requestBase,
  requirePost,
  sendApiJson,
  sendLayout,
  type Handler
} from './respond.js'
import { triggerBuild, triggerWithParameters } from './trigger.js'

/** A URL family below an item (`job/<name>/<segment>/…`). */
interface ItemRoute {
  /** The request log's `kind` (faults are aimed by it), or how to tell it from the item. */
  kind: RequestKind | ((item: JobState) => RequestKind)
  /** On jobs (freestyle, pipeline); without it, a 404. */
  job?: Handler<JobState>
  /** On folders (plain, multibranch); without it, a 404. */
  folder?: Handler<JobState>
}

/** Families below an item, by their first segment. A new one is one entry here. */
const ITEM_ROUTES = new Map<string, ItemRoute>([
  [
    'build',
    {
      kind: item => (isJob(item) ? 'trigger' : 'scan'),
      job: at([], triggerBuild),
      folder: at([], scanMultibranch)
    }
  ],
  ['indexing', { kind: 'scan-log', folder: indexing }],
  ['computation', { kind: 'scan-log', folder: indexing }],
  ['buildWithParameters', { kind: 'trigger', job: at([], triggerWithParameters) }],
  ['disable', { kind: 'disable', job: at([], (ex, job) => setDisabled(ex, job, true)) }],
  ['enable', { kind: 'disable', job: at([], (ex, job) => setDisabled(ex, job, false)) }]
])

/** The item a `job/…/job/…` path binds to, and the segments below it. */
export function walkItems(
  model: JenkinsModel,
  segments: string[]
): { item: JobState; rest: string[] } | undefined {
  let item = model.root
  let i = 0
  for (;;) {
    const marker = segments[i]
    const name = segments[i + 1]
    if (marker === 'view' && name !== undefined) {
      i += 2
      continue
    }
    if (marker !== 'job') break
    if (name === undefined) return undefined
    const child = model.child(item, name)
    if (!child) return undefined
    item = child
    i += 2
  }
  return { item, rest: segments.slice(i) }
}

/** The request log's kind of a `job/…` or `view/…` path, from the path alone. */
export function itemKind(model: JenkinsModel, segments: string[]): RequestKind {
  const walked = walkItems(model, segments)
  const rest = walked?.rest ?? segments.slice(segments.lastIndexOf('job') + 2)
  const [r0, r1] = rest
  if (r0 === undefined || r0 === 'api') {
    return walked && !isJob(walked.item) ? 'list' : 'job'
  }
  const kind = ITEM_ROUTES.get(r0)?.kind
  if (typeof kind === 'function') return walked ? kind(walked.item) : 'other'
  return kind ?? buildKind(r1)
}

export function itemRoute(ex: Exchange): void | Promise<void> {
  const walked = walkItems(ex.ctx.model, ex.segments)
  if (!walked) return notFound(ex)
  const { item, rest } = walked
  if (item === ex.ctx.model.root) return notFound(ex)
  ex.entry.job = item.fullName
  const [r0, ...tail] = rest
  if (r0 === undefined) {
    return sendLayout(ex, 200, layoutPage(item.fullName, `<h1>${item.displayName}</h1>`))
  }
  if (r0 === 'api') {
    if (tail.length !== 1 || tail[0] !== 'json') return notFound(ex)
    return sendApiJson(ex, depth => itemJson(ex.ctx.json, item, 0, depth))
  }
  const family = ITEM_ROUTES.get(r0)
  if (family) {
    const handler = isJob(item) ? family.job : family.folder
    return handler ? handler(ex, item, tail) : notFound(ex)
  }
  if (!isJob(item)) return notFound(ex)
  const build = findBuild(item, r0)
  if (!build) return notFound(ex)
  return buildRoute(ex, build, tail)
}

function setDisabled(ex: Exchange, job: JobState, disabled: boolean): void {
  if (!requirePost(ex)) return
  if (!can(ex, 'configure')) return deny(ex, 'configure')
  ex.ctx.model.setDisabled(job, disabled)
  redirect(ex, 302, `${requestBase(ex)}/${itemPath(job)}`)
}
