/**
 * Stapler-like URL binding: the root, crumb issuer, whoAmI, the queue, items
 * (`job/<name>` per level), builds and their console. Runs after the
 * authentication and crumb filters of server.ts.
 */
import { Readable } from 'node:stream'
import { crlf } from './console.js'
import type { Exchange } from './exchange.js'
import {
  buildJson,
  defaultValue,
  itemJson,
  itemPath,
  queueItemJson,
  rootJson,
  type JsonContext
} from './json.js'
import { toJson } from './json-writer.js'
import {
  isJob,
  PERMALINKS,
  resolvePermalink,
  type Build,
  type JenkinsModel,
  type Permalink
} from './model.js'
import {
  accessDeniedPage,
  layoutPage,
  loginRequiredPage,
  notFoundPage,
  oopsPage,
  parametersFormPage,
  requiresPostPage
} from './pages.js'
import { IMPLIED_BY, PERMISSION_ID, type Identity } from './security.js'
import { parseTree, pruneTree, treeDepth, TreeSyntaxError } from './tree.js'
import type { Cause, JobState, ParameterValueState, Permission, RequestKind } from './types.js'

/** Thrown inside a handler to answer through /oops (an uncaught exception in Jenkins). */
class Oops extends Error {
  constructor(
    readonly status: number,
    message: string
  ) {
    super(message)
  }
}

const BUILD_ACTIONS = new Set(['stop', 'term', 'kill'])

function walkItems(
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

/** The request log's `kind`, from the path alone (faults are aimed by it). */
export function classify(model: JenkinsModel, segments: string[]): RequestKind {
  const [first, second] = segments
  if (first === 'crumbIssuer') return 'crumb'
  if (first === 'queue') return second === 'cancelItem' ? 'cancel' : 'queue'
  if (first === 'api') return 'list'
  if (first !== 'job' && first !== 'view') return 'other'
  const walked = walkItems(model, segments)
  const rest = walked?.rest ?? segments.slice(segments.lastIndexOf('job') + 2)
  const [r0, r1] = rest
  if (r0 === 'build' || r0 === 'buildWithParameters') return 'trigger'
  if (r0 === 'disable' || r0 === 'enable') return 'disable'
  if (r0 === undefined || r0 === 'api') {
    return walked && !isJob(walked.item) ? 'list' : 'job'
  }
  if (r1 !== undefined && BUILD_ACTIONS.has(r1)) return 'stop'
  if (r1 === 'logText' || r1 === 'consoleText') return 'log'
  return 'build'
}

// ---- headers and pages ----

function jenkinsHeaders(ex: Exchange): Record<string, string> {
  return { 'X-Jenkins': ex.ctx.version, 'X-Jenkins-Session': ex.ctx.instanceSession }
}

function apiHeaders(ex: Exchange): Record<string, string> {
  return {
    ...jenkinsHeaders(ex),
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'deny'
  }
}

function sessionCookie(ex: Exchange): Record<string, string> {
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

function sendLayout(
  ex: Exchange,
  status: number,
  html: string,
  extra: Record<string, string> = {}
) {
  ex.res.writeHead(status, { ...layoutHeaders(ex), ...extra })
  ex.res.end(html)
}

function notFound(ex: Exchange): void {
  sendLayout(ex, 404, notFoundPage())
}

function requirePost(ex: Exchange): boolean {
  if (ex.method === 'POST') return true
  sendLayout(ex, 405, requiresPostPage(), { Allow: 'POST' })
  return false
}

/** Denies with the login page for anonymous callers (2.2) or accessDenied for users (2.3). */
function deny(ex: Exchange, permission: Permission): void {
  if (ex.identity.anonymous) {
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
    return
  }
  ex.res.writeHead(403, {
    ...layoutHeaders(ex),
    'X-You-Are-Authenticated-As': ex.identity.name,
    'X-You-Are-In-Group-Disabled':
      'JENKINS-39402: use -Dhudson.security.AccessDeniedException2.REPORT_GROUP_HEADERS=true or use /whoAmI to diagnose',
    'X-Required-Permission': PERMISSION_ID[permission],
    'X-Permission-Implied-By': IMPLIED_BY[permission]
  } as unknown as Record<string, string>)
  ex.res.end(accessDeniedPage(ex.identity.name, PERMISSION_ID[permission]))
}

function can(ex: Exchange, permission: Permission): boolean {
  return ex.identity.permissions.has(permission) || ex.identity.permissions.has('admin')
}

/** Absolute URL on the address the client used (X-Forwarded-* honoured), for Location headers. */
function requestBase(ex: Exchange): string {
  const forwardedProto = String(ex.req.headers['x-forwarded-proto'] ?? '')
    .split(',')[0]
    ?.trim()
  const forwardedHost = String(ex.req.headers['x-forwarded-host'] ?? '')
    .split(',')[0]
    ?.trim()
  const scheme = forwardedProto || (ex.ctx.tls ? 'https' : 'http')
  const host = forwardedHost || ex.req.headers.host || '127.0.0.1'
  return `${scheme}://${host}${ex.ctx.contextPath}`
}

function redirect(ex: Exchange, status: number, location: string): void {
  ex.res.writeHead(status, { Location: location, 'Content-Length': '0' })
  ex.res.end()
}

/** api/json with tree, depth and pretty (jenkins-api.md 5.5). */
function sendApiJson(ex: Exchange, build: (depth: number) => unknown): void {
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

// ---- dispatch ----

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

export async function route(ex: Exchange): Promise<void> {
  try {
    await dispatch(ex)
  } catch (err) {
    if (ex.res.headersSent) {
      ex.res.destroy()
      return
    }
    const status = err instanceof Oops ? err.status : 500
    sendLayout(ex, status, oopsPage(err instanceof Error ? err.message : String(err)))
  }
}

async function dispatch(ex: Exchange): Promise<void> {
  const s = ex.segments
  const first = s[0]
  if (first === undefined || !ALWAYS_READABLE.has(first)) {
    if (!can(ex, 'read')) return deny(ex, 'read')
  }
  if (first === undefined) return sendLayout(ex, 200, layoutPage('Dashboard', '<h1>Dashboard</h1>'))
  if (first === 'login') return sendLayout(ex, 200, layoutPage('Sign in', '<h1>Sign in</h1>'))
  if (first === 'whoAmI') return whoAmI(ex)
  if (first === 'api' && s.length === 2 && s[1] === 'json') {
    return sendApiJson(ex, depth => rootJson(jsonCtx(ex), depth))
  }
  if (first === 'crumbIssuer') return crumbIssuer(ex)
  if (first === 'queue') return queue(ex)
  if (first === 'job' || first === 'view') return item(ex)
  return notFound(ex)
}

function jsonCtx(ex: Exchange): JsonContext {
  return ex.ctx.json
}

function whoAmI(ex: Exchange): void {
  const rest = ex.segments.slice(1)
  if (rest.length === 0) return sendLayout(ex, 200, layoutPage('Who Am I', '<h1>Who Am I?</h1>'))
  if (rest[0] !== 'api' || rest[1] !== 'json') return notFound(ex)
  const id = ex.identity
  sendApiJson(ex, () => ({
    _class: 'hudson.security.WhoAmI',
    anonymous: id.anonymous,
    authenticated: true,
    authorities: id.anonymous ? ['anonymous'] : ['authenticated'],
    name: id.name
  }))
}

// ---- crumb issuer (jenkins-api.md 1) ----

const CRUMB_TEXT_XPATHS = new Set([
  '/*/crumbRequestField/text()',
  '/*/crumb/text()',
  'concat(//crumbRequestField,":",//crumb)',
  "concat(//crumbRequestField,'=',//crumb)"
])

function crumbIssuer(ex: Exchange): void {
  // With CSRF protection off there is no crumb issuer: Stapler finds nothing (404).
  if (!ex.ctx.csrf) return notFound(ex)
  const rest = ex.segments.slice(1)
  if (rest[0] !== 'api' || rest.length !== 2) return notFound(ex)
  // Issuing a crumb calls req.getSession(): the answer sets the session cookie.
  const cookie = sessionCookie(ex)
  const field = ex.ctx.crumbField
  const crumb = ex.ctx.sessions.crumb(ex.identity.name, ex.sessionId ?? '')
  ex.ctx.sessions.issued.push(crumb)
  if (rest[1] === 'json') {
    ex.res.setHeader('Set-Cookie', cookie['Set-Cookie'] ?? [])
    if (!cookie['Set-Cookie']) ex.res.removeHeader('Set-Cookie')
    return sendApiJson(ex, () => ({
      _class: 'hudson.security.csrf.DefaultCrumbIssuer',
      crumb,
      crumbRequestField: field
    }))
  }
  if (rest[1] !== 'xml') return notFound(ex)
  const xpath = ex.params.get('xpath')
  const send = (status: number, type: string, body: string): void => {
    ex.res.writeHead(status, { 'Content-Type': type, ...apiHeaders(ex), ...cookie })
    ex.res.end(body)
  }
  if (xpath === undefined) {
    return send(
      200,
      'application/xml;charset=UTF-8',
      `<defaultCrumbIssuer _class="hudson.security.csrf.DefaultCrumbIssuer"><crumb>${crumb}</crumb><crumbRequestField>${field}</crumbRequestField></defaultCrumbIssuer>`
    )
  }
  if (CRUMB_TEXT_XPATHS.has(xpath)) {
    let text: string
    if (xpath === '/*/crumbRequestField/text()') text = field
    else if (xpath === '/*/crumb/text()') text = crumb
    else if (xpath.includes('":"')) text = `${field}:${crumb}`
    // The '=' form only works when the field starts with '.' or contains '-'.
    else if (field.startsWith('.') || field.includes('-')) text = `${field}=${crumb}`
    else text = ''
    if (text !== '') return send(200, 'text/plain;charset=UTF-8', text)
  }
  if (xpath === '//crumb' || xpath === '/*/crumb') {
    return send(200, 'application/xml;charset=UTF-8', `<crumb>${crumb}</crumb>`)
  }
  if (xpath === '//crumbRequestField' || xpath === '/*/crumbRequestField') {
    return send(
      200,
      'application/xml;charset=UTF-8',
      `<crumbRequestField>${field}</crumbRequestField>`
    )
  }
  if (/text\(\)|^(concat|string|number|count|boolean|name|local-name)\(/.test(xpath)) {
    return ex.jetty(
      403,
      'primitive XPath result sets forbidden; implement jenkins.security.SecureRequester'
    )
  }
  send(404, 'text/plain;charset=UTF-8', `XPath ${xpath} didn’t match`)
}

// ---- queue (jenkins-api.md 4) ----

function queue(ex: Exchange): void {
  const rest = ex.segments.slice(1)
  const model = ex.ctx.model
  if (rest[0] === 'cancelItem' && rest.length === 1) return cancelItem(ex)
  if (rest[0] === 'api' && rest[1] === 'json' && rest.length === 2) {
    return sendApiJson(ex, depth => ({
      _class: 'hudson.model.Queue',
      discoverableItems: [],
      items: model.queue
        .filter(i => i.state !== 'left')
        .map(i => queueItemJson(jsonCtx(ex), i, 1, Math.max(depth, 1)))
    }))
  }
  if (rest[0] !== 'item' || rest[1] === undefined || !/^\d+$/.test(rest[1])) return notFound(ex)
  const id = Number(rest[1])
  const found = model.queueItem(id)
  if (!found) return notFound(ex)
  ex.entry.job = found.job.fullName
  const tail = rest.slice(2)
  if (tail.length === 0) {
    ex.res.writeHead(200, { 'Content-Type': 'text/plain;charset=UTF-8' })
    ex.res.end(
      `Queue item exists. For details check, for example, ${ex.ctx.contextPath}/queue/item/${id}/api/json?tree=cancelled,executable[url]`
    )
    return
  }
  if (tail[0] === 'api' && tail[1] === 'json' && tail.length === 2) {
    return sendApiJson(ex, depth => queueItemJson(jsonCtx(ex), found, 0, depth))
  }
  notFound(ex)
}

function cancelItem(ex: Exchange): void {
  if (!requirePost(ex)) return
  const idText = ex.params.get('id') ?? ''
  if (!/^\d+$/.test(idText)) throw new Oops(404, `Provided id ${idText} not found`)
  const item = ex.ctx.model.queueItem(Number(idText))
  if (!item) throw new Oops(404, `Provided id ${idText} not found`)
  ex.entry.job = item.job.fullName
  if (!can(ex, 'cancel')) {
    throw new Oops(422, `${ex.identity.name} does not have permission to cancel`)
  }
  if (!ex.ctx.model.cancel(item)) throw new Oops(500, `Could not cancel run for id ${idText}`)
  ex.res.writeHead(204)
  ex.res.end()
}

// ---- items ----

async function item(ex: Exchange): Promise<void> {
  const walked = walkItems(ex.ctx.model, ex.segments)
  if (!walked) return notFound(ex)
  const { item: target, rest } = walked
  if (target === ex.ctx.model.root) return notFound(ex)
  ex.entry.job = target.fullName
  const [r0, r1] = rest
  if (r0 === undefined) {
    return sendLayout(ex, 200, layoutPage(target.fullName, `<h1>${target.displayName}</h1>`))
  }
  if (r0 === 'api' && r1 === 'json' && rest.length === 2) {
    return sendApiJson(ex, depth => itemJson(jsonCtx(ex), target, 0, depth))
  }
  if (!isJob(target)) {
    if (target.type === 'multibranch' && r0 === 'build' && rest.length === 1) {
      // ComputedFolder.doBuild schedules a scan and redirects back (jenkins-api.md 3.8).
      if (!requirePost(ex)) return
      if (!can(ex, 'build')) return deny(ex, 'build')
      return redirect(ex, 302, refererOr(ex, requestBase(ex) + '/' + itemPath(target)))
    }
    return notFound(ex)
  }
  if (rest.length === 1) {
    switch (r0) {
      case 'build':
        return triggerBuild(ex, target)
      case 'buildWithParameters':
        return triggerWithParameters(ex, target)
      case 'disable':
      case 'enable':
        return setDisabled(ex, target, r0 === 'disable')
    }
  }
  if (r0 === 'api' || r0 === undefined) return notFound(ex)
  const build = findBuild(target, r0)
  if (!build) return notFound(ex)
  return buildRoute(ex, build, rest.slice(1))
}

function findBuild(job: JobState, token: string): Build | undefined {
  if (/^\d+$/.test(token)) {
    return job.builds.find(b => b.number === Number(token)) as Build | undefined
  }
  if ((PERMALINKS as readonly string[]).includes(token)) {
    return resolvePermalink(job, token as Permalink)
  }
  return undefined
}

function refererOr(ex: Exchange, fallback: string): string {
  const referer = ex.req.headers.referer
  return typeof referer === 'string' && referer !== '' ? referer : fallback
}

function setDisabled(ex: Exchange, job: JobState, disabled: boolean): void {
  if (!requirePost(ex)) return
  if (!can(ex, 'configure')) return deny(ex, 'configure')
  ex.ctx.model.setDisabled(job, disabled)
  redirect(ex, 302, `${requestBase(ex)}/${itemPath(job)}`)
}

// ---- triggering (jenkins-api.md 3) ----

function causeFor(identity: Identity): Cause {
  return {
    _class: 'hudson.model.Cause$UserIdCause',
    shortDescription: `Started by user ${identity.name}`,
    userId: identity.anonymous ? null : identity.name,
    userName: identity.name
  }
}

/** TimeDuration.fromString: a bare number is ms, `N sec(s)` is seconds; else an exception. */
function quietPeriod(ex: Exchange, job: JobState): number {
  const delay = ex.params.get('delay')
  if (delay === undefined) return ex.ctx.model.quietPeriodSec(job)
  let text = delay.trim()
  let unit = 1
  if (text.endsWith('sec') || text.endsWith('secs')) {
    text = text.slice(0, text.lastIndexOf('sec')).trim()
    unit = 1000
  }
  if (!/^[+-]?\d+$/.test(text)) throw new Oops(500, `Invalid time duration value: ${delay}`)
  return Math.trunc((Number(text) * unit) / 1000)
}

function queueLocation(ex: Exchange, id: number): string {
  return `${requestBase(ex)}/queue/item/${id}/`
}

function notBuildable(ex: Exchange, job: JobState): void {
  ex.jetty(409, `${job.fullName} is not buildable`)
}

function triggerBuild(ex: Exchange, job: JobState): void {
  const model = ex.ctx.model
  // 409 comes first, even for GET (ParameterizedJobMixInTest).
  if (!model.isBuildable(job)) return notBuildable(ex, job)
  const parameterized = job.parameters.length > 0
  if (parameterized && ex.method !== 'POST') {
    return sendLayout(ex, 405, parametersFormPage(job.fullName))
  }
  if (!can(ex, 'build')) return deny(ex, 'build')
  if (!requirePost(ex)) return
  if (parameterized) return triggerWithJsonForm(ex, job)
  const { item } = model.schedule(job, [], [causeFor(ex.identity)], quietPeriod(ex, job))
  // A merged /build answers the same 201 and Location as a new one (JENKINS-66105 TODO).
  redirect(ex, 201, queueLocation(ex, item.id))
}

/** The `json` form of /build on a parameterized job (jenkins-api.md 3.3, 3.4). */
function triggerWithJsonForm(ex: Exchange, job: JobState): void {
  const json = ex.params.get('json')
  if (json === undefined) {
    return ex.jetty(
      400,
      ex.params.size === 0 ? 'Nothing is submitted' : 'This page expects a form submission'
    )
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(json)
  } catch {
    throw new Oops(500, `Malformed JSON: ${json}`)
  }
  const raw = (parsed as { parameter?: unknown })?.parameter
  const list = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]
  const values: ParameterValueState[] = []
  for (const entry of list as Array<{ name?: unknown; value?: unknown }>) {
    const name = String(entry?.name ?? '')
    const def = job.parameters.find(d => d.name === name)
    if (!def) throw new Oops(500, `No such parameter definition: ${name}`)
    values.push(parameterValue(def, [String(entry.value ?? '')]))
  }
  const { item, merged } = ex.ctx.model.schedule(
    job,
    values,
    [causeFor(ex.identity)],
    quietPeriod(ex, job)
  )
  const jobUrl = `${requestBase(ex)}/${itemPath(job)}`
  // Queue.schedule returns null when merged: 302 to the job. Otherwise the 201 Location
  // appears to be the job URL on this path (jenkins-api.md 3.4, UNSURE upstream).
  void item
  redirect(ex, merged ? 302 : 201, jobUrl)
}

function parameterValue(
  def: JobState['parameters'][number],
  values: string[]
): ParameterValueState {
  const type = def.type ?? 'string'
  if (values.length === 0) return { name: def.name, type, value: defaultValue(def) }
  if (values.length !== 1) {
    throw new Oops(500, `Illegal number of parameter values for ${def.name}: ${values.length}`)
  }
  const value = values[0] ?? ''
  if (type === 'boolean') return { name: def.name, type, value: value.toLowerCase() === 'true' }
  if (type === 'choice' && !(def.choices ?? []).includes(value)) {
    throw new Oops(500, `Illegal choice for parameter ${def.name}: ${value}`)
  }
  return { name: def.name, type, value }
}

function triggerWithParameters(ex: Exchange, job: JobState): void {
  const model = ex.ctx.model
  if (!can(ex, 'build')) return deny(ex, 'build')
  if (!requirePost(ex)) return
  if (!model.isBuildable(job)) return notBuildable(ex, job)
  if (job.parameters.length === 0) return ex.jetty(400, `${job.fullName} is not parameterized`)
  // Defined parameters only, by exact name; missing ones get their default.
  const values = job.parameters.map(def => parameterValue(def, ex.params.all(def.name)))
  const { item, merged } = model.schedule(
    job,
    values,
    [causeFor(ex.identity)],
    quietPeriod(ex, job)
  )
  redirect(ex, merged ? 303 : 201, queueLocation(ex, item.id))
}

// ---- builds (jenkins-api.md 5, 6, 7) ----

function buildRoute(ex: Exchange, build: Build, rest: string[]): void {
  const [r0, r1] = rest
  if (r0 === undefined) {
    return sendLayout(ex, 200, layoutPage(`#${build.number}`, `<h1>Build #${build.number}</h1>`))
  }
  if (r0 === 'api' && r1 === 'json' && rest.length === 2) {
    return sendApiJson(ex, depth => buildJson(jsonCtx(ex), build, 0, depth))
  }
  if (r0 === 'logText' && r1 === 'progressiveText' && rest.length === 2) {
    return progressiveText(ex, build)
  }
  if (r0 === 'consoleText' && rest.length === 1) {
    ex.res.writeHead(200, { 'Content-Type': 'text/plain;charset=UTF-8' })
    Readable.from(build.console.read(0, build.console.length, true)).pipe(ex.res)
    return
  }
  if (rest.length === 1 && r0 !== undefined && BUILD_ACTIONS.has(r0)) {
    // term and kill are WorkflowRun web methods only.
    if (r0 !== 'stop' && build.job.type !== 'pipeline') return notFound(ex)
    if (!requirePost(ex)) return
    if (!can(ex, 'cancel')) return deny(ex, 'cancel')
    ex.ctx.model.stop(build, r0 as 'stop' | 'term' | 'kill', ex.identity.name)
    const buildPage = `${requestBase(ex)}/${itemPath(build.job)}${build.number}/`
    return redirect(ex, 302, r0 === 'stop' ? refererOr(ex, buildPage) : buildPage)
  }
  notFound(ex)
}

function progressiveText(ex: Exchange, build: Build): void {
  const length = build.console.length
  const startParam = ex.params.get('start')
  let start = 0
  if (startParam !== undefined && startParam !== '') {
    if (!/^\d+$/.test(startParam.trim())) {
      throw new Oops(500, `For input string: "${startParam}"`)
    }
    start = Number(startParam)
  }
  // A start beyond the log restarts from 0 (LargeText).
  if (start > length) start = 0
  const headers: Record<string, string> = {
    'Content-Type': 'text/plain;charset=UTF-8',
    'X-Text-Size': String(length)
  }
  if (build.building) headers['X-More-Data'] = 'true'
  ex.res.writeHead(200, headers)
  Readable.from(crlf(build.console.read(start, length))).pipe(ex.res)
}
