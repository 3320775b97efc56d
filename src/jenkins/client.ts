import type { Logger } from '../logger.js'
import { CrumbCache, type Crumb } from './crumb.js'
import { JenkinsError } from './errors.js'
import { HttpResponse, NetworkFailure, Transport, type Exchange } from './http.js'
import { fullName, jobUrlPath } from './job-path.js'
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
  type RetryPolicy
} from './retry.js'
import {
  QUEUE_TREE,
  RECENT_BUILDS_TREE,
  SETTLE_MS,
  SLOW_SETTLE_MS,
  expectedParameters,
  jobNamesFromUrl,
  parametersOf,
  reconcile,
  userIdsOf,
  type Adopted,
  type BuildCandidate,
  type QueuedCandidate,
  type ReconcileReader,
  type TriggerExpectation
} from './reconcile.js'
import type {
  Build,
  BuildParameters,
  BuildRef,
  CancelOutcome,
  JenkinsApi,
  JobInfo,
  JobPath,
  ParameterDefinition,
  ProgressiveText,
  QueueItem,
  TriggerResult
} from './types.js'

export interface ClientOptions {
  /** Base URL as validated by the inputs (http/https, no credentials); a trailing slash is tolerated. */
  url: string
  user?: string
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
  /** How long a lost trigger answer is given before looking again (default: reconcile.ts; tests shrink it). */
  triggerSettleMs?: number
}

const DEFAULT_TIMEOUT_MS = 30_000
const DEFAULT_ACTION_BUDGET_MS = 15_000
const DEFAULT_USER_AGENT = 'jenkins-build-action'
/** JSON answers can be big (a large instance's job tree); a bound still stops a runaway body. */
const JSON_LIMIT = 64 * 1024 * 1024
const ERROR_BODY_LIMIT = 64 * 1024
/** Folder levels listJobs walks in its one request. */
const LIST_DEPTH = 10
/** Tries of a read within the step's deadline (with the default backoff, over a minute of outage). */
const READ_ATTEMPTS = 12
/** Trigger POSTs whose answer may be lost before the step gives up (each one reconciled first). */
const TRIGGER_SENDS = 4
/** Answers to a trigger that say it was refused without acting, so it may be sent again. */
const TRIGGER_REFUSALS: ReadonlySet<number> = new Set([429, 503])
/** Answers to a trigger from a proxy that may have passed it on before failing. */
const AMBIGUOUS_STATUSES: ReadonlySet<number> = new Set([500, 502, 504])

interface LostAnswer {
  /** What went wrong, for the message if we give up. */
  error: JenkinsError
  /** Short reason for the log, e.g. '502' or 'ECONNRESET'. */
  reason: string
  /** Jenkins may still be working (a gateway or request timeout): settle longer. */
  slow: boolean
}

/** Only what getJob needs (jenkins-api.md 5.5: `tree` ignores visibility and keeps answers small). */
export const JOB_TREE =
  '_class,name,fullName,url,buildable,disabled,color,nextBuildNumber,property[parameterDefinitions[name,type,defaultParameterValue[value],choices]],jobs[name]'

/** Item classes that hold jobs rather than being one (jenkins-api.md 9). */
const FOLDER_CLASSES = new Set([
  'com.cloudbees.hudson.plugins.folder.Folder',
  'org.jenkinsci.plugins.workflow.multibranch.WorkflowMultiBranchProject',
  'jenkins.branch.OrganizationFolder'
])

/** `jobs[name,_class,jobs[…]]` nested `depth` levels. */
export function listTree(depth: number): string {
  let fields = 'name,_class'
  for (let level = 1; level < depth; level++) fields = `name,_class,jobs[${fields}]`
  return `jobs[${fields}]`
}

interface RawItem {
  _class?: unknown
  name?: unknown
  jobs?: unknown
}

interface RawJob extends RawItem {
  fullName?: unknown
  buildable?: unknown
  disabled?: unknown
  nextBuildNumber?: unknown
  property?: unknown
}

interface PostOptions {
  /** Statuses after which the POST is sent again. */
  retryStatuses: ReadonlySet<number>
  /** Whether a request that got no answer may be sent again. */
  retryNetwork: (failure: NetworkFailure) => boolean
  /** The error for a request that got no answer and is not sent again. */
  onNetworkFailure?: (failure: NetworkFailure) => JenkinsError
  deadline: number | undefined
  form?: string
}

/** The Jenkins HTTP API over @actions/http-client (see JenkinsApi for the contract). */
export class JenkinsClient implements JenkinsApi {
  readonly baseUrl: string
  private readonly origin: string
  private readonly user: string | undefined
  private readonly transport: Transport
  private readonly crumbs: CrumbCache
  private readonly logger: Logger
  private readonly policy: RetryPolicy
  private readonly deadline: number | undefined
  private readonly actionBudgetMs: number
  private readonly triggerSettleMs: number | undefined
  private readonly secrets: () => string[]

  constructor(options: ClientOptions) {
    const base = parseBaseUrl(options.url)
    this.baseUrl = base.origin + base.pathname.replace(/\/+$/, '')
    this.origin = base.origin
    this.user = options.user || undefined
    this.deadline = options.deadline
    this.actionBudgetMs = options.actionBudgetMs ?? DEFAULT_ACTION_BUDGET_MS
    this.triggerSettleMs = options.triggerSettleMs
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

  jobUrl(job: JobPath): string {
    return `${this.baseUrl}${jobUrlPath(job)}/`
  }

  buildUrl(job: JobPath, number: number): string {
    return `${this.jobUrl(job)}${number}/`
  }

  async getJob(job: JobPath): Promise<JobInfo> {
    // The crumb is needed before the trigger that usually follows: fetch it
    // alongside the job to save a round trip.
    this.crumbs.prefetch()
    const name = fullName(job)
    const data = await this.getJson<RawJob>(
      'job',
      `${this.jobUrl(job)}api/json?tree=${encodeURIComponent(JOB_TREE)}`,
      this.context(`job '${name}'`, {
        notFound: `Job '${name}' was not found on Jenkins at ${this.origin} (404)${this.anonymousHint()}`
      })
    )
    const info: JobInfo = {
      name: typeof data.name === 'string' ? data.name : (job[job.length - 1] ?? ''),
      fullName: typeof data.fullName === 'string' ? data.fullName : name,
      // Jenkins' own `url` comes from its configured root URL, which may be
      // another host (jenkins-api.md 9): always our base.
      url: this.jobUrl(job),
      parameterDefinitions: parameterDefinitions(data.property),
      isFolder: isFolder(data)
    }
    if (typeof data._class === 'string') info._class = data._class
    if (typeof data.buildable === 'boolean') info.buildable = data.buildable
    if (typeof data.disabled === 'boolean') info.disabled = data.disabled
    if (typeof data.nextBuildNumber === 'number') info.nextBuildNumber = data.nextBuildNumber
    return info
  }

  async listJobs(folder: JobPath): Promise<string[]> {
    const where = folder.length > 0 ? `folder '${fullName(folder)}'` : 'the root'
    const base = folder.length > 0 ? this.jobUrl(folder) : `${this.baseUrl}/`
    const data = await this.getJson<RawItem>(
      'jobs',
      `${base}api/json?tree=${encodeURIComponent(listTree(LIST_DEPTH))}`,
      this.context(`the job list of ${where}`, {
        notFound: `Folder '${fullName(folder)}' was not found on Jenkins at ${this.origin} (404)${this.anonymousHint()}`
      })
    )
    if (!Array.isArray(data.jobs)) {
      throw new JenkinsError(
        'bad-request',
        `'${fullName(folder)}' on Jenkins at ${this.origin} is a job, not a folder: there are no jobs to list below it`
      )
    }
    const names: string[] = []
    this.collectJobs(data.jobs, folder.length > 0 ? `${fullName(folder)}/` : '', names)
    return names
  }

  async trigger(info: JobInfo, job: JobPath, params: BuildParameters): Promise<TriggerResult> {
    const name = fullName(job)
    if (info.isFolder) {
      // Building a computed folder starts a scan, not a build (jenkins-api.md 3.8).
      throw new JenkinsError(
        'bad-request',
        `Jenkins item ${name} is a folder, not a job (${info._class ?? 'folder'}, on ${this.origin}): name a job inside it, or list them with list-jobs`
      )
    }
    if (info.disabled === true || info.buildable === false) {
      throw new JenkinsError('conflict', this.disabledMessage(name))
    }
    const defined = new Set(info.parameterDefinitions.map(definition => definition.name))
    const unknownParameters = Object.keys(params).filter(key => !defined.has(key))
    const parameterized = info.parameterDefinitions.length > 0
    const form = new URLSearchParams()
    if (parameterized) {
      for (const [key, value] of Object.entries(params)) {
        if (!defined.has(key)) continue
        // Multi-value parameters are repeated fields.
        for (const item of typeof value === 'string' ? [value] : value) form.append(key, item)
      }
    }
    // /build on a parameterized job wants a `json` form and skips defaults;
    // /buildWithParameters fills in defaults (jenkins-api.md 3.2, 3.3).
    // `delay` is a request parameter; 0sec skips the quiet period (3.5).
    const endpoint = parameterized ? 'buildWithParameters' : 'build'
    const url = `${this.jobUrl(job)}${endpoint}?delay=0sec`
    const context = this.context(`the trigger of job '${name}'`, {
      notFound: `Job '${name}' was not found on Jenkins at ${this.origin} (404)${this.anonymousHint()}`,
      conflict: this.disabledMessage(name),
      permission: 'Job/Build',
      serverHint: parameterized
        ? 'Jenkins also answers 500 to a parameter value it does not accept, such as a choice that is not in the list.'
        : undefined
    })
    const expectation: TriggerExpectation = {
      job,
      parameters: expectedParameters(info.parameterDefinitions, parameterized ? params : {}),
      user: this.user,
      firstBuildNumber: info.nextBuildNumber
    }
    const jobUrl = this.jobUrl(job)
    for (let send = 1; ; send++) {
      const outcome = await this.triggerOnce(url, form.toString(), context, name)
      if ('queueId' in outcome) {
        return {
          queueId: outcome.queueId,
          // Reverse proxies rewrite hosts, and the Location follows the request's
          // own host (jenkins-api.md 3.1): rebuild it on our base.
          queueUrl: `${this.baseUrl}/queue/item/${outcome.queueId}/`,
          merged: outcome.merged,
          unknownParameters
        }
      }
      // The answer was lost: look for what Jenkins did before sending again
      // (reconcile.ts says why, and what risk remains).
      const lost = outcome.lost
      const settleMs = this.triggerSettleMs ?? (lost.slow ? SLOW_SETTLE_MS : SETTLE_MS)
      const unknown = (why: string): JenkinsError =>
        new JenkinsError(
          lost.error.kind === 'timeout' ? 'network' : lost.error.kind,
          `${lost.error.message} while triggering job '${name}' (${why}): the build may or may not have been queued. Check ${jobUrl} before running again.`,
          lost.error.status
        )
      if (this.deadline !== undefined && Date.now() + settleMs > this.deadline) {
        throw unknown('no time left before the step timeout to check')
      }
      let adopted: Adopted | undefined
      try {
        adopted = await reconcile(this.reconcileReader(job), expectation, {
          settleMs,
          sleep: ms => new Promise(resolve => setTimeout(resolve, ms)),
          logger: this.logger
        })
      } catch (error) {
        this.logger.debug(`Could not look for the lost trigger: ${(error as Error).message}`)
        throw unknown('and Jenkins could not be asked what it did')
      }
      if (adopted) {
        this.logger.info(
          adopted.from === 'queue'
            ? `Trigger answer lost (${lost.reason}); Jenkins shows queue item ${adopted.queueId} of '${name}' with these parameters: following it.`
            : `Trigger answer lost (${lost.reason}); Jenkins shows build #${adopted.buildNumber ?? '?'} of '${name}' with these parameters (queue item ${adopted.queueId}): following it.`
        )
        return {
          queueId: adopted.queueId,
          queueUrl: `${this.baseUrl}/queue/item/${adopted.queueId}/`,
          merged: false,
          unknownParameters,
          adopted: adopted.from
        }
      }
      if (send >= TRIGGER_SENDS) {
        throw unknown(`${send} answers lost, and Jenkins showed no queued item or build for any`)
      }
      this.logger.info(
        `Trigger answer lost (${lost.reason}); Jenkins shows no such queued item or build; sending it again.`
      )
    }
  }

  /**
   * One trigger POST. A refusal that provably did nothing (503, 429,
   * connection refused) is retried inside; an answer that may hide an action
   * (reset, hang up, timeout, a proxy's 500/502/504) comes back as `lost`.
   */
  private async triggerOnce(
    url: string,
    form: string,
    context: ErrorContext,
    name: string
  ): Promise<{ queueId: number; merged: boolean } | { lost: LostAnswer }> {
    let lost: LostAnswer | undefined
    let answer: { response: HttpResponse; body: string }
    try {
      answer = await this.post('trigger', url, context, {
        form,
        // Only a refusal that did nothing is sent again here: a second POST
        // that reaches Jenkins queues a second build.
        retryStatuses: TRIGGER_REFUSALS,
        retryNetwork: failure => failure.notSent,
        onNetworkFailure: failure => {
          lost = {
            error: failure.error,
            reason: failure.reason,
            slow: failure.error.kind === 'timeout'
          }
          return failure.error
        },
        deadline: this.deadline
      })
    } catch (error) {
      if (lost && error instanceof JenkinsError && error.kind !== 'aborted') return { lost }
      throw error
    }
    const { response, body } = answer
    if (AMBIGUOUS_STATUSES.has(response.status) && !fromJenkins(response)) {
      // A proxy's error says nothing of whether Jenkins got the POST.
      return {
        lost: {
          error: errorForResponse(response, body, context),
          reason: String(response.status),
          slow: response.status === 504
        }
      }
    }
    if (response.status >= 400) throw errorForResponse(response, body, context)
    const queueId =
      response.status === 201 || response.status === 303 ? queueIdOf(response) : undefined
    if (queueId === undefined) {
      const location = response.header('location')
      throw new JenkinsError(
        'protocol',
        `Jenkins at ${this.origin} did not queue a build of '${name}': it answered ${response.status}${location ? ` with a redirect to ${safePath(location, url)}` : ''} instead of a queue item. A plugin may have vetoed the build, or '${name}' is a computed folder whose build is a scan.`,
        response.status
      )
    }
    return { queueId, merged: response.status === 303 }
  }

  /** Reads for reconcile.ts: the queue, and the job's recent builds with parameters and causes. */
  private reconcileReader(job: JobPath): ReconcileReader {
    const name = fullName(job)
    return {
      queue: async () => {
        const data = await this.getJson<{ items?: unknown }>(
          'queue',
          `${this.baseUrl}/queue/api/json?tree=${encodeURIComponent(QUEUE_TREE)}`,
          this.context('the queue')
        )
        const items: QueuedCandidate[] = []
        for (const raw of Array.isArray(data.items) ? data.items : []) {
          const item = raw as { id?: unknown; task?: { url?: unknown } | null; actions?: unknown }
          const url = item?.task?.url
          if (typeof item?.id !== 'number' || typeof url !== 'string') continue
          const names = jobNamesFromUrl(url)
          if (!names) continue
          items.push({ id: item.id, job: names, parameters: parametersOf(item.actions) })
        }
        return items
      },
      builds: async () => {
        const data = await this.getJson<{ builds?: unknown }>(
          'builds',
          `${this.jobUrl(job)}api/json?tree=${encodeURIComponent(RECENT_BUILDS_TREE)}`,
          this.context(`the builds of job '${name}'`)
        )
        const builds: BuildCandidate[] = []
        for (const raw of Array.isArray(data.builds) ? data.builds : []) {
          const build = raw as { number?: unknown; queueId?: unknown; actions?: unknown } | null
          if (typeof build?.number !== 'number') continue
          const candidate: BuildCandidate = {
            number: build.number,
            parameters: parametersOf(build.actions)
          }
          if (typeof build.queueId === 'number') candidate.queueId = build.queueId
          const userIds = userIdsOf(build.actions)
          if (userIds) candidate.userIds = userIds
          builds.push(candidate)
        }
        return builds
      }
    }
  }

  async getQueueItem(queueId: number): Promise<QueueItem> {
    const item = await this.getJson<QueueItem>(
      'queue',
      `${this.baseUrl}/queue/item/${queueId}/api/json`,
      this.context(`queue item ${queueId}`, {
        notFound: `Queue item ${queueId} is not known to Jenkins at ${this.origin} (404): it left the queue more than 5 minutes ago, or Jenkins restarted`
      })
    )
    if (typeof item !== 'object' || item === null || typeof item.id !== 'number') {
      throw new JenkinsError(
        'protocol',
        `Jenkins at ${this.origin} answered queue item ${queueId} without an id`
      )
    }
    return item
  }

  async cancelQueueItem(queueId: number): Promise<CancelOutcome> {
    const url = `${this.baseUrl}/queue/cancelItem?id=${queueId}`
    const context = this.context(`the cancellation of queue item ${queueId}`, {
      permission: 'Job/Cancel'
    })
    // 500 is Jenkins' answer for an item that already left (jenkins-api.md 4), not a failure to retry.
    const { response, body } = await this.post('cancel', url, context, {
      retryStatuses: new Set([429, 502, 503, 504]),
      retryNetwork: failure => failure.transient,
      deadline: this.actionDeadline()
    })
    // Before 2.211 every answer was a redirect back (JENKINS-21311): 302 = cancelled.
    switch (response.status) {
      case 200:
      case 204:
      case 302:
      case 303:
        return 'cancelled'
      case 500:
        return 'already-left'
      case 404:
        return 'not-found'
      case 422:
        throw new JenkinsError(
          'forbidden',
          `Jenkins at ${this.origin} refused to cancel queue item ${queueId} for user '${this.user ?? 'anonymous'}' (422): the user lacks Job/Cancel`,
          422
        )
    }
    throw this.scrub(errorForResponse(response, body, context))
  }

  async getBuild(
    job: JobPath,
    which: number | 'lastBuild' | 'lastSuccessfulBuild',
    options: { tree?: string; depth?: number } = {}
  ): Promise<Build> {
    const name = fullName(job)
    const query = new URLSearchParams()
    if (options.tree !== undefined) query.set('tree', options.tree)
    if (options.depth !== undefined) query.set('depth', String(options.depth))
    const search = query.toString()
    const url = `${this.jobUrl(job)}${which}/api/json${search ? `?${search}` : ''}`
    const notFound =
      which === 'lastBuild'
        ? `Job '${name}' has no builds yet on Jenkins at ${this.origin} (no last build; or the job does not exist)`
        : which === 'lastSuccessfulBuild'
          ? `Job '${name}' has no last successful build on Jenkins at ${this.origin} (or the job does not exist)`
          : `Build #${which} of job '${name}' was not found on Jenkins at ${this.origin} (404)`
    const build = await this.getJson<Build>(
      'build',
      url,
      this.context(
        typeof which === 'number' ? `build #${which} of '${name}'` : `the ${which} of '${name}'`,
        {
          notFound
        }
      )
    )
    if (typeof build !== 'object' || build === null || typeof build.number !== 'number') {
      throw new JenkinsError(
        'protocol',
        `Jenkins at ${this.origin} answered a build of '${name}' without a number`
      )
    }
    return build
  }

  async recentBuilds(
    job: JobPath,
    limit: number
  ): Promise<Array<{ number: number; queueId?: number }>> {
    const name = fullName(job)
    const tree = `builds[number,queueId]{0,${Math.max(1, Math.floor(limit))}}`
    const data = await this.getJson<{ builds?: unknown }>(
      'builds',
      `${this.jobUrl(job)}api/json?tree=${encodeURIComponent(tree)}`,
      this.context(`the builds of job '${name}'`, {
        notFound: `Job '${name}' was not found on Jenkins at ${this.origin} (404)${this.anonymousHint()}`
      })
    )
    const builds: Array<{ number: number; queueId?: number }> = []
    for (const raw of Array.isArray(data.builds) ? data.builds : []) {
      const build = raw as { number?: unknown; queueId?: unknown } | null
      if (typeof build?.number !== 'number') continue
      builds.push(
        typeof build.queueId === 'number'
          ? { number: build.number, queueId: build.queueId }
          : { number: build.number }
      )
    }
    return builds
  }

  async progressiveText(build: BuildRef, start: number): Promise<ProgressiveText> {
    const name = fullName(build.job)
    const url = `${this.buildUrl(build.job, build.number)}logText/progressiveText?start=${start}`
    const context = this.context(`the console of build #${build.number} of '${name}'`, {
      notFound: `Build #${build.number} of job '${name}' was not found on Jenkins at ${this.origin} (404)`
    })
    return this.guarded(() =>
      withRetry(
        async () => {
          const response = await this.send({ method: 'GET', url, label: 'log' }, f => f.transient)
          if (response.status < 200 || response.status >= 300) {
            throw await this.failure(response, context)
          }
          if (response.contentType.includes('text/html')) {
            response.discard()
            throw htmlError(context, response.status)
          }
          const textSize = Number(response.header('x-text-size'))
          if (response.header('x-text-size') === undefined || !Number.isFinite(textSize)) {
            response.discard()
            throw new JenkinsError(
              'protocol',
              `Jenkins at ${this.origin} answered ${context.what} without a usable X-Text-Size header`
            )
          }
          // Streamed, not buffered: a console can be hundreds of MB. The
          // header is absent (never "false") once the log is complete (6.1).
          return {
            body: response.message,
            textSize,
            moreData: response.header('x-more-data') === 'true'
          }
        },
        this.readRetryOptions(`GET ${context.what}`, this.deadline)
      )
    )
  }

  async stopBuild(build: BuildRef, how: 'stop' | 'term' | 'kill'): Promise<void> {
    const name = fullName(build.job)
    const context = this.context(`the ${how} of build #${build.number} of '${name}'`, {
      notFound: `Build #${build.number} of job '${name}' was not found on Jenkins at ${this.origin} (404)${how === 'stop' ? '' : `; '${how}' exists only for Pipeline builds`}`,
      permission: 'Job/Cancel'
    })
    const { response, body } = await this.post(
      'stop',
      `${this.buildUrl(build.job, build.number)}${how}`,
      context,
      {
        retryStatuses: RETRYABLE_STATUSES,
        retryNetwork: failure => failure.transient,
        deadline: this.actionDeadline()
      }
    )
    // Jenkins redirects back after a stop, also when the build was not running (jenkins-api.md 7).
    if (isSuccessOrRedirect(response.status)) return
    throw this.scrub(errorForResponse(response, body, context))
  }

  async disableJob(job: JobPath): Promise<void> {
    const name = fullName(job)
    const context = this.context(`disabling job '${name}'`, {
      notFound: `Job '${name}' was not found on Jenkins at ${this.origin} (404)${this.anonymousHint()}`,
      permission: 'Job/Configure'
    })
    const { response, body } = await this.post('disable', `${this.jobUrl(job)}disable`, context, {
      retryStatuses: RETRYABLE_STATUSES,
      retryNetwork: failure => failure.transient,
      deadline: this.actionDeadline()
    })
    // HttpRedirect(".") on success, also when already disabled (jenkins-api.md 8).
    if (isSuccessOrRedirect(response.status)) return
    throw this.scrub(errorForResponse(response, body, context))
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

  /** GET + JSON with read retries. */
  private async getJson<T>(
    label: string,
    url: string,
    context: ErrorContext,
    options: { deadline?: number } = { deadline: this.deadline }
  ): Promise<T> {
    return this.guarded(() =>
      withRetry(
        async () => {
          const response = await this.send({ method: 'GET', url, label }, f => f.transient)
          if (response.status < 200 || response.status >= 300) {
            throw await this.failure(response, context)
          }
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
        this.readRetryOptions(`GET ${context.what}`, options.deadline)
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
  private async post(
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

  private retryOptions(what: string, deadline: number | undefined) {
    return { policy: this.policy, deadline, logger: this.logger, what }
  }

  /**
   * Reads may always repeat: within the step's deadline they get more tries
   * than a POST, so that a flaky network hours into a build (a socket hang up,
   * a proxy 502 burst) does not lose its result. The deadline bounds them.
   */
  private readRetryOptions(what: string, deadline: number | undefined) {
    const options = this.retryOptions(what, deadline)
    if (deadline === undefined) return options
    return {
      ...options,
      policy: { ...this.policy, attempts: Math.max(this.policy.attempts, READ_ATTEMPTS) }
    }
  }

  private actionDeadline(): number {
    return Date.now() + this.actionBudgetMs
  }

  private context(what: string, extra: Partial<ErrorContext> = {}): ErrorContext {
    return { origin: this.origin, user: this.user, what, ...extra }
  }

  private anonymousHint(): string {
    return this.user ? '' : '; if it exists, anonymous users may not see it: set user and token'
  }

  private disabledMessage(name: string): string {
    return `Job '${name}' on Jenkins at ${this.origin} is disabled (not buildable): enable it first`
  }

  private collectJobs(items: unknown[], prefix: string, names: string[]): void {
    for (const raw of items) {
      const item = raw as RawItem
      if (typeof item?.name !== 'string') continue
      const path = `${prefix}${item.name}`
      if (Array.isArray(item.jobs)) {
        this.collectJobs(item.jobs, `${path}/`, names)
      } else if (typeof item._class === 'string' && FOLDER_CLASSES.has(item._class)) {
        this.logger.debug(
          `Not listing the jobs of '${path}': deeper than ${LIST_DEPTH} folder levels`
        )
      } else {
        names.push(path)
      }
    }
  }

  private async guarded<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation()
    } catch (error) {
      throw this.scrub(error)
    }
  }

  /** Belt and braces: no message leaves with a credential or crumb in it. */
  private scrub(error: unknown): unknown {
    if (error instanceof JenkinsError) {
      const message = this.redact(error.message)
      return message === error.message ? error : new JenkinsError(error.kind, message, error.status)
    }
    if (error instanceof Error) error.message = this.redact(error.message)
    return error
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

function parseBaseUrl(value: string): URL {
  let url: URL
  try {
    url = new URL(value.trim())
  } catch {
    throw new JenkinsError('bad-request', `The Jenkins URL is not a valid URL`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new JenkinsError(
      'bad-request',
      `The Jenkins URL must be http or https, not ${url.protocol}`
    )
  }
  if (url.username || url.password) {
    throw new JenkinsError(
      'bad-request',
      `The Jenkins URL must not hold credentials: use user and token`
    )
  }
  return url
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

function isFolder(item: RawItem): boolean {
  return (
    (typeof item._class === 'string' && FOLDER_CLASSES.has(item._class)) || Array.isArray(item.jobs)
  )
}

function isSuccessOrRedirect(status: number): boolean {
  return (status >= 200 && status < 300) || status === 302 || status === 303
}

function parameterDefinitions(property: unknown): ParameterDefinition[] {
  const definitions: ParameterDefinition[] = []
  if (!Array.isArray(property)) return definitions
  for (const entry of property) {
    const list = (entry as { parameterDefinitions?: unknown } | null)?.parameterDefinitions
    if (!Array.isArray(list)) continue
    for (const raw of list) {
      const def = raw as {
        name?: unknown
        type?: unknown
        defaultParameterValue?: { value?: unknown } | null
        choices?: unknown
      }
      if (typeof def?.name !== 'string') continue
      const definition: ParameterDefinition = { name: def.name }
      if (typeof def.type === 'string') definition.type = def.type
      if (def.defaultParameterValue && 'value' in def.defaultParameterValue) {
        definition.defaultValue = def.defaultParameterValue.value
      }
      if (Array.isArray(def.choices)) {
        definition.choices = def.choices.filter((c): c is string => typeof c === 'string')
      }
      definitions.push(definition)
    }
  }
  return definitions
}

/** The queue item id from a trigger's Location (`…/queue/item/<id>/`), or undefined. */
function queueIdOf(response: HttpResponse): number | undefined {
  const location = response.header('location')
  if (!location) return undefined
  let path: string
  try {
    path = new URL(location, response.url).pathname
  } catch {
    return undefined
  }
  const match = /\/queue\/item\/(\d+)\/?$/.exec(path)
  return match ? Number(match[1]) : undefined
}

/**
 * Whether Jenkins itself produced an error answer rather than a proxy in
 * front of it: Jenkins' own pages (oops, layout) carry X-Jenkins (jenkins-api.md
 * 10). A 500 from Jenkins on a trigger is an exception while reading the
 * parameters (an illegal choice, 3.2), before anything was queued.
 */
function fromJenkins(response: HttpResponse): boolean {
  return response.header('x-jenkins') !== undefined
}

function safePath(location: string, base: string): string {
  try {
    return new URL(location, base).pathname
  } catch {
    return '(invalid location)'
  }
}
