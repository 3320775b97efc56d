import http, {
  type Agent,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders
} from 'node:http'
import https from 'node:https'
import { readFileSync } from 'node:fs'
import tls from 'node:tls'
import type { Readable } from 'node:stream'
import { HttpClient } from '@actions/http-client'
import { CookieJar, type SerializedCookieJar } from 'tough-cookie'
import { JenkinsError } from './errors.js'
import { networkFailure } from './network-errors.js'
import type { UploadBody } from './multipart.js'
import type { ExchangeLimits } from './limits.js'
import type { RetryPolicy } from './retry.js'
import type { Logger } from '../../util/logger.js'
import { parseHttpUrl } from '../../util/http-url.js'
import { Redaction, redactingLogger } from '../../util/redaction.js'

/** How requests are sent and retried, and to whom; ClientOptions extends it. */
export interface RequestSettings {
  /** Base URL as validated by the inputs (http/https, no credentials); a trailing slash is tolerated. */
  url: string
  user?: string
  /** API token or password. */
  token?: string
  logger: Logger
  /**
   * Fires when the step is cancelled or times out (or an abort budget runs
   * out): every exchange in flight ends at once, body included, and none
   * starts after it (errors.ts Interrupted). Retry waits end with it too.
   */
  signal?: AbortSignal
  /** Epoch ms that no request, body or retry wait outlives (the step's timeout, or an abort budget's end). */
  deadline?: number
  /** Time for the response headers, and for an answer read whole (JSON, error pages) to its last byte, in ms (default 30000). */
  requestTimeoutMs?: number
  /** A streamed body (the console) fails when it brings fewer than `bytes` within `ms` of waiting (default 16 KiB in 30 s): a drip or a half-open connection. */
  stall?: { ms?: number; bytes?: number }
  /** Retry tuning (defaults suit production; tests shrink them). */
  retry?: Partial<RetryPolicy>
  /** The job's "Trigger builds remotely" token, sent as form field `token` with triggers. */
  jobToken?: string
  /** Extra `[name, value]` headers sent with every request to the origin of the base URL, and nowhere else. */
  headers?: ReadonlyArray<readonly [string, string]>
  /** PEM CA certificates trusted, besides Node's defaults, for this client's connections only. */
  ca?: readonly string[]
  /**
   * Tries of a request whose connection fails (refused, unreachable) before
   * Jenkins ever answered this client: the step's own client sets a few, so
   * that a wrong `url` or a Jenkins that is down fails within seconds. Once
   * Jenkins answered, the usual retries ride out a restart. Unset: no
   * difference (the abort and post clients talk to a server the step reached).
   */
  firstContactAttempts?: number
  /**
   * Told of each secret Jenkins hands the client (a crumb, a session cookie
   * value) the moment it arrives, before any message could quote it: the
   * step registers it with the runner's masker (core.setSecret), as it does
   * the token. The client redacts it from its own messages either way.
   */
  onSecret?: (value: string) => void
  /**
   * Another client's session with the same Jenkins (JenkinsClient.http.session()):
   * its cookies and, when known, its crumb, so that the abort's client sends
   * its stop at once instead of asking for a crumb first. A stale one is
   * rejected by Jenkins and replaced, as after a restart.
   */
  session?: JenkinsSession
}

/** A client's session: its cookies as tough-cookie serialises them, and its crumb once known (null: Jenkins has no crumb issuer). */
export interface JenkinsSession {
  cookies: SerializedCookieJar
  crumb?: Crumb | null
}

/** The CSRF crumb: the header name comes from the server (`crumbRequestField`), never a constant. */
export interface Crumb {
  field: string
  value: string
}

export interface Exchange {
  method: 'GET' | 'POST'
  url: string
  /** Bucket in requestCounts, e.g. 'job' or 'trigger'. */
  label: string
  /** application/x-www-form-urlencoded body of a POST. */
  form?: string
  /** A streamed body of a POST instead of `form` (multipart.ts), opened anew for each send. */
  upload?: UploadBody
  /** A GET follows same-origin redirects unless this is false (a probe reads the redirect itself). */
  follow?: boolean
  /** What bounds the exchange, redirects and body included; it ends it through its signal. */
  bounds: ExchangeLimits
  /**
   * A GET may follow a redirect to another origin, without credentials or
   * crumb (they only ever go to the configured server, see `once`). Jenkins
   * with a resource root URL redirects artifact downloads to that second
   * domain, with a token in the URL (DirectoryBrowserSupport.generateResponse,
   * ResourceDomainRootAction.getRedirectUrl).
   */
  crossOriginRedirects?: boolean
}

/** A response whose body has not been read yet. */
export class HttpResponse {
  constructor(
    readonly status: number,
    readonly headers: IncomingHttpHeaders,
    /** The URL that was asked for (after any redirect followed). */
    readonly url: string,
    /** The raw body stream: read it through text() or stream(), or discard() it. */
    readonly message: IncomingMessage,
    private readonly reader: ExchangeLimits
  ) {}

  header(name: string): string | undefined {
    const value = this.headers[name.toLowerCase()]
    return Array.isArray(value) ? value.join(', ') : value
  }

  get contentType(): string {
    return (this.header('content-type') ?? '').toLowerCase()
  }

  /** Reads the body as UTF-8; beyond `limit` bytes it keeps the start ('cut') or throws ('fail'). */
  text(limit: number = 1024 * 1024, overflow: 'cut' | 'fail' = 'cut'): Promise<string> {
    return this.reader.text(this.message, limit, overflow)
  }

  /** The body as a stream, still bounded (stall guard, deadline, cancellation). */
  stream(): Readable {
    return this.reader.stream(this.message)
  }

  /** Drops the body and its connection. */
  discard(): void {
    this.reader.discard(this.message)
  }
}

const USER_AGENT = 'jenkins-build-action'
const REDIRECTS = new Set([301, 302, 303, 307, 308])
const MAX_REDIRECTS = 5

/**
 * One HTTP exchange at a time with Jenkins: credentials, session cookies, the
 * crumb header, same-origin redirects for GETs, and network errors mapped
 * (network-errors.ts).
 * No retries here (see retry.ts), no status interpretation (responses.ts), no
 * timing (the exchange's bounds, limits.ts, end it through their signal).
 *
 * Requests go out through node:http(s) with @actions/http-client's agent for
 * the URL: that agent is what makes HTTP(S)_PROXY and NO_PROXY work (a CONNECT
 * tunnel through the proxy, loopback never proxied), and http-client itself
 * cannot be given an AbortSignal.
 */
export class Transport {
  /** The configured Jenkins URL without a trailing slash; every message that names the server names it. */
  readonly baseUrl: string
  readonly user: string | undefined
  /** HTTP requests sent, by operation ('job', 'trigger', 'queue', 'build', 'log', 'crumb', …) and 'total'. */
  readonly requestCounts: Record<string, number> = { total: 0 }
  /**
   * The client's redaction list (util/redaction.ts), over every secret the
   * transport knows. Operations also pass Jenkins text through it that the step prints
   * as a status (a queue `why`), since a proxy or plugin may echo the request.
   */
  readonly redact: (text: string) => string
  /** The caller's logger behind redaction: operations log through this one only. */
  readonly logger: Logger
  private readonly agents = new HttpClient(USER_AGENT, [], { keepAlive: true })
  private readonly jar: CookieJar
  private readonly origin: string
  private readonly authorization: string | undefined
  private readonly headers: RequestSettings['headers']
  /** The crumb sent with every POST once fetched (null: Jenkins has no crumb issuer); undefined while unknown. */
  private crumb: Crumb | null | undefined
  /** With ca-cert: Node's default CAs plus the given ones (trustWith); never process-wide. */
  private readonly secureContext: tls.SecureContext | undefined
  /** Adds a crumb or session cookie value Jenkins gave to the list, and tells RequestSettings.onSecret, before anything could print it. */
  private readonly secret: (value: string) => void

  constructor(options: RequestSettings) {
    // The `url` input checked it (inputs/input-values.ts parseBaseUrl); credentials never ride in it.
    const base = parseHttpUrl(
      options.url.trim(),
      'The Jenkins URL',
      'http(s)://host[:port][/context-path]'
    )
    this.origin = base.origin
    this.baseUrl = base.origin + base.pathname.replace(/\/+$/, '')
    this.user = options.user || undefined
    this.headers = options.headers
    // Preemptive Basic on every request: Jenkins never challenges anonymous
    // requests with a 401, so a handler waiting for one would never send
    // credentials (jenkins-api.md 2.1).
    this.authorization =
      this.user && `Basic ${Buffer.from(`${this.user}:${options.token ?? ''}`).toString('base64')}`
    // What the step was given never appears in a message: the credentials,
    // header values (an auth proxy's tokens) and, though public, certificates.
    // Values under 4 characters are not secrets, and the redaction leaves them alone.
    const secrets = new Redaction()
    for (const value of [
      options.jobToken,
      options.token,
      this.authorization,
      this.authorization?.slice('Basic '.length),
      ...(options.headers ?? []).flatMap(([, value]) => headerValueSecrets(value)),
      ...(options.ca ?? [])
    ]) {
      if (value) secrets.add(value)
    }
    this.redact = text => secrets.redact(text)
    this.logger = redactingLogger(options.logger, this.redact)
    // A proxy or a plugin may echo a crumb or session cookie (in a queue `why`); they stay secret after they change.
    const given = new Set<string>()
    this.secret = value => {
      if (given.has(value)) return
      given.add(value)
      secrets.add(value)
      options.onSecret?.(value)
    }
    // Built once: parsing Node's default CAs takes time.
    if (options.ca?.length) this.secureContext = trustWith(options.ca)
    const cookies = options.session?.cookies
    this.jar = cookies
      ? CookieJar.deserializeSync(cookies)
      : // eslint-disable-next-line local/no-positional-undefined -- tough-cookie's CookieJar takes its store before its options
        new CookieJar(undefined, { looseMode: true, allowSpecialUseDomain: true })
    for (const cookie of cookies?.cookies ?? []) {
      if (typeof cookie.value === 'string' && cookie.value.length >= 8) this.secret(cookie.value)
    }
  }

  /** This client's session, for another client to continue (RequestSettings.session). */
  session(): JenkinsSession | undefined {
    const cookies = this.jar.serializeSync()
    return cookies && { cookies, crumb: this.crumb }
  }

  /** Sends the crumb header with every later POST (null stops sending it). */
  protected setCrumb(crumb: Crumb | null): void {
    this.crumb = crumb
    if (crumb) this.secret(crumb.value)
  }

  /** Forgets the session and its crumb, e.g. after Jenkins rejected a crumb bound to a dropped session. */
  protected async forgetSession(): Promise<void> {
    this.crumb = undefined
    await this.jar.removeAllCookies()
  }

  /** Closes kept-alive sockets. */
  dispose(): void {
    this.agents.dispose()
  }

  /** One exchange; a GET follows same-origin redirects, a POST never follows any. */
  protected async request(exchange: Exchange): Promise<HttpResponse> {
    let url = exchange.url
    for (let hops = 0; ; hops++) {
      const response = await this.once(exchange, url)
      const location = response.header('location')
      if (
        exchange.method !== 'GET' ||
        exchange.follow === false ||
        !REDIRECTS.has(response.status) ||
        location === undefined
      ) {
        return response
      }
      // Not drained: a redirect's body is worth nothing, and draining a slow one would hold the exchange.
      response.message.destroy()
      const target = this.redirectTarget(url, location, exchange.crossOriginRedirects ?? false)
      if (hops >= MAX_REDIRECTS) {
        throw new JenkinsError(
          'redirect',
          `Jenkins at ${this.baseUrl} redirected more than ${MAX_REDIRECTS} times from ${pathOf(exchange.url)}`,
          response.status
        )
      }
      this.logger.debug(`Following ${response.status} redirect to ${pathOf(target)}`)
      url = target
    }
  }

  private redirectTarget(from: string, location: string, otherOrigins: boolean): string {
    const target = URL.parse(location, from)
    if (!target) {
      throw new JenkinsError(
        'protocol',
        `Jenkins redirected to an invalid URL from ${pathOf(from)}`
      )
    }
    const source = new URL(from)
    if (source.protocol === 'https:' && target.protocol !== 'https:') {
      throw new JenkinsError(
        'redirect',
        `Jenkins at ${this.baseUrl} redirected ${source.pathname} from https to ${target.protocol}//${target.host}; not following a downgrade that would send the credentials unencrypted`
      )
    }
    if (target.origin !== source.origin && !otherOrigins) {
      throw new JenkinsError(
        'redirect',
        `Jenkins at ${this.baseUrl} redirected ${source.pathname} to another server (${target.origin}); not following it with credentials. Set 'url' to the address Jenkins answers on, or, if a sign-in proxy in front of Jenkins sent it there, give the proxy the headers it expects in 'headers'.`
      )
    }
    return target.href
  }

  /**
   * The agent for a URL: the one place for connection and TLS options. It is
   * http-client's, so proxies and NO_PROXY behave as in every other action
   * (a CONNECT tunnel only reads TLS options from its agent, never from the
   * request).
   */
  private agentFor(url: URL): Agent {
    const agent: Agent & { options?: object } = this.agents.getAgent(url.href)
    // ca-cert: a secure context with Node's defaults plus the given CAs, on
    // this client's agent only: both an
    // https.Agent and the CONNECT tunnel agent read TLS options from there.
    if (this.secureContext && url.protocol === 'https:') {
      agent.options = Object.assign(agent.options ?? {}, { secureContext: this.secureContext })
    }
    return agent
  }

  /** The request headers for a URL: the one place where headers are added. */
  private async headersFor(exchange: Exchange, url: URL): Promise<OutgoingHttpHeaders> {
    const headers: OutgoingHttpHeaders = { 'user-agent': USER_AGENT }
    // Credentials, the crumb and the extra headers (an auth proxy's) only
    // ever go to the configured server; the extra ones first, so that none
    // can replace what the client sets itself.
    if (url.origin === this.origin) {
      for (const [name, value] of this.headers ?? []) headers[name.toLowerCase()] = value
      if (this.authorization) headers['authorization'] = this.authorization
      // Only POSTs are checked (CrumbFilter, jenkins-api.md 1.5): a GET that
      // carried the crumb would hand it to whatever echoes requests.
      if (this.crumb && exchange.method === 'POST') {
        headers[this.crumb.field.toLowerCase()] = this.crumb.value
      }
    }
    const cookie = await this.jar.getCookieString(url.href)
    if (cookie) headers['cookie'] = cookie
    if (exchange.form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded; charset=UTF-8'
    }
    if (exchange.upload) {
      headers['content-type'] = exchange.upload.contentType
      headers['content-length'] = exchange.upload.length
    } else if (exchange.method === 'POST') {
      headers['content-length'] = Buffer.byteLength(exchange.form ?? '', 'utf8')
    }
    return headers
  }

  private async once(exchange: Exchange, url: string): Promise<HttpResponse> {
    const target = new URL(url)
    const headers = await this.headersFor(exchange, target)
    const signal = exchange.bounds.signal
    if (signal.aborted) throw signal.reason
    for (const label of [exchange.label, 'total']) {
      this.requestCounts[label] = (this.requestCounts[label] ?? 0) + 1
    }
    const message = await new Promise<IncomingMessage>((resolve, reject) => {
      const module = target.protocol === 'https:' ? https : http
      const request = module.request(target, {
        method: exchange.method,
        headers,
        agent: this.agentFor(target)
      })
      // Rejected here, not on the request's 'error': a request still waiting
      // for a socket (a CONNECT to a stalled proxy) may never emit one.
      const onAbort = (): void => {
        request.destroy(signal.reason)
        reject(signal.reason)
      }
      signal.addEventListener('abort', onAbort, { once: true })
      request.once('close', () => signal.removeEventListener('abort', onAbort))
      request.once('response', resolve)
      // Not once: destroying a request can report the same end more than once.
      request.on('error', error =>
        reject(
          signal.aborted
            ? signal.reason
            : networkFailure(error, target, this.baseUrl, {
                caCert: this.secureContext !== undefined
              })
        )
      )
      if (exchange.upload) {
        // Written chunk by chunk, each once the one before was handed on; a
        // request that fails (an early answer, a reset) fails the writing.
        exchange.upload
          .writeTo(request, () => exchange.bounds.sending())
          .then(
            () => request.end(),
            (error: Error) => request.destroy(error)
          )
      } else {
        request.end(exchange.form ?? undefined)
      }
    })
    await this.storeCookies(url, message.headers['set-cookie'])
    return new HttpResponse(message.statusCode ?? 0, message.headers, url, message, exchange.bounds)
  }

  private async storeCookies(url: string, setCookie: string[] | undefined): Promise<void> {
    for (const header of setCookie ?? []) {
      // A malformed cookie must not fail the request; Jenkins would just
      // answer the next one without the session.
      const cookie = await this.jar.setCookie(header, url, { ignoreError: true })
      // Session ids are long; a short value ('1', 'true') would mangle ordinary words if redacted.
      if (cookie && cookie.value.length >= 8) this.secret(cookie.value)
    }
  }
}

/**
 * The secret parts of an extra header's value: the value, and for a
 * `Scheme credentials` value (Bearer, Basic) the credentials alone, which a
 * message may show without the scheme.
 */
export function headerValueSecrets(value: string): string[] {
  const credentials = /^[A-Za-z][\w-]*\s+(\S+)$/.exec(value)?.[1]
  return credentials ? [value, credentials] : [value]
}

/** The path of a URL, for messages (queries are left out: they are ours and long). */
export function pathOf(url: string): string {
  return URL.parse(url)?.pathname ?? '(invalid URL)'
}

/** tls.getCACertificates exists since Node 22.15 / 23.5 (runners have 24); @types/node 20 does not know it. */
type CaSource = { getCACertificates?: (type: 'default') => string[] }

/**
 * A secure context trusting what Node trusts by default plus `extra` (the
 * `ca-cert` input), for one client's connections only: nothing process-wide
 * changes. A TLS client given `ca` trusts those certificates alone, so the
 * defaults are added back: tls.getCACertificates('default') where Node has
 * it (bundled roots, NODE_EXTRA_CA_CERTS, and the system store when Node is
 * told to use it), else tls.rootCertificates and the NODE_EXTRA_CA_CERTS file.
 */
function trustWith(extra: readonly string[]): tls.SecureContext {
  // cast: @types/node 20 does not declare tls.getCACertificates (CaSource)
  const fromNode = (tls as unknown as CaSource).getCACertificates?.('default')
  const ca = fromNode ?? [...tls.rootCertificates]
  const file = process.env.NODE_EXTRA_CA_CERTS
  if (!fromNode && file) {
    try {
      ca.push(readFileSync(file, 'utf8'))
    } catch {
      // Node itself warned at start-up that it could not read the file.
    }
  }
  return tls.createSecureContext({ ca: [...ca, ...extra] })
}
