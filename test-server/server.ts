/**
 * The Jenkins-compatible HTTP server: request lifecycle in Jenkins' filter
 * order (jenkins-api.md 0), faults in front of it like a flaky proxy, and the
 * Stapler-like URL binding of routes/.
 */
import { randomBytes } from 'node:crypto'
import http, { type IncomingMessage, type ServerResponse } from 'node:http'
import https from 'node:https'
import type { AddressInfo, Socket } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { AimedFaults, applyEffect } from './faults/aimed-faults.js'
import type { Exchange, ServerContext } from './http/exchange.js'
import { answerByProxy } from './http/auth-proxy.js'
import { FaultInjector } from './faults/faults.js'
import { BadForwardedHeader, forwardedView, type ForwardedView } from './http/forwarded.js'
import { Params, readBody } from './http/http-util.js'
import type { Build } from './model/build.js'
import { jenkinsTime } from './http/json.js'
import { JenkinsModel } from './model/model.js'
import { jettyErrorPage, reason } from './http/pages.js'
import { addressedJob, classify, route } from './routes/index.js'
import { Security, Sessions } from './model/security.js'
import type {
  AimedFault,
  AimedFaultHandle,
  FaultSpec,
  HostileSpec,
  JobSpec,
  RequestLogEntry,
  Result,
  ServerOptions,
  UserSpec
} from './types.js'
import type { BuildState, QueueItemState, TestJenkins } from './model/state.js'
import { timerTriggerCause } from './model/causes.js'
import { defaultValues } from './model/parameters.js'
import { UploadStore, isMultipart } from './http/uploads.js'

export const DEFAULT_USERS: UserSpec[] = [
  {
    name: 'admin',
    password: 'admin',
    apiToken: '11d0f4f1a2b3c4d5e6f708192a3b4c5d6e',
    permissions: ['admin']
  }
]

function normaliseContext(path: string | undefined): string {
  const trimmed = (path ?? '').replace(/\/+$/, '')
  if (trimmed === '') return ''
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`
}

class JenkinsServer implements TestJenkins {
  url = ''
  readonly requests: RequestLogEntry[] = []
  readonly users: UserSpec[]
  readonly ctx: ServerContext
  private readonly server: http.Server
  private readonly sockets = new Set<Socket>()
  private faults: FaultInjector | undefined
  private readonly aimed = new AimedFaults()
  private faultTimer: NodeJS.Timeout | undefined
  private restarting: Promise<void> | undefined
  private port: number
  private readonly host: string
  private closed = false

  constructor(private readonly options: ServerOptions) {
    this.users = options.users ?? DEFAULT_USERS
    this.port = options.port ?? 0
    this.host = options.host ?? '127.0.0.1'
    const model = new JenkinsModel({
      executors: options.executors ?? 2,
      quietPeriodSec: options.quietPeriodSec ?? 5,
      leftItemTtlMs: options.leftItemTtlMs ?? 5 * 60_000,
      executableDelayMs: options.executableDelayMs ?? 0,
      endGap: options.endGap,
      seed: options.seed
    })
    for (const [name, spec] of Object.entries(options.jobs ?? {})) model.addJob(name, spec)
    const csrf = options.csrf ?? true
    this.ctx = {
      contextPath: normaliseContext(options.contextPath),
      csrf,
      crumbField: options.crumbField ?? 'Jenkins-Crumb',
      version: options.version ?? '2.541.1',
      instanceSession: randomBytes(4).toString('hex'),
      tls: options.tls !== undefined,
      model,
      sessions: new Sessions(),
      security: new Security(this.users, options.anonymousRead ?? false),
      json: {
        rootUrl: '',
        model,
        executors: model.executors,
        useCrumbs: csrf,
        hostile: options.hostile,
        clockSkewMs: options.clockSkewMs ?? 0
      },
      stageView: options.stageView ?? true,
      showStackTrace: options.showStackTrace ?? false,
      executorsHidden: options.executorsHidden ?? false,
      uploads: new UploadStore()
    }
    const handler = (req: IncomingMessage, res: ServerResponse): void => {
      this.handle(req, res).catch(() => {
        if (!res.headersSent) {
          res.statusCode = 500
          res.end()
        } else res.destroy()
      })
    }
    this.server = options.tls
      ? https.createServer({ key: options.tls.key, cert: options.tls.cert }, handler)
      : http.createServer(handler)
    this.server.on('connection', socket => {
      this.sockets.add(socket)
      socket.on('close', () => this.sockets.delete(socket))
    })
    model.onBuildStart = build => this.onBuildStart(build)
  }

  get state(): JenkinsModel {
    return this.ctx.model
  }

  get issuedCrumbs(): readonly string[] {
    return this.ctx.sessions.issued
  }

  get issuedSessions(): readonly string[] {
    return this.ctx.sessions.created
  }

  get cookieName(): string {
    return this.ctx.sessions.cookieName
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error): void => reject(err)
      this.server.once('error', onError)
      this.server.listen(this.port, this.host, () => {
        this.server.off('error', onError)
        resolve()
      })
    })
    const address = this.server.address() as AddressInfo
    this.port = address.port
    const scheme = this.ctx.tls ? 'https' : 'http'
    // An IPv6 address goes in brackets in a URL (RFC 3986 3.2.2).
    const host = this.host.includes(':') ? `[${this.host}]` : this.host
    this.url = `${scheme}://${host}:${this.port}${this.ctx.contextPath}`
    const root = this.options.rootUrl ?? this.url
    this.ctx.json.rootUrl = root.endsWith('/') ? root : `${root}/`
  }

  private async stopListening(): Promise<void> {
    const closed = new Promise<void>(resolve => this.server.close(() => resolve()))
    for (const socket of this.sockets) socket.destroy()
    await closed
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    if (this.faultTimer) clearTimeout(this.faultTimer)
    this.ctx.model.close()
    this.ctx.uploads.close()
    if (this.restarting) await this.restarting.catch(() => undefined)
    if (this.server.listening) await this.stopListening()
  }

  restart(): Promise<void> {
    if (this.restarting) return this.restarting
    this.restarting = (async () => {
      // A new process: sessions, cookie name, crumb salt and the instance id change;
      // the LeftItem cache is gone (jenkins-api.md 4); jobs, queue and builds stay.
      this.ctx.sessions.renew()
      this.ctx.instanceSession = randomBytes(4).toString('hex')
      this.ctx.model.forgetLeftItems()
      await this.stopListening()
      await sleep(this.options.restartDowntimeMs ?? 200)
      if (!this.closed) await this.listen()
    })().finally(() => {
      this.restarting = undefined
    })
    return this.restarting
  }

  setFaults(spec: FaultSpec | undefined): void {
    if (this.faultTimer) clearTimeout(this.faultTimer)
    this.faultTimer = undefined
    this.faults = spec ? new FaultInjector(spec) : undefined
    if (spec?.restartAfterMs !== undefined) {
      this.faultTimer = setTimeout(() => void this.restart(), spec.restartAfterMs)
    }
    this.restartArmed = spec?.restartDuringBuild !== undefined
  }

  setHostile(spec: HostileSpec | undefined): void {
    this.ctx.json.hostile = spec
  }

  private restartArmed = false

  /** The context for one request: with HostileSpec.echoRequest, its JSON quotes the request's cookie and its session's crumb. */
  private echoing(
    req: IncomingMessage,
    user: string,
    sessionId: string | undefined
  ): ServerContext {
    if (!this.ctx.json.hostile?.echoRequest) return this.ctx
    const parts = [req.headers.cookie ?? '(no cookie)']
    if (sessionId) parts.push(`crumb ${this.ctx.sessions.crumb(user, sessionId)}`)
    return { ...this.ctx, json: { ...this.ctx.json, echo: parts.join(' ') } }
  }

  aim(fault: AimedFault): AimedFaultHandle {
    return this.aimed.aim(fault)
  }

  private onBuildStart(build: Build): void {
    const aim = this.faults?.spec.restartDuringBuild
    if (!this.restartArmed || !aim) return
    if (aim.job !== undefined && aim.job.toLowerCase() !== build.job.fullName.toLowerCase()) return
    this.restartArmed = false
    const t = setTimeout(() => void this.restart(), aim.afterMs)
    t.unref()
  }

  builds(fullName: string): BuildState[] {
    return [...(this.ctx.model.findJob(fullName)?.builds ?? [])]
  }

  triggerCount(fullName?: string): number {
    return this.requests.filter(
      r =>
        r.kind === 'trigger' &&
        [r.status, r.actedStatus].some(status => status === 201 || status === 303) &&
        (fullName === undefined || r.job?.toLowerCase() === fullName.toLowerCase())
    ).length
  }

  addJob(fullName: string, spec: JobSpec): void {
    this.ctx.model.addJob(fullName, spec)
  }

  timer(fullName: string): QueueItemState {
    const job = this.ctx.model.findJob(fullName)
    if (!job) throw new Error(`timer: no job ${fullName}`)
    // TimerTrigger.run: job.scheduleBuild(0, new TimerTriggerCause()), every parameter at its default.
    return this.ctx.model.schedule(job, defaultValues(job.parameters), [timerTriggerCause()], 0)
      .item
  }

  addHistory(fullName: string, builds: Array<{ durationMs: number; result?: Result }>): void {
    const job = this.ctx.model.findJob(fullName)
    if (!job) throw new Error(`addHistory: no job ${fullName}`)
    this.ctx.model.addHistory(job, builds)
  }

  addHead(project: string, branch: string, spec: JobSpec = {}): void {
    const item = this.ctx.model.findJob(project)
    if (!item) throw new Error(`No project ${project}`)
    this.ctx.model.addHead(item, branch, spec)
  }

  appendConsole(fullName: string, number: number, line: string): void {
    const build = this.builds(fullName).find(b => b.number === number)
    if (!build) throw new Error(`No build ${fullName} #${number}`)
    this.ctx.model.appendConsole(build as Build, line)
  }

  // ---- one request ----

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawUrl = req.url ?? '/'
    const q = rawUrl.indexOf('?')
    const rawPath = q < 0 ? rawUrl : rawUrl.slice(0, q)
    const rawQuery = q < 0 ? '' : rawUrl.slice(q + 1)
    const entry: RequestLogEntry = {
      method: req.method ?? 'GET',
      path: rawPath,
      query: rawQuery,
      status: 0,
      user: null,
      time: Date.now(),
      kind: 'other'
    }
    countBody(res, bytes => (entry.bytes = (entry.bytes ?? 0) + bytes))
    let logged = false
    const log = (): void => {
      if (logged) return
      logged = true
      this.requests.push(entry)
      this.options.onRequest?.(entry)
    }
    res.on('finish', () => {
      entry.status = res.statusCode
      entry.finished = Date.now()
      log()
    })
    res.on('close', log)
    // Jetty's Date header is Jenkins' clock.
    if (this.ctx.json.clockSkewMs !== 0) {
      res.sendDate = false
      res.setHeader('Date', new Date(jenkinsTime(this.ctx.json, Date.now())).toUTCString())
    }

    const ctxPath = this.ctx.contextPath
    const inContext = ctxPath === '' || rawPath === ctxPath || rawPath.startsWith(`${ctxPath}/`)
    const rest = inContext ? rawPath.slice(ctxPath.length) : ''
    // Stapler splits the raw path on '/' and '\', skips empty tokens, then decodes each.
    let segments: string[] | undefined
    try {
      segments = rest
        .split(/[/\\]/)
        .filter(s => s !== '')
        .map(s => decodeURIComponent(s))
    } catch {
      segments = undefined
    }
    entry.kind = segments ? classify(this.ctx.model, segments) : 'other'
    const job = segments ? addressedJob(this.ctx.model, segments, rawQuery) : undefined

    // Aimed faults first: a proxy or network in front of Jenkins, for one test's requests.
    const effect = this.aimed.take(entry.kind, job, req.method ?? 'GET', rawQuery)
    if (effect) {
      entry.job = job
      if (applyEffect(effect, req, res, entry)) return
    }

    // The auth proxy stands in front of everything, Jenkins and its faults alike.
    const proxy = this.options.authProxy
    if (proxy && answerByProxy(proxy, req, res, rawPath, this.ctx.tls)) {
      entry.fault = 'auth-proxy'
      return
    }

    const fault = this.faults?.decide(entry.kind)
    if (fault) {
      if (fault.latencyMs > 0) await sleep(fault.latencyMs)
      if (fault.action === 'drop') {
        entry.fault = 'drop'
        log()
        req.socket.destroy()
        return
      }
      if (fault.action === 'lose') loseAnswer(req, res, entry, fault.status)
      if (fault.action === 'error' && fault.status !== undefined) {
        entry.fault = 'error'
        const headers: Record<string, string> = { 'Content-Type': 'text/html' }
        if (fault.retryAfterSec !== undefined) headers['Retry-After'] = String(fault.retryAfterSec)
        res.writeHead(fault.status, headers)
        res.end(
          `<html><head><title>${fault.status} ${reason(fault.status)}</title></head><body><center><h1>${fault.status} ${reason(fault.status)}</h1></center></body></html>\n`
        )
        return
      }
    }

    const jetty = (status: number, message: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, {
        'Content-Type': 'text/html;charset=iso-8859-1',
        'Cache-Control': 'must-revalidate,no-cache,no-store',
        ...headers
      })
      res.end(jettyErrorPage(status, message, rawPath))
    }

    // Jetty's ForwardedRequestCustomizer runs before any filter; a bad header is a bad message.
    let forwarded: ForwardedView
    try {
      forwarded = forwardedView(req, this.ctx.tls)
    } catch (error) {
      if (!(error instanceof BadForwardedHeader)) throw error
      req.resume()
      return jetty(400, error.message)
    }
    // Outside the context path there is no Jenkins: Winstone's only handler
    // is the webapp (winstone HostConfiguration), so nothing handles the
    // request and Jetty answers its own 404, with no Jenkins header and no
    // servlet (Jetty 12 Server.handle). The root tells nothing either.
    if (!inContext) {
      res.writeHead(404, {
        'Content-Type': 'text/html;charset=iso-8859-1',
        'Cache-Control': 'must-revalidate,no-cache,no-store'
      })
      res.end(jettyErrorPage(404, 'Not Found', rawPath, null))
      return
    }
    // The context path itself: Jetty 12's ContextHandler answers 301 to it
    // plus '/', the query kept (handleMovedPermanently; Jetty 9/10, before
    // Jenkins 2.463, sent 302).
    if (rawPath === ctxPath && ctxPath !== '') {
      res.writeHead(301, { Location: `${ctxPath}/${q < 0 ? '' : '?' + rawQuery}` })
      res.end()
      return
    }
    // SuspiciousRequestFilter, the webapp's first filter: a raw ';' anywhere in the URI.
    if (rawUrl.includes(';')) return jetty(400, 'Semicolons are not allowed in the request URI')
    if (!segments) return jetty(400, 'Bad Request')

    const params = new Params()
    params.add(rawQuery)
    // A multipart body is left to the route: Stapler parses it lazily, after
    // the filters, and streams its files to disk (uploads.ts).
    if (req.method === 'POST' && !isMultipart(req)) {
      const body = await readBody(req)
      const type = String(req.headers['content-type'] ?? '')
      if (type.startsWith('application/x-www-form-urlencoded')) params.add(body.toString('utf8'))
    } else if (req.method !== 'POST') {
      req.resume()
    }

    // BasicHeaderProcessor: wrong credentials are refused before anything else looks.
    const auth = this.ctx.security.authenticate(req.headers.authorization)
    if (!auth.ok) {
      return jetty(401, 'Unauthorized', { 'WWW-Authenticate': 'Basic realm="Jenkins"' })
    }
    const identity = auth.identity
    entry.user = identity.name
    entry.auth = identity.anonymous ? 'anonymous' : identity.viaToken ? 'token' : 'password'

    const sessionId = this.ctx.sessions.find(req.headers.cookie)
    if (req.headers[this.ctx.crumbField.toLowerCase()] !== undefined) entry.crumbHeader = true
    // CrumbFilter: only POST; API-token requests are exempt even with a wrong crumb.
    if (req.method === 'POST' && this.ctx.csrf && !identity.viaToken) {
      entry.crumbChecked = true
      const header = req.headers[this.ctx.crumbField.toLowerCase()]
      const crumb = (Array.isArray(header) ? header[0] : header) ?? params.get(this.ctx.crumbField)
      if (!this.ctx.sessions.validCrumb(identity.name, sessionId, crumb)) {
        return jetty(403, 'No valid crumb was included in the request')
      }
    }

    const exchange: Exchange = {
      req,
      res,
      method: req.method ?? 'GET',
      rawPath,
      rawQuery,
      segments,
      params,
      identity,
      forwarded,
      sessionId,
      entry,
      ctx: this.echoing(req, identity.name, sessionId),
      jetty
    }
    await route(exchange)
  }
}

/**
 * Lets Jenkins handle the request, then loses its answer: the status is
 * recorded as `actedStatus`, and the client gets `status` (a proxy's error
 * page) or, without one, a connection closed with no answer.
 */
function loseAnswer(
  req: IncomingMessage,
  res: ServerResponse,
  entry: RequestLogEntry,
  status: number | undefined
): void {
  entry.fault = 'lost'
  const writeHead = res.writeHead.bind(res)
  const end = res.end.bind(res)
  res.writeHead = ((code: number) => {
    entry.actedStatus = code
    return res
  }) as typeof res.writeHead
  res.write = (() => true) as typeof res.write
  res.end = (() => {
    entry.actedStatus ??= res.statusCode
    if (status === undefined) {
      req.socket.destroy()
    } else {
      for (const name of res.getHeaderNames()) res.removeHeader(name)
      writeHead(status, { 'Content-Type': 'text/html' })
      end(`<html><head><title>${status} ${reason(status)}</title></head></html>\n`)
    }
    return res
  }) as typeof res.end
}

export async function startJenkins(options: ServerOptions = {}): Promise<TestJenkins> {
  const server = new JenkinsServer(options)
  await server.listen()
  if (options.faults) server.setFaults(options.faults)
  return server
}

/** Counts the body bytes handed to `res` (write and end), for the request log. */
function countBody(res: ServerResponse, add: (bytes: number) => void): void {
  const size = (chunk: unknown, encoding: unknown): number =>
    typeof chunk === 'string'
      ? Buffer.byteLength(
          chunk,
          typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'
        )
      : chunk instanceof Uint8Array
        ? chunk.byteLength
        : 0
  const write = res.write.bind(res) as (...args: unknown[]) => boolean
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse
  res.write = ((...args: unknown[]) => {
    add(size(args[0], args[1]))
    return write(...args)
  }) as typeof res.write
  res.end = ((...args: unknown[]) => {
    add(size(args[0], args[1]))
    return end(...args)
  }) as typeof res.end
}
