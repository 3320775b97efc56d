import { parseHttpUrl } from '../util/http-url.js'
import * as actions from './trigger/actions.js'
import * as artifacts from './reads/artifacts.js'
import { runningBuilds } from './reads/executors.js'
import { buildUrl, jobKey, jobUrl } from './model/job-path.js'
import * as multibranch from './reads/multibranch.js'
import * as reads from './reads/reads.js'
import { describeRun } from './reads/stages.js'
import { readFailedTests } from './reports/test-report.js'
import { Requester } from './transport/requester.js'
import type { RequestSettings } from './transport/request-settings.js'
import { findLostTrigger, trigger } from './trigger/trigger.js'
import { triggerUpload } from './trigger/upload-trigger.js'
import type {
  ArtifactBytes,
  ArtifactDownload,
  ArtifactList,
  ArtifactSink,
  Build,
  BuildParameters,
  BuildOutputsApi,
  BuildRef,
  CancelOutcome,
  FailedTestsOptions,
  FailedTestsRead,
  FoundTrigger,
  IndexingLog,
  JenkinsApi,
  JobInfo,
  JobPath,
  PipelineRun,
  ProgressiveText,
  QueuedTask,
  QueueItem,
  RecentBuild,
  RunningBuild,
  TriggerResult
} from './model/types.js'
import type { LostTrigger } from './transport/errors.js'
import type { UploadFile } from './transport/multipart.js'

export interface ClientOptions extends RequestSettings {
  /** Base URL as validated by the inputs (http/https, no credentials); a trailing slash is tolerated. */
  url: string
  user?: string
  /** How long a lost trigger answer is given before looking again (default: reconcile.ts; tests shrink it). */
  triggerSettleMs?: number
  /** With a job token: the note Jenkins records with the RemoteCause, e.g. the workflow run's URL. */
  triggerCause?: string
}

/**
 * The Jenkins HTTP API (see JenkinsApi for the contract). A facade: the
 * operations live in reads.ts, trigger.ts and actions.ts, and all of them go
 * through one Requester (requester.ts): one request path, bounded by the
 * signal and deadline given here (ClientOptions.signal, .deadline), and one
 * redaction list that every error leaving an operation passes (`guarded`),
 * whatever path made it (the trigger's included).
 */
export class JenkinsClient implements JenkinsApi, BuildOutputsApi {
  readonly baseUrl: string
  private readonly http: Requester
  private readonly triggerSettleMs: number | undefined
  private readonly triggerCause: string | undefined
  /**
   * The password parameters of each job read (by jobKey): a build's value of
   * one is never kept, whatever its class says (decode.ts parametersIn).
   */
  private readonly passwords = new Map<string, ReadonlySet<string>>()

  constructor(options: ClientOptions) {
    // The `url` input checked it (inputs/input-values.ts parseBaseUrl); credentials never ride in it.
    const base = parseHttpUrl(
      options.url.trim(),
      'The Jenkins URL',
      'http(s)://host[:port][/context-path]'
    )
    this.baseUrl = base.origin + base.pathname.replace(/\/+$/, '')
    this.triggerSettleMs = options.triggerSettleMs
    this.triggerCause = options.triggerCause
    // The whole settings object: a setting added to RequestSettings reaches the requester unlisted.
    this.http = new Requester({
      ...options,
      baseUrl: this.baseUrl,
      user: options.user || undefined
    })
  }

  /** HTTP requests sent, by operation ('job', 'trigger', 'queue', 'build', 'log', 'crumb', …) and 'total'. */
  get requestCounts(): Readonly<Record<string, number>> {
    return this.http.requestCounts
  }

  /** Closes kept-alive connections (the process can also exit without it). */
  dispose(): void {
    this.http.dispose()
  }

  jobUrl(job: JobPath): string {
    return jobUrl(this.baseUrl, job)
  }

  buildUrl(job: JobPath, number: number): string {
    return buildUrl(this.baseUrl, job, number)
  }

  async getJob(job: JobPath): Promise<JobInfo> {
    const info = await this.http.guarded(() => reads.getJob(this.http, job))
    const passwords = info.parameterDefinitions.filter(d => d.password).map(d => d.name)
    if (passwords.length > 0) this.passwords.set(jobKey(job), new Set(passwords))
    return info
  }

  listJobs(folder: JobPath): Promise<string[]> {
    return this.http.guarded(() => reads.listJobs(this.http, folder))
  }

  trigger(
    info: JobInfo,
    job: JobPath,
    params: BuildParameters,
    files: readonly UploadFile[] = []
  ): Promise<TriggerResult> {
    const options = { settleMs: this.triggerSettleMs, cause: this.triggerCause }
    return this.http.guarded(() =>
      files.length > 0
        ? triggerUpload(this.http, info, job, params, files, options)
        : trigger(this.http, info, job, params, options)
    )
  }

  rootUrl(): Promise<string | null> {
    return this.http.guarded(() => reads.rootUrl(this.http))
  }

  locateRoot(what: string): Promise<string | undefined> {
    return this.http.guarded(() => this.http.locateRoot(what))
  }

  getQueueItem(queueId: number): Promise<QueueItem> {
    return this.http.guarded(() => reads.getQueueItem(this.http, queueId))
  }

  cancelQueueItem(queueId: number): Promise<CancelOutcome> {
    return this.http.guarded(() => actions.cancelQueueItem(this.http, queueId))
  }

  getBuild(
    job: JobPath,
    which: number | 'lastBuild' | 'lastSuccessfulBuild',
    options: { tree?: string; depth?: number } = {}
  ): Promise<Build> {
    const passwords = this.passwords.get(jobKey(job))
    return this.http.guarded(() => reads.getBuild(this.http, job, which, { ...options, passwords }))
  }

  recentBuilds(
    job: JobPath,
    limit: number,
    options: { actions?: boolean; outcome?: boolean } = {}
  ): Promise<RecentBuild[]> {
    return this.http.guarded(() => reads.recentBuilds(this.http, job, limit, options))
  }

  getQueue(): Promise<QueuedTask[]> {
    return this.http.guarded(() => reads.getQueue(this.http))
  }

  runningBuilds(options: { deadline?: number } = {}): Promise<RunningBuild[]> {
    return this.http.guarded(() => runningBuilds(this.http, options))
  }

  scanMultibranch(project: JobPath): Promise<void> {
    return this.http.guarded(() => multibranch.scanMultibranch(this.http, project))
  }

  indexingLog(project: JobPath, start: number): Promise<IndexingLog> {
    return this.http.guarded(() => multibranch.indexingLog(this.http, project, start))
  }

  progressiveText(build: BuildRef, start: number): Promise<ProgressiveText> {
    return this.http.guarded(() => reads.progressiveText(this.http, build, start))
  }

  stopBuild(build: BuildRef, how: 'stop' | 'term' | 'kill'): Promise<void> {
    return this.http.guarded(() => actions.stopBuild(this.http, build, how))
  }

  findLostTrigger(lost: LostTrigger): Promise<FoundTrigger | undefined> {
    return this.http.guarded(() => findLostTrigger(this.http, lost))
  }

  disableJob(job: JobPath): Promise<void> {
    return this.http.guarded(() => actions.disableJob(this.http, job))
  }

  failedTests(build: BuildRef, options: FailedTestsOptions = {}): Promise<FailedTestsRead> {
    return readFailedTests(this.http, build, options)
  }

  describeRun(build: BuildRef): Promise<PipelineRun | undefined> {
    return describeRun(this.http, build)
  }

  listArtifacts(build: BuildRef): Promise<ArtifactList> {
    return artifacts.listArtifacts(this.http, build)
  }

  downloadArtifact(
    build: BuildRef,
    relativePath: string,
    open: () => Promise<ArtifactSink>
  ): Promise<ArtifactDownload> {
    return artifacts.downloadArtifact(this.http, build, relativePath, open)
  }

  readArtifact(build: BuildRef, relativePath: string, maxBytes: number): Promise<ArtifactBytes> {
    return artifacts.readArtifact(this.http, build, relativePath, maxBytes)
  }
}
