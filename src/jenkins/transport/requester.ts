import { Interrupted, JenkinsError, stopReason, unlessNotFound } from './errors.js'
import { HttpResponse, Transport, pathOf, type Exchange } from './http.js'
import type { Crumb, RequestSettings } from './http.js'
import { ExchangeLimits, seconds, type Attempt, type LimitSettings } from './limits.js'
import { locateJenkins, locateRoot, notJenkinsError } from './locate.js'
import type { UploadBody } from './multipart.js'
import { NetworkFailure } from './network-errors.js'
import type { DroppedPart } from './json.js'
import {
  ERROR_BODY_LIMIT,
  RETRYABLE_STATUSES,
  bodyOf,
  droppedNote,
  errorForResponse,
  isCrumbRejection,
  jsonBody,
  oddAnswer,
  type ErrorContext
} from './responses.js'
import {
  DEFAULT_RETRY_POLICY,
  TransientFailure,
  parseRetryAfter,
  pause,
  withRetry,
  type RetryPolicy
} from './retry.js'
import { errorText } from '../../util/error-text.js'
import { isRecord } from '../../util/is-record.js'

export interface PostOptions {
  /** Statuses after which the POST is sent again. */
  retryStatuses: ReadonlySet<number>
  /** Whether a request that got no answer may be sent again (default: when the failure is transient). */
  retryNetwork?: (failure: NetworkFailure) => boolean
  /** The error for a request that got no answer and is not sent again. */
  onNetworkFailure?: (failure: NetworkFailure) => JenkinsError
  /** Epoch ms when retries stop (default: the client's deadline). */
  deadline?: number
  form?: string
  /** A streamed body instead of `form` (multipart.ts). */
  upload?: UploadBody
}

const DEFAULT_TIMEOUT_MS = 30_000
const DEFAULT_STALL_MS = 30_000
const DEFAULT_STALL_BYTES = 16 * 1024
/** Retry budget of stop/term/kill, cancelItem and disable, counted from each call; the deadline still bounds it. */
const ACTION_BUDGET_MS = 15_000
/** Tries of a read within the step's deadline (with the default backoff, over a minute of outage). */
const READ_ATTEMPTS = 12
/** Time for each request that looks for Jenkins after a 404 that was not its own (only on that error path). */
const PROBE_TIMEOUT_MS = 5000
/**
 * Before Jenkins ever answered the step, the headers must come within this,
 * and a request that got none is tried FIRST_CONTACT_SILENT_ATTEMPTS times:
 * an address that accepts connections and never answers (a wrong port, a
 * hung Jenkins) is said within about 20 s, as a refused one is within
 * seconds, not after the minutes of a restart ridden out.
 */
const FIRST_CONTACT_HEADERS_MS = 10_000
const FIRST_CONTACT_SILENT_ATTEMPTS = 2
/**
 * What the log says while Jenkins does not answer. Retries are debug lines,
 * but a request left unanswered for a while is news: without a visible line,
 * a Jenkins that accepts connections and never answers showed nothing for
 * minutes. A request that has waited SLOW_NOTICE_MS (its own exchange, or all
 * its tries together) is said once, and each retry after that too, in the
 * normal log, never more than one line every NOTICE_GAP_MS across a client (a
 * burst of quick retries, or several requests at once, says it once).
 */
const SLOW_NOTICE_MS = 10_000
/** The same, before Jenkins ever answered the step. */
const FIRST_CONTACT_NOTICE_MS = 5_000
/** Lines about unanswered requests closer together than this are left to the debug log. */
const NOTICE_GAP_MS = 4_000

/**
 * The one request path of the client, over its Transport (http.ts: the
 * connection, credentials, cookies and the redaction list): every operation goes through `read`
 * (GETs, retried within the deadline) or `post` (crumb and session handling,
 * retried only as the caller allows); every exchange is bounded by one
 * ExchangeLimits (limits.ts: the client's signal, its deadline, the request
 * timeout, the stall guard); and every message that leaves it, thrown or
 * logged, has gone through the one redaction list (`redact`). What it makes
 * of an answer's body is responses.ts, of a failed answer `failure`; its
 * settings are http.ts RequestSettings, their defaults here.
 */
export class Requester extends Transport {
  /** Epoch ms of the step's timeout, if any. */
  readonly deadline: number | undefined
  /** The job's "Trigger builds remotely" token, or undefined. */
  readonly jobToken: string | undefined
  /** The crumb's fetch, shared by every POST; a failed fetch is not kept, the next POST asks again. */
  private crumbFetch: Promise<Crumb | null> | undefined
  private readonly policy: RetryPolicy
  private readonly limits: LimitSettings
  private readonly firstContactAttempts: number | undefined
  /** Whether any HTTP answer came back: until then a failed connection is the first contact failing. */
  private answered = false
  /** Whether any answer carried X-Jenkins: from then on a 404 is Jenkins' own. */
  private jenkinsSeen = false
  /** Where Jenkins answers, when `url` turned out not to be it (asked once, on the first foreign 404: locate.ts). */
  private located: Promise<string | undefined> | undefined
  /** When the last line about an unanswered request went out (NOTICE_GAP_MS). */
  private noticeAt = -Infinity
  /** Parts of answers left out as too deep, said once each (every poll of a build may carry them). */
  private readonly droppedSaid = new Set<string>()

  constructor(options: RequestSettings) {
    super(options)
    this.firstContactAttempts = options.firstContactAttempts
    this.deadline = options.deadline
    this.jobToken = options.jobToken || undefined
    this.limits = {
      signal: options.signal,
      deadline: options.deadline,
      requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS,
      stallMs: options.stall?.ms ?? DEFAULT_STALL_MS,
      stallBytes: options.stall?.bytes ?? DEFAULT_STALL_BYTES
    }
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry }
    // Another client's crumb: nothing is fetched until Jenkins rejects it.
    const crumb = options.session?.crumb
    if (crumb !== undefined) {
      this.crumbFetch = Promise.resolve(crumb)
      this.setCrumb(crumb)
    }
  }

  /** Starts fetching the crumb in the background, to save a round trip before a POST. */
  prefetchCrumb(): void {
    this.ensureCrumb().catch(() => undefined)
  }

  /**
   * The crumb before a POST, fetched the first time (concurrent POSTs share
   * the request; a failed fetch is not kept). A cancel while it is fetched
   * interrupts the crumb's GET, and the POST was never sent (a trigger queued nothing).
   */
  private async ensureCrumb(): Promise<void> {
    const pending = (this.crumbFetch ??= this.readCrumb())
    try {
      this.setCrumb(await pending)
    } catch (error) {
      if (this.crumbFetch === pending) this.crumbFetch = undefined
      if (!(error instanceof Interrupted && error.sent)) throw error
      throw new Interrupted(error.message, { sent: false, lastFailure: error.lastFailure })
    }
  }

  /**
   * The crumb from Jenkins' crumb issuer, or undefined when there is none:
   * Jenkins' own 404 means CSRF protection is off (jenkins-api.md 1.4). A 404
   * from something else than Jenkins (kind 'not-jenkins', locate.ts) is a
   * wrong url, and thrown like any failure.
   */
  private async readCrumb(): Promise<Crumb | null> {
    const url = `${this.baseUrl}/crumbIssuer/api/json`
    const context = this.context('the CSRF crumb')
    // undefined, not null, marks the 404: a JSON null is no crumb, and refused below.
    const data = await unlessNotFound(this.getJson('crumb', url, context), undefined)
    if (data === undefined) {
      this.logger.debug(`Jenkins at ${this.baseUrl} has no crumb issuer: CSRF protection is off`)
      return null
    }
    const { crumb, crumbRequestField: field } = isRecord(data) ? data : {}
    if (typeof crumb !== 'string' || typeof field !== 'string' || !field) {
      throw oddAnswer(this.baseUrl, 'the crumb request without crumb and crumbRequestField')
    }
    this.logger.debug(`Got a CSRF crumb (header ${field})`)
    return { field, value: crumb }
  }

  /**
   * GET + JSON with read retries (responses.ts jsonBody: what is retried, what
   * is not). Elements of the `droppable` lists nested too deep are left out
   * with a warning, once per answer and list (json.ts).
   */
  async getJson(
    label: string,
    url: string,
    context: ErrorContext,
    { deadline, droppable }: { deadline?: number; droppable?: readonly string[] } = {}
  ): Promise<unknown> {
    const onDropped = (part: DroppedPart): void => {
      const key = `${context.what}\n${part.field}\n${part.className ?? part.index}`
      if (this.droppedSaid.has(key)) return
      this.droppedSaid.add(key)
      this.logger.warning(droppedNote(context, part))
    }
    const options = droppable && { droppable, onDropped }
    const json = (response: HttpResponse) => jsonBody(response, context, options)
    return this.read(label, url, context, json, { deadline })
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
    { deadline, ...options }: { deadline?: number } & Pick<Exchange, 'crossOriginRedirects'> = {}
  ): Promise<T> {
    return withRetry(
      async (number, started) => {
        const exchange = { method: 'GET' as const, url, label, ...options }
        const response = await this.send(exchange, context.what, { attempt: { started, number } })
        if (response.status < 200 || response.status >= 300) {
          // Redacted before anything quotes or cuts it: a secret cut in half would not match later.
          const body = this.redact(await bodyOf(response.text(ERROR_BODY_LIMIT)))
          throw await this.failure(response, body, context, RETRYABLE_STATUSES)
        }
        try {
          return await accept(response)
        } catch (error) {
          // What accept did not read or hand on is dropped with its connection.
          response.discard()
          throw error
        }
      },
      this.retryOptions(`GET ${context.what}`, deadline ?? this.deadline, { read: true })
    )
  }

  /**
   * A POST with the crumb: fetched before the first POST, and on a "No valid
   * crumb" 403 the session is dropped and crumb and session are fetched again,
   * once. That is also how a Jenkins restart (sessions lost) is survived. The
   * CrumbFilter rejects before anything is done (jenkins-api.md 0), so sending
   * again is safe even for a trigger. An Interrupted error's `sent` says
   * whether the POST itself may have reached Jenkins. The body is read (POST answers are
   * small) but not needed: the status and headers are the answer, so a body
   * that breaks off or stalls is read as far as it came.
   */
  async post(
    label: string,
    url: string,
    context: ErrorContext,
    options: PostOptions
  ): Promise<{ response: HttpResponse; body: string }> {
    let refreshed = false
    const { form, upload } = options
    const exchange = { method: 'POST' as const, url, label, form, upload }
    const sendOnce = async (attempt: Attempt) => {
      const response = await this.send(exchange, context.what, { ...options, attempt })
      // Read as far as it came: the status and headers are the answer.
      const body = await response.text(ERROR_BODY_LIMIT).then(this.redact, (error: unknown) => {
        if (error instanceof Interrupted) throw error
        this.logger.debug(`Could not read the answer to ${context.what}: ${errorText(error)}`)
        return ''
      })
      return { response, body }
    }
    return withRetry(
      async (number, started) => {
        await this.ensureCrumb()
        let answer = await sendOnce({ started, number })
        if (isCrumbRejection(answer.response.status, answer.body) && !refreshed) {
          refreshed = true
          this.logger.debug(
            `Jenkins rejected the crumb for ${context.what}; getting a new session and crumb`
          )
          await this.forgetSession()
          this.crumbFetch = undefined
          await this.ensureCrumb()
          answer = await sendOnce({ started, number })
        }
        const { response, body } = answer
        if (response.status === 404 || options.retryStatuses.has(response.status)) {
          const error = await this.failure(response, body, context, options.retryStatuses)
          if (error instanceof TransientFailure || error.kind === 'not-jenkins') throw error
        }
        return answer
      },
      this.retryOptions(`POST ${context.what}`, options.deadline ?? this.deadline)
    )
  }

  /**
   * The error for a failed answer: a 404 before Jenkins ever answered that
   * is not Jenkins' own says where Jenkins is (locate.ts), and one of `retry`
   * is a TransientFailure, not tried again before the Retry-After Jenkins
   * gave, if any.
   */
  private async failure(
    response: HttpResponse,
    body: string,
    context: ErrorContext,
    retry: ReadonlySet<number>
  ): Promise<JenkinsError | TransientFailure> {
    let error = errorForResponse(response, body, context)
    if (
      response.status === 404 &&
      !this.jenkinsSeen &&
      response.header('x-jenkins') === undefined
    ) {
      this.located ??= locateJenkins(this.baseUrl, (url, o) => this.probe(url, o))
      const where = await this.located
      if (where !== undefined) error = notJenkinsError(this.baseUrl, context.what, where)
    }
    if (!retry.has(response.status)) return error
    return new TransientFailure(error, String(response.status), {
      retryAfterMs: parseRetryAfter(response.header('retry-after'))
    })
  }

  /** When a stop/cancel/disable started now stops retrying: its own budget, within the client's deadline. */
  actionDeadline(): number {
    const own = Date.now() + ACTION_BUDGET_MS
    return this.deadline === undefined ? own : Math.min(own, this.deadline)
  }

  /** Waits `ms`, ending with Interrupted when the client's signal fires. */
  pause(ms: number, what: string): Promise<void> {
    return pause(ms, this.limits.signal, what)
  }

  /** What an error message needs to know about the request. */
  context(what: string, extra: Partial<ErrorContext> = {}): ErrorContext {
    const jobTokenOnly = Boolean(this.jobToken && !this.user) || undefined
    return { server: this.baseUrl, user: this.user, what, jobTokenOnly, ...extra }
  }

  /** Added to a 404 of something anonymous users may be unable to see. */
  anonymousHint({ following = false }: { following?: boolean } = {}): string {
    if (this.user) return ''
    if (!this.jobToken) return '; if it exists, anonymous users may not see it: set user and token'
    return following
      ? '; if it exists, anonymous users may not read it: give user/token, or use wait: false'
      : '; if it exists, anonymous users may not see it, and a job token alone cannot reach a job they cannot read: give user/token'
  }

  // ---------------------------------------------------------------------------

  /**
   * One exchange within its bounds; a request that got no answer becomes
   * TransientFailure (to retry) or JenkinsError. None starts once the
   * client's signal fired.
   */
  private async send(
    exchange: Omit<Exchange, 'bounds'>,
    what: string,
    {
      retryNetwork = failure => failure.transient,
      onNetworkFailure = failure => failure.error,
      attempt
    }: Partial<Pick<PostOptions, 'retryNetwork' | 'onNetworkFailure'>> & { attempt: Attempt }
  ): Promise<HttpResponse> {
    if (this.limits.signal?.aborted) {
      throw new Interrupted(
        `Did not send ${exchange.method} ${what} to Jenkins at ${this.baseUrl}: ${stopReason(this.limits.signal)}`,
        { sent: false }
      )
    }
    const headersTimeoutMs = this.firstContact()
      ? Math.min(FIRST_CONTACT_HEADERS_MS, this.limits.requestTimeoutMs)
      : undefined
    const waitsUpTo = headersTimeoutMs ?? this.limits.requestTimeoutMs
    const limits = { ...this.limits, headersTimeoutMs, attempt }
    const bounds = new ExchangeLimits(limits, what, this.baseUrl)
    // The first try says it is waiting; the retries after it say so themselves (retry.ts).
    const started = Date.now()
    const slow = setTimeout(() => {
      if (attempt.number !== 1) return
      const waited = seconds(Date.now() - started)
      this.notice(
        `No answer yet from Jenkins at ${this.baseUrl} to ${what} after ${waited}; waiting up to ${seconds(waitsUpTo)} for it`
      )
    }, this.noticeAfterMs())
    let response: HttpResponse
    try {
      response = await this.request({ ...exchange, bounds })
    } catch (error) {
      bounds.release()
      if (!(error instanceof NetworkFailure)) throw error
      if (!retryNetwork(error)) throw onNetworkFailure(error)
      // Nothing ever answered: a wrong url, a Jenkins that is down or hung (a
      // connection accepted and never answered), not a restart to ride out.
      // Said within seconds, not after a minute.
      const silent = error.reason === 'timeout'
      if ((silent || error.connect) && this.firstContact()) {
        throw new TransientFailure(
          new JenkinsError(
            error.error.kind,
            `${error.error.message}. That was the first request, and nothing has answered at that address yet: check the 'url' input (its host and port) and that Jenkins is running and ${silent ? 'answering' : 'reachable from this runner'}`,
            error.error.status
          ),
          error.reason,
          { maxAttempts: silent ? FIRST_CONTACT_SILENT_ATTEMPTS : this.firstContactAttempts }
        )
      }
      throw new TransientFailure(error.error, error.reason)
    } finally {
      clearTimeout(slow)
    }
    this.answered = true
    if (response.header('x-jenkins') !== undefined) this.jenkinsSeen = true
    return response
  }

  /** A request unanswered this long is said (the step's client: shorter before Jenkins ever answered). */
  private noticeAfterMs(): number {
    return this.firstContact() ? FIRST_CONTACT_NOTICE_MS : SLOW_NOTICE_MS
  }

  /** Logs `message` in the normal log unless another such line went out less than NOTICE_GAP_MS ago. */
  private notice(message: string): void {
    if (Date.now() - this.noticeAt < NOTICE_GAP_MS) return
    this.noticeAt = Date.now()
    this.logger.info(message)
  }

  /** Whether nothing has answered the step's own client yet (only it counts first contact). */
  private firstContact(): boolean {
    return !this.answered && this.firstContactAttempts !== undefined
  }

  /**
   * Reads (`read`) may always repeat: within the step's deadline they get
   * more tries than a POST, so that a flaky network hours into a build (a
   * socket hang up, a proxy 502 burst) does not lose its result. The
   * deadline bounds them.
   */
  private retryOptions(what: string, deadline: number | undefined, { read = false } = {}) {
    const attempts = read && deadline !== undefined ? READ_ATTEMPTS : 0
    return {
      policy: { ...this.policy, attempts: Math.max(this.policy.attempts, attempts) },
      deadline,
      logger: this.logger,
      what,
      signal: this.limits.signal,
      notice: { afterMs: this.noticeAfterMs(), say: (line: string) => this.notice(line) }
    }
  }

  /** Where Jenkins' root is when `url` is a path below it (locate.ts): a sentence for the message, or undefined. */
  locateRoot(what: string): Promise<string | undefined> {
    return locateRoot(this.baseUrl, (url, follow) => this.probe(url, follow), what)
  }

  /** One GET that only looks (status and headers), short and bounded; undefined when it got no answer. */
  private async probe(url: string, { follow }: { follow: boolean }) {
    const requestTimeoutMs = Math.min(this.limits.requestTimeoutMs, PROBE_TIMEOUT_MS)
    const limits = { ...this.limits, requestTimeoutMs }
    const bounds = new ExchangeLimits(limits, 'a look for Jenkins', this.baseUrl)
    try {
      const response = await this.request({ method: 'GET', url, label: 'probe', follow, bounds })
      response.discard()
      return response
    } catch (error) {
      bounds.release()
      // A cancel still ends the step; anything else only means "not here".
      if (error instanceof Interrupted) throw error
      this.logger.debug(`Looking for Jenkins at ${pathOf(url)}: ${errorText(error)}`)
      return undefined
    }
  }
}
