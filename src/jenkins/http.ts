import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http'
import { HttpClient } from '@actions/http-client'
import { CookieJar } from 'tough-cookie'
import type { Logger } from '../logger.js'
import { JenkinsError } from './errors.js'

export interface TransportOptions {
  /** Normalised base URL, without a trailing slash. */
  baseUrl: string
  user?: string
  token?: string
  logger: Logger
  requestTimeoutMs: number
  insecure: boolean
  userAgent: string
}

export interface Exchange {
  method: 'GET' | 'POST'
  url: string
  /** Bucket in requestCounts, e.g. 'job' or 'trigger'. */
  label: string
  /** application/x-www-form-urlencoded body of a POST. */
  form?: string
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
    /** The raw body stream; read it with text() or hand it on, or discard() it. */
    readonly message: IncomingMessage
  ) {}

  header(name: string): string | undefined {
    const value = this.headers[name.toLowerCase()]
    return Array.isArray(value) ? value.join(', ') : value
  }

  get contentType(): string {
    return (this.header('content-type') ?? '').toLowerCase()
  }

  /** Reads the body as UTF-8; beyond `limit` bytes it stops and drops the connection. */
  async text(limit: number = 1024 * 1024): Promise<string> {
    const chunks: Buffer[] = []
    let size = 0
    for await (const chunk of this.message) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer)
      if (size + buffer.length > limit) {
        chunks.push(buffer.subarray(0, limit - size))
        this.message.destroy()
        break
      }
      chunks.push(buffer)
      size += buffer.length
    }
    return Buffer.concat(chunks).toString('utf8')
  }

  /** Lets the body go so the keep-alive socket can be reused. */
  discard(): void {
    this.message.resume()
  }
}

/** A request that got no HTTP answer. */
export class NetworkFailure extends Error {
  constructor(
    readonly error: JenkinsError,
    /** Short reason for logs, e.g. 'ECONNRESET'. */
    readonly reason: string,
    /** Worth another try (for a request that may safely repeat). */
    readonly transient: boolean,
    /** Provably never reached Jenkins, so even a trigger may be sent again. */
    readonly notSent: boolean
  ) {
    super(error.message)
    this.name = 'NetworkFailure'
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308])
const MAX_REDIRECTS = 5

const TLS_CODES = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
  'EPROTO',
  'ERR_SSL_WRONG_VERSION_NUMBER'
])

/**
 * One HTTP exchange at a time with Jenkins: credentials, session cookies, the
 * crumb header, same-origin redirects for GETs, and network error mapping.
 * No retries here (see retry.ts) and no status interpretation (responses.ts).
 */
export class Transport {
  readonly requestCounts: Record<string, number> = { total: 0 }
  private readonly http: HttpClient
  private readonly jar = new CookieJar(undefined, {
    looseMode: true,
    allowSpecialUseDomain: true
  })
  private readonly base: URL
  private readonly authorization: string | undefined
  private crumb: { field: string; value: string } | undefined

  constructor(private readonly options: TransportOptions) {
    this.base = new URL(options.baseUrl)
    // Preemptive Basic on every request: Jenkins never challenges anonymous
    // requests with a 401, so a handler waiting for one would never send
    // credentials (jenkins-api.md 2.1).
    if (options.user) {
      const pair = `${options.user}:${options.token ?? ''}`
      this.authorization = `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`
    }
    this.http = new HttpClient(options.userAgent, [], {
      allowRedirects: false,
      allowRetries: false,
      maxRetries: 0,
      keepAlive: true,
      socketTimeout: options.requestTimeoutMs,
      // Per client, not NODE_TLS_REJECT_UNAUTHORIZED: nothing else in the
      // process loses certificate checks.
      ignoreSslError: options.insecure
    })
  }

  /** Values that must never appear in a message: the Authorization value and its parts. */
  get secretValues(): string[] {
    const values = [this.authorization, this.authorization?.slice('Basic '.length)]
    if (this.options.token) values.push(this.options.token)
    if (this.crumb) values.push(this.crumb.value)
    return values.filter((v): v is string => v !== undefined && v !== '')
  }

  /** Sends the crumb header with every later request (undefined stops sending it). */
  setCrumb(crumb: { field: string; value: string } | undefined): void {
    this.crumb = crumb
  }

  /** Forgets the session, e.g. after Jenkins rejected a crumb bound to a dropped session. */
  async clearCookies(): Promise<void> {
    await this.jar.removeAllCookies()
  }

  /** Closes kept-alive sockets. */
  dispose(): void {
    this.http.dispose()
  }

  /** One exchange; a GET follows same-origin redirects, a POST never follows any. */
  async send(exchange: Exchange): Promise<HttpResponse> {
    let url = exchange.url
    for (let hops = 0; ; hops++) {
      const response = await this.once(exchange, url)
      if (
        exchange.method !== 'GET' ||
        !REDIRECTS.has(response.status) ||
        response.header('location') === undefined
      ) {
        return response
      }
      response.discard()
      const target = this.redirectTarget(
        url,
        response.header('location') ?? '',
        exchange.crossOriginRedirects ?? false
      )
      if (hops >= MAX_REDIRECTS) {
        throw new JenkinsError(
          'redirect',
          `Jenkins at ${this.base.origin} redirected more than ${MAX_REDIRECTS} times from ${pathOf(exchange.url)}`,
          response.status
        )
      }
      this.options.logger.debug(`Following ${response.status} redirect to ${pathOf(target)}`)
      url = target
    }
  }

  private redirectTarget(from: string, location: string, otherOrigins: boolean): string {
    let target: URL
    try {
      target = new URL(location, from)
    } catch {
      throw new JenkinsError(
        'protocol',
        `Jenkins redirected to an invalid URL from ${pathOf(from)}`
      )
    }
    const source = new URL(from)
    if (source.protocol === 'https:' && target.protocol !== 'https:') {
      throw new JenkinsError(
        'redirect',
        `Jenkins at ${source.origin} redirected ${source.pathname} from https to ${target.protocol}//${target.host}; not following a downgrade that would send the credentials unencrypted`
      )
    }
    if (target.origin !== source.origin && !otherOrigins) {
      throw new JenkinsError(
        'redirect',
        `Jenkins at ${source.origin} redirected ${source.pathname} to another server (${target.origin}); not following it with credentials. Set 'url' to the address Jenkins answers on.`
      )
    }
    return target.href
  }

  private async once(exchange: Exchange, url: string): Promise<HttpResponse> {
    const target = new URL(url)
    const headers: OutgoingHttpHeaders = {}
    // Credentials and the crumb only ever go to the configured server.
    if (target.origin === this.base.origin) {
      if (this.authorization) headers['authorization'] = this.authorization
      if (this.crumb) headers[this.crumb.field.toLowerCase()] = this.crumb.value
    }
    const cookie = await this.jar.getCookieString(url)
    if (cookie) headers['cookie'] = cookie
    if (exchange.form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded; charset=UTF-8'
    }
    this.count(exchange.label)
    let raw
    try {
      raw = await this.http.request(
        exchange.method,
        url,
        // http-client sends no body for null; its typings do not say so.
        (exchange.form ?? (exchange.method === 'POST' ? '' : null)) as string,
        headers
      )
    } catch (error) {
      throw networkFailure(error, target, this.options.requestTimeoutMs)
    }
    const message = raw.message
    await this.storeCookies(url, message.headers['set-cookie'])
    return new HttpResponse(message.statusCode ?? 0, message.headers, url, message)
  }

  private async storeCookies(url: string, setCookie: string[] | undefined): Promise<void> {
    for (const cookie of setCookie ?? []) {
      // A malformed cookie must not fail the request; Jenkins would just
      // answer the next one without the session.
      await this.jar.setCookie(cookie, url, { ignoreError: true })
    }
  }

  private count(label: string): void {
    this.requestCounts[label] = (this.requestCounts[label] ?? 0) + 1
    this.requestCounts['total'] = (this.requestCounts['total'] ?? 0) + 1
  }
}

/** The path of a URL, for messages (queries are left out: they are ours and long). */
export function pathOf(url: string): string {
  try {
    return new URL(url).pathname
  } catch {
    return '(invalid URL)'
  }
}

function hostPort(url: URL): string {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80')
  return `${url.hostname}:${port}`
}

/** Maps a Node/http-client error to a NetworkFailure a user can act on. */
export function networkFailure(error: unknown, url: URL, timeoutMs: number): NetworkFailure {
  const err = (typeof error === 'object' && error !== null ? error : {}) as {
    code?: unknown
    message?: unknown
  }
  const code = typeof err.code === 'string' ? err.code : undefined
  const text = typeof err.message === 'string' ? err.message : String(error)
  const where = hostPort(url)
  const fail = (
    kind: 'network' | 'timeout',
    message: string,
    transient: boolean,
    notSent = false
  ): NetworkFailure =>
    new NetworkFailure(new JenkinsError(kind, message), code ?? text, transient, notSent)

  if (text.startsWith('Request timeout')) {
    return fail('timeout', `No answer from ${where} within ${timeoutMs} ms`, true)
  }
  switch (code) {
    case 'ECONNREFUSED':
      // Refused at connect: the request certainly never left.
      return fail(
        'network',
        `Connection refused by ${where}: is Jenkins running there?`,
        true,
        true
      )
    case 'ENOTFOUND':
      return fail('network', `Could not resolve ${url.hostname}: check the 'url' input`, false)
    case 'EAI_AGAIN':
      return fail('network', `Could not resolve ${url.hostname} (temporary DNS failure)`, true)
    case 'ECONNRESET':
      return fail('network', `Connection to ${where} was reset`, true)
    case 'EPIPE':
      return fail('network', `Connection to ${where} was closed while sending (EPIPE)`, true)
    case 'ETIMEDOUT':
      return fail('timeout', `Connection to ${where} timed out`, true)
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return fail('network', `${where} is unreachable (${code})`, true)
  }
  if (text.includes('socket hang up')) {
    return fail(
      'network',
      `Connection to ${where} was closed without an answer (socket hang up)`,
      true
    )
  }
  if ((code !== undefined && TLS_CODES.has(code)) || /certificate|ssl|tls/i.test(text)) {
    return fail(
      'network',
      `TLS error talking to ${where}: ${text}. If Jenkins uses a private CA, point NODE_EXTRA_CA_CERTS at its certificate.`,
      false
    )
  }
  return fail('network', `Request to ${where} failed: ${code ? `${code} ` : ''}${text}`, false)
}
