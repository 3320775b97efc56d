/**
 * Stapler-like URL binding, after the authentication and crumb filters of
 * server.ts. Each object a URL can reach (the root, an item, a build) answers
 * its own page and api/json, and looks the next segment up in its table of URL
 * families: ROOT_ROUTES here, ITEM_ROUTES (items.ts), BUILD_ROUTES (builds.ts).
 * A new family is a module with its handler plus one entry in one table; the
 * entry's `kind` is what the request log (and so fault aiming) calls it.
 */
import type { Exchange } from '../http/exchange.js'
import { rootJson } from '../http/json.js'
import type { JenkinsModel } from '../model/model.js'
import { layoutPage, oopsPage, stackTrace } from '../http/pages.js'
import type { RequestKind } from '../types.js'
import { computer } from './computer.js'
import { crumbIssuer } from './crumb-issuer.js'
import { itemKind, itemRoute, walkItems } from './items.js'
import { queue, queueKind } from './queue.js'
import { can, deny, notFound, Oops, sendApiJson, sendLayout } from './respond.js'
import { whoAmI } from './who-am-i.js'

/** A URL family below the root (`/<segment>/…`). */
interface RootRoute {
  /** The request log's `kind` (faults are aimed by it), or how to tell it from the segments below. */
  kind: RequestKind | ((rest: string[]) => RequestKind)
  handle(ex: Exchange, rest: string[]): void | Promise<void>
}

/** Families below the root, by their first segment. A new one is one entry here. */
const ROOT_ROUTES = new Map<string, RootRoute>([
  [
    'login',
    { kind: 'other', handle: ex => sendLayout(ex, 200, layoutPage('Sign in', '<h1>Sign in</h1>')) }
  ],
  ['whoAmI', { kind: 'other', handle: whoAmI }],
  ['crumbIssuer', { kind: 'crumb', handle: crumbIssuer }],
  ['queue', { kind: queueKind, handle: queue }],
  ['computer', { kind: 'computer', handle: computer }]
])

/** Paths Jenkins.getTarget lets through without Overall/Read. */
const ALWAYS_READABLE = new Set([
  '404',
  'login',
  'loginError',
  'logout',
  'accessDenied',
  'adjuncts',
  'error',
  'oops',
  'signup',
  'securityRealm',
  'whoAmI'
])

/** The request log's `kind`, from the path alone (faults are aimed by it). */
export function classify(model: JenkinsModel, segments: string[]): RequestKind {
  const [first, ...rest] = segments
  if (first === 'api') return 'list'
  if (first === 'job' || first === 'view') return itemKind(model, segments)
  const kind = first === undefined ? undefined : ROOT_ROUTES.get(first)?.kind
  if (kind === undefined) return 'other'
  return typeof kind === 'function' ? kind(rest) : kind
}

/**
 * The full name of the job a request addresses, from the path alone (queue
 * items and cancelItem: their job's), so faults can be aimed at one job.
 */
export function addressedJob(
  model: JenkinsModel,
  segments: string[],
  rawQuery: string
): string | undefined {
  const [first, second, third] = segments
  if (first === 'job' || first === 'view') {
    const item = walkItems(model, segments)?.item
    return item && item !== model.root ? item.fullName : undefined
  }
  if (first !== 'queue') return undefined
  const id =
    second === 'item'
      ? third
      : second === 'cancelItem'
        ? new URLSearchParams(rawQuery).get('id')
        : undefined
  return id && /^\d+$/.test(id) ? model.queueItem(Number(id))?.job.fullName : undefined
}

export async function route(ex: Exchange): Promise<void> {
  try {
    await dispatch(ex)
  } catch (err) {
    if (ex.res.headersSent) {
      ex.res.destroy()
      return
    }
    const status = err instanceof Oops ? err.status : 500
    const exception = err instanceof Oops ? err.exception : 'java.lang.RuntimeException'
    const message = err instanceof Error ? err.message : String(err)
    sendLayout(
      ex,
      status,
      oopsPage({ trace: ex.ctx.showStackTrace ? stackTrace(exception, message) : undefined })
    )
  }
}

async function dispatch(ex: Exchange): Promise<void> {
  const [first, ...rest] = ex.segments
  if (first === undefined || !ALWAYS_READABLE.has(first)) {
    if (!can(ex, 'read')) return deny(ex, 'read')
  }
  if (first === undefined) return sendLayout(ex, 200, layoutPage('Dashboard', '<h1>Dashboard</h1>'))
  if (first === 'api') {
    if (rest.length !== 1 || rest[0] !== 'json') return notFound(ex)
    return sendApiJson(ex, depth => rootJson(ex.ctx.json, depth))
  }
  if (first === 'job' || first === 'view') return itemRoute(ex)
  const family = ROOT_ROUTES.get(first)
  if (family) return family.handle(ex, rest)
  notFound(ex)
}
