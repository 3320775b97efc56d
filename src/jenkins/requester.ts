import type { Logger } from '../logger.js'
import { CrumbCache, type Crumb } from './crumb.js'
import { JenkinsError } from './errors.js'
import { HttpResponse, NetworkFailure, Transport, type Exchange } from './http.js'
import {
  RETRYABLE_STATUSES,
  errorForResponse,
  htmlError,
  isCrumbRejection,
  looksLikeHtml,
  type ErrorContext
} from './responses.js'
import {
  DEFAULT_RETRY_POLICY,
  TransientFailure,
  parseRetryAfter,
  withRetry,
  type RetryOptions,
  type RetryPolicy
} from './retry.js'

/** How requests are sent and retried; ClientOptions extends it. */
export interface RequestSettings {
  /** API token or password. */
  token?: string
  logger: Logger
  /** Epoch ms: read retries never wait past it (the step's timeout). stop/cancel/disable get their own short budget so they can still run after the deadline passed. */
  deadline?: number
  /** Per-request timeout in ms (default 30000). */
  requestTimeoutMs?: number
  /** Retry tuning (defaults suit production; tests shrink them). */
  retry?: { attempts?: number; baseDelayMs?: number; maxDelayMs?: number }
  /** Skip TLS verification for THIS client only (never process-wide); logs a loud warning when set. */
  insecure?: boolean
  userAgent?: string
  /** Retry budget of stop/term/kill, cancelItem and disable, counted from each call (default 15000). */
  actionBudgetMs?: number
}

export interface RequesterOptions extends RequestSettings {
  /** Normalised base URL, without a trailing slash. */
  baseUrl: string
  /** The base URL's origin, for messages. */
  origin: string
  user: string | undefined
}

export interface PostOptions {
  /** Statuses after which the POST is sent again. */
  retryStatuses: ReadonlySet<number>
  /** Whether a request that got no answer may be sent again. */
  retryNetwork: (failure: NetworkFailure) => boolean
  /** The error for a request that got no answer and is not sent again. */
  onNetworkFailure?: (failure: NetworkFailure) => JenkinsError
  deadline: number | undefined
  form?: string
}

const DEFAULT_TIMEOUT_MS = 30_000
const DEFAULT_ACTION_BUDGET_MS = 15_000
const DEFAULT_USER_AGENT = 'jenkins-build-action'
/** JSON answers can be big (a large instance's job tree); a bound still stops a runaway body. */
const JSON_LIMIT = 64 * 1024 * 1024
const ERROR_BODY_LIMIT = 64 * 1024
/** Tries of a read within the step's deadline (with the default backoff, over a minute of outage). */
const READ_ATTEMPTS = 12

/**
 * The one request path of the client: every operation goes through `read`
 * (GETs, retried within the deadline) or `post` (crumb and session handling,
 * retried only as the caller allows), and every message that leaves it, thrown
 * or logged, has gone through the one redaction list (`redact`).
 */
export class Requester {
  readonly baseUrl: string
  readonly origin: string
  readonly user: string | undefined
  /** Epoch ms of the step's timeout, if any. */
  readonly deadline: number | undefined
  /** The caller's logger behind redaction: operations log through this one only. */
  readonly logger: Logger
  private readonly transport: Transport
  private readonly crumbs: CrumbCache
  private readonly policy: RetryPolicy
  private readonly actionBudgetMs: number
  private readonly secrets: () => string[]

  constructor(options: RequesterOptions) {
    this.baseUrl = options.baseUrl
    this.origin = options.origin
    this.user = options.user
    this.deadline = options.deadline
    this.actionBudgetMs = options.actionBudgetMs ?? DEFAULT_ACTION_BUDGET_MS
    this.policy = { ...DEFAULT_RETRY_POLICY, ...definedOnly(options.retry ?? {}) }
    this.secrets = () => this.transport.secretValues
    this.logger = redactingLogger(options.logger, text => this.redact(text))
    this.transport = new Transport({
      baseUrl: this.baseUrl,
      user: this.user,
      token: options.token,
      logger: this.logger,
      requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS,
      insecure: options.insecure ?? false,
      userAgent: options.userAgent ?? DEFAULT_USER_AGENT
    })
    this.crumbs = new CrumbCache(
      () => this.fetchCrumb(),
      crumb => this.transport.setCrumb(crumb)
    )
    if (options.insecure) {
      this.logger.warning(
        `TLS certificate verification is OFF for ${this.origin} (insecure): anyone between this runner and Jenkins can read the credentials. Prefer NODE_EXTRA_CA_CERTS with the server's CA.`
      )
    }
  }

  /** HTTP requests sent, by operation ('job', 'trigger', 'queue', 'build', 'log', 'crumb', …) and 'total'. */
  get requestCounts(): Readonly<Record<string, number>> {
    return this.transport.requestCounts
  }

  /** Closes kept-alive connections (the process can also exit without it). */
  dispose(): void {
    this.transport.dispose()
  }

  /** Starts fetching the crumb in the background, to save a round trip before a POST. */
  prefetchCrumb(): void {
    this.crumbs.prefetch()
  }

  /** GET + JSON with read retries. */
  async getJson<T>(
    label: string,
    url: string,
    context: ErrorContext,
    options: { deadline?: number } = { deadline: this.deadline }
  ): Promise<T> {
    return this.read(
      label,
      url,
      context,
      async response => {
        const body = await response.text(JSON_LIMIT)
        // An SSO proxy or login page can answer 200 with HTML.
        if (looksLikeHtml(response, body)) throw htmlError(context, response.status)
        try {
          return JSON.parse(body) as T
        } catch {
          throw new JenkinsError(
            'protocol',
            `Jenkins at ${this.origin} answered ${context.what} with malformed JSON`,
            response.status
          )
        }
      },
      options.deadline
    )
  }

  /**
   * A GET with read retries: a non-2xx answer is turned into an error here,
   * a 2xx one is handed to `accept`, which reads (or streams) the body and
   * may throw to fail or retry the attempt.
   */
  async read<T>(
    label: string,
    url: string,
    context: ErrorContext,
    accept: (response: HttpResponse) => Promise<T> | T,
    deadline: number | undefined,
    options: Pick<Exchange, 'crossOriginRedirects'> = {}
  ): Promise<T> {
    return this.guarded(() =>
      withRetry(
        async () => {
          const response = await this.send(
            { method: 'GET', url, label, ...options },
            f => f.transient
          )
          if (response.status < 200 || response.status >= 300) {
            throw await this.failure(response, context)
          }
          return accept(response)
        },
        this.readRetryOptions(`GET ${context.what}`, deadline)
      )
    )
  }

  /**
   * A POST with the crumb: fetched before the first POST, and on a "No valid
   * crumb" 403 the session is dropped and crumb and session are fetched again,
   * once. That is also how a Jenkins restart (sessions lost) is survived. The
   * CrumbFilter rejects before anything is done (jenkins-api.md 0), so sending
   * again is safe even for a trigger. The body is read (POST answers are small).
   */
  async post(
    label: string,
    url: string,
    context: ErrorContext,
    options: PostOptions
  ): Promise<{ response: HttpResponse; body: string }> {
    let refreshed = false
    const exchange: Exchange = { method: 'POST', url, label, form: options.form }
    const sendOnce = async (): Promise<{ response: HttpResponse; body: string }> => {
      const response = await this.send(exchange, options.retryNetwork, options.onNetworkFailure)
      return { response, body: await response.text(ERROR_BODY_LIMIT) }
    }
    return this.guarded(() =>
      withRetry(
        async () => {
          await this.crumbs.ensure()
          let answer = await sendOnce()
          if (isCrumbRejection(answer.response.status, answer.body) && !refreshed) {
            refreshed = true
            this.logger.debug(
              `Jenkins rejected the crumb for ${context.what}; getting a new session and crumb`
            )
            await this.transport.clearCookies()
            await this.crumbs.refresh()
            answer = await sendOnce()
          }
          if (options.retryStatuses.has(answer.response.status)) {
            throw new TransientFailure(
              errorForResponse(answer.response, answer.body, context),
              String(answer.response.status),
              parseRetryAfter(answer.response.header('retry-after'))
            )
          }
          return answer
        },
        this.retryOptions(`POST ${context.what}`, options.deadline)
      )
    )
  }

  /** When a stop/cancel/disable started now stops retrying: its own budget, so it can still run after the step's deadline passed. */
  actionDeadline(): number {
    return Date.now() + this.actionBudgetMs
  }

  /** What an error message needs to know about the request. */
  context(what: string, extra: Partial<ErrorContext> = {}): ErrorContext {
    return { origin: this.origin, user: this.user, what, ...extra }
  }

  anonymousHint(): string {
    return this.user ? '' : '; if it exists, anonymous users may not see it: set user and token'
  }

  /** Belt and braces: no message leaves with a credential or crumb in it. */
  scrub(error: unknown): unknown {
    if (error instanceof JenkinsError) {
      const message = this.redact(error.message)
      return message === error.message ? error : new JenkinsError(error.kind, message, error.status)
    }
    if (error instanceof Error) error.message = this.redact(error.message)
    return error
  }

  // ---------------------------------------------------------------------------

  private async fetchCrumb(): Promise<Crumb | undefined> {
    let data: { crumb?: unknown; crumbRequestField?: unknown }
    try {
      data = await this.getJson(
        'crumb',
        `${this.baseUrl}/crumbIssuer/api/json`,
        this.context('the CSRF crumb'),
        {
          deadline:
            this.deadline === undefined ? undefined : Math.max(this.deadline, this.actionDeadline())
        }
      )
    } catch (error) {
      // No crumb issuer: CSRF protection is off (jenkins-api.md 1.4).
      if (error instanceof JenkinsError && error.kind === 'not-found') {
        this.logger.debug(`Jenkins at ${this.origin} has no crumb issuer: CSRF protection is off`)
        return undefined
      }
      throw error
    }
    if (
      typeof data.crumb !== 'string' ||
      typeof data.crumbRequestField !== 'string' ||
      !data.crumbRequestField
    ) {
      throw new JenkinsError(
        'protocol',
        `Jenkins at ${this.origin} answered the crumb request without crumb and crumbRequestField`
      )
    }
    this.logger.debug(`Got a CSRF crumb (header ${data.crumbRequestField})`)
    return { field: data.crumbRequestField, value: data.crumb }
  }

  /** One exchange; a request that got no answer becomes TransientFailure (to retry) or JenkinsError. */
  private async send(
    exchange: Exchange,
    retryNetwork: (failure: NetworkFailure) => boolean,
    onNetworkFailure?: (failure: NetworkFailure) => JenkinsError
  ): Promise<HttpResponse> {
    try {
      return await this.transport.send(exchange)
    } catch (error) {
      if (!(error instanceof NetworkFailure)) throw error
      if (retryNetwork(error)) throw new TransientFailure(error.error, error.reason)
      throw onNetworkFailure ? onNetworkFailure(error) : error.error
    }
  }

  /** The error for a non-2xx answer to a read: TransientFailure when worth another try. */
  private async failure(response: HttpResponse, context: ErrorContext): Promise<Error> {
    const body = await response.text(ERROR_BODY_LIMIT)
    const error = errorForResponse(response, body, context)
    if (RETRYABLE_STATUSES.has(response.status)) {
      return new TransientFailure(
        error,
        String(response.status),
        parseRetryAfter(response.header('retry-after'))
      )
    }
    return error
  }

  private retryOptions(what: string, deadline: number | undefined): RetryOptions {
    return { policy: this.policy, deadline, logger: this.logger, what }
  }

  /**
   * Reads may always repeat: within the step's deadline they get more tries
   * than a POST, so that a flaky network hours into a build (a socket hang up,
   * a proxy 502 burst) does not lose its result. The deadline bounds them.
   */
  private readRetryOptions(what: string, deadline: number | undefined): RetryOptions {
    const options = this.retryOptions(what, deadline)
    if (deadline === undefined) return options
    return {
      ...options,
      policy: { ...this.policy, attempts: Math.max(this.policy.attempts, READ_ATTEMPTS) }
    }
  }

  private async guarded<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation()
    } catch (error) {
      throw this.scrub(error)
    }
  }

  private redact(text: string): string {
    let result = text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, '$1***@')
    for (const secret of this.secrets()) {
      // Shorter values would mangle ordinary words; real tokens are long.
      if (secret.length >= 4) result = result.split(secret).join('***')
    }
    return result
  }
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>
}

function redactingLogger(logger: Logger, redact: (text: string) => string): Logger {
  return {
    debug: message => logger.debug(redact(message)),
    info: message => logger.info(redact(message)),
    warning: message => logger.warning(redact(message))
  }
}
