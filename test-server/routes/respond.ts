/**
 * How routes answer: Jenkins' headers, pages through layout.jelly (which
 * create a session), 404/405/403 the way Stapler and ACL give them, redirects,
 * api/json with tree/depth/pretty, and /oops for exceptions.
 */
import type { Exchange } from '../http/exchange.js'
import { origin } from '../http/forwarded.js'
import { toJson } from '../http/json-writer.js'
import {
  accessDeniedPage,
  loginRequiredPage,
  notFoundPage,
  requiresPostPage
} from '../http/pages.js'
import { IMPLIED_BY, PERMISSION_ID } from '../model/security.js'
import { parseTree, pruneTree, treeDepth, TreeSyntaxError } from '../http/tree.js'
import type { Permission } from '../types.js'

/** Thrown inside a handler to answer through /oops (an uncaught exception in Jenkins). */
export class Oops extends Error {
  /** `exception`: the Java exception Jenkins would have thrown, for the page's stack trace. */
  constructor(
    readonly status: number,
    message: string,
    readonly exception = 'java.lang.IllegalStateException'
  ) {
    super(message)
  }
}

/** A route handler that gets the object its URL bound to and the segments below. */
export type Handler<T> = (ex: Exchange, target: T, tail: string[]) => void | Promise<void>

/**
 * A handler that answers only when exactly `path` follows its family's segment
 * (`at([], stop)` for `…/stop`); anything else is a 404, as Stapler finds nothing.
 */
export function at<T>(
  path: readonly string[],
  handler: (ex: Exchange, target: T) => void | Promise<void>
): Handler<T> {
  return (ex, target, tail) =>
    tail.length === path.length && tail.every((s, i) => s === path[i])
      ? handler(ex, target)
      : notFound(ex)
}

function jenkinsHeaders(ex: Exchange): Record<string, string> {
  return { 'X-Jenkins': ex.ctx.version, 'X-Jenkins-Session': ex.ctx.instanceSession }
}

export function apiHeaders(ex: Exchange): Record<string, string> {
  return {
    ...jenkinsHeaders(ex),
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'deny'
  }
}

/** Set-Cookie for a new session, or nothing when the request has one. */
export function sessionCookie(ex: Exchange): Record<string, string> {
  if (ex.sessionId) return {}
  ex.sessionId = ex.ctx.sessions.create()
  const path = ex.ctx.contextPath === '' ? '/' : ex.ctx.contextPath
  return { 'Set-Cookie': `${ex.ctx.sessions.cookieName}=${ex.sessionId}; Path=${path}; HttpOnly` }
}

/** Headers of a page rendered through layout.jelly; it also creates a session. */
function layoutHeaders(ex: Exchange): Record<string, string> {
  return {
    'Content-Type': 'text/html;charset=UTF-8',
    'X-Hudson': '1.395',
    ...jenkinsHeaders(ex),
    'X-Hudson-Theme': 'default',
    Expires: '0',
    'Cache-Control': 'no-cache,no-store,must-revalidate',
    'Referrer-Policy': 'same-origin',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'sameorigin',
    ...sessionCookie(ex)
  }
}

export function sendLayout(
  ex: Exchange,
  status: number,
  html: string,
  extra: Record<string, string> = {}
) {
  ex.res.writeHead(status, { ...layoutHeaders(ex), ...extra })
  ex.res.end(html)
}

export function notFound(ex: Exchange): void {
  sendLayout(ex, 404, notFoundPage())
}

export function requirePost(ex: Exchange): boolean {
  if (ex.method === 'POST') return true
  sendLayout(ex, 405, requiresPostPage(), { Allow: 'POST' })
  return false
}

/** HudsonAuthenticationEntryPoint: an anonymous caller who was denied gets the login page (2.2). */
function loginRequired(ex: Exchange): void {
  if (String(ex.req.headers['x-requested-with'] ?? '') === 'XMLHttpRequest') {
    return ex.jetty(403, 'Forbidden')
  }
  const from = ex.rawPath + (ex.rawQuery ? `?${ex.rawQuery}` : '')
  ex.res.writeHead(403, {
    'Content-Type': 'text/html;charset=UTF-8',
    'X-Hudson': '1.395',
    ...jenkinsHeaders(ex),
    ...sessionCookie(ex)
  })
  ex.res.end(loginRequiredPage(ex.ctx.contextPath, from))
}

/**
 * A plain AccessDeniedException (not AccessDeniedException3): the login page
 * for anonymous callers, else /accessDenied with the exception's message and
 * no permission headers (AccessDeniedHandlerImpl reports those only for
 * AccessDeniedException3).
 */
export function accessDenied(ex: Exchange, message: string): void {
  if (ex.identity.anonymous) return loginRequired(ex)
  ex.res.writeHead(403, layoutHeaders(ex))
  ex.res.end(accessDeniedPage(message))
}

/** Denies with the login page for anonymous callers (2.2) or accessDenied for users (2.3). */
export function deny(ex: Exchange, permission: Permission): void {
  if (ex.identity.anonymous) return loginRequired(ex)
  ex.res.writeHead(403, {
    ...layoutHeaders(ex),
    'X-You-Are-Authenticated-As': ex.identity.name,
    'X-You-Are-In-Group-Disabled':
      'JENKINS-39402: use -Dhudson.security.AccessDeniedException2.REPORT_GROUP_HEADERS=true or use /whoAmI to diagnose',
    'X-Required-Permission': PERMISSION_ID[permission],
    'X-Permission-Implied-By': IMPLIED_BY[permission]
  } as unknown as Record<string, string>)
  ex.res.end(
    accessDeniedPage(
      `${ex.identity.name} is missing the ${PERMISSION_ID[permission].replace(/^hudson\.model\.(\w+)\.(\w+)$/, '$1/$2')} permission`
    )
  )
}

export function can(ex: Exchange, permission: Permission): boolean {
  return ex.identity.permissions.has(permission) || ex.identity.permissions.has('admin')
}

/** Absolute URL on the address the client used (forwarding headers honoured as Jetty does), for Location headers. */
export function requestBase(ex: Exchange): string {
  return `${origin(ex.forwarded)}${ex.ctx.contextPath}`
}

export function redirect(ex: Exchange, status: number, location: string): void {
  ex.res.writeHead(status, { Location: location, 'Content-Length': '0' })
  ex.res.end()
}

export function refererOr(ex: Exchange, fallback: string): string {
  const referer = ex.req.headers.referer
  return typeof referer === 'string' && referer !== '' ? referer : fallback
}

/** api/json with tree, depth and pretty (jenkins-api.md 5.5). */
export function sendApiJson(ex: Exchange, build: (depth: number) => unknown): void {
  const treeParam = ex.params.get('tree')
  const depthParam = ex.params.get('depth')
  let depth = 0
  if (depthParam !== undefined) {
    if (!/^-?\d+$/.test(depthParam.trim())) throw new Oops(500, 'Depth parameter must be a number')
    depth = Number(depthParam)
  }
  if (ex.params.has('jsonp')) {
    return ex.jetty(403, 'jsonp forbidden; implement jenkins.security.SecureRequester')
  }
  let value: unknown
  if (treeParam !== undefined) {
    let tree
    try {
      tree = parseTree(treeParam)
    } catch (err) {
      if (err instanceof TreeSyntaxError) throw new Oops(500, err.message)
      throw err
    }
    // `tree` overrides depth and ignores visibility: build deep enough, then prune.
    value = pruneTree(build(treeDepth(tree) + 1), tree)
  } else {
    value = build(depth)
  }
  ex.res.writeHead(200, {
    'Content-Type': 'application/json;charset=UTF-8',
    ...apiHeaders(ex)
  })
  ex.res.end(toJson(value, ex.params.has('pretty')))
}
