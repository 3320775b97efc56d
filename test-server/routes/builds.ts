/**
 * A build (`job/<name>/<number or permalink>/…`, jenkins-api.md 5, 6, 7): its
 * page and api/json, and the URL families below it in BUILD_ROUTES.
 */
import type { Exchange } from '../http/exchange.js'
import { buildJson, itemPath } from '../http/json.js'
import type { Build } from '../model/build.js'
import { PERMALINKS, resolvePermalink, type Permalink } from '../model/build.js'
import { layoutPage } from '../http/pages.js'
import type { RequestKind } from '../types.js'
import type { JobState } from '../model/state.js'
import { artifact } from './artifact.js'
import { consoleText, progressiveText } from './build-log.js'
import { input } from './input.js'
import { parameterFile } from './parameter-file.js'
import {
  at,
  can,
  deny,
  notFound,
  redirect,
  refererOr,
  requestBase,
  requirePost,
  sendApiJson,
  sendLayout,
  type Handler
} from './respond.js'
import { testReport } from './test-report.js'
import { wfapi } from './wfapi.js'

/** A URL family below a build (`<build>/<segment>/…`). */
interface BuildRoute {
  /** The request log's `kind` (faults are aimed by it). */
  kind: RequestKind
  handle: Handler<Build>
}

/** Families below a build, by their first segment. A new one is one entry here. */
const BUILD_ROUTES = new Map<string, BuildRoute>([
  ['logText', { kind: 'log', handle: at(['progressiveText'], progressiveText) }],
  ['consoleText', { kind: 'log', handle: at([], consoleText) }],
  ['stop', { kind: 'stop', handle: at([], (ex, build) => stopBuild(ex, build, 'stop')) }],
  ['term', { kind: 'stop', handle: at([], (ex, build) => stopBuild(ex, build, 'term')) }],
  ['kill', { kind: 'stop', handle: at([], (ex, build) => stopBuild(ex, build, 'kill')) }],
  ['testReport', { kind: 'tests', handle: testReport }],
  ['wfapi', { kind: 'stages', handle: wfapi }],
  ['input', { kind: 'input', handle: input }],
  ['artifact', { kind: 'artifact', handle: artifact }],
  ['parameters', { kind: 'parameters', handle: parameterFile }]
])

/** The request log's kind of `<build>/<segment>/…`, from the path alone. */
export function buildKind(segment: string | undefined): RequestKind {
  return (segment === undefined ? undefined : BUILD_ROUTES.get(segment)?.kind) ?? 'build'
}

/** A build by number or permalink (`lastBuild`, …). */
export function findBuild(job: JobState, token: string): Build | undefined {
  if (/^\d+$/.test(token)) {
    return job.builds.find(b => b.number === Number(token)) as Build | undefined
  }
  if ((PERMALINKS as readonly string[]).includes(token)) {
    return resolvePermalink(job, token as Permalink)
  }
  return undefined
}

export function buildRoute(ex: Exchange, build: Build, rest: string[]): void | Promise<void> {
  const [r0, ...tail] = rest
  if (r0 === undefined) {
    return sendLayout(ex, 200, layoutPage(`#${build.number}`, `<h1>Build #${build.number}</h1>`))
  }
  if (r0 === 'api') {
    if (tail.length !== 1 || tail[0] !== 'json') return notFound(ex)
    return sendApiJson(ex, depth => buildJson(ex.ctx.json, build, 0, depth))
  }
  const family = BUILD_ROUTES.get(r0)
  if (family) return family.handle(ex, build, tail)
  notFound(ex)
}

function stopBuild(ex: Exchange, build: Build, action: 'stop' | 'term' | 'kill'): void {
  // term and kill are WorkflowRun web methods only.
  if (action !== 'stop' && build.job.type !== 'pipeline') return notFound(ex)
  if (!requirePost(ex)) return
  if (!can(ex, 'cancel')) return deny(ex, 'cancel')
  ex.ctx.model.stop(build, action, ex.identity.name)
  const buildPage = `${requestBase(ex)}/${itemPath(build.job)}${build.number}/`
  return redirect(ex, 302, action === 'stop' ? refererOr(ex, buildPage) : buildPage)
}
