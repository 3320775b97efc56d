import * as actions from './trigger/actions.js'
import * as artifacts from './reads/artifacts.js'
import { runningBuilds } from './reads/executors.js'
import { buildUrl, jobKey, jobUrl } from './model/job-path.js'
import * as multibranch from './reads/multibranch.js'
import * as reads from './reads/reads.js'
import { describeRun } from './reads/stages.js'
import { readFailedTests } from './reports/test-report.js'
import { Requester } from './transport/requester.js'
import type { JenkinsSession, RequestSettings } from './transport/request-settings.js'
import { findLostTrigger, trigger } from './trigger/trigger.js'
import { triggerUpload } from './trigger/upload-trigger.js'
import type {
  BuildOutputsApi,
  BuildParameters,
  BuildRef,
  JenkinsApi,
  JobInfo,
  JobPath
} from './model/types.js'
import type { UploadFile } from './transport/multipart.js'

export interface ClientOptions extends RequestSettings {
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
  private readonly triggerOptions: { settleMs?: number; cause?: string }
  /**
   * The password parameters of each job read (by jobKey): a build's value of
   * one is never kept, whatever its class says (decode.ts parametersIn).
   */
  private readonly passwords = new Map<string, ReadonlySet<string>>()

  constructor(options: ClientOptions) {
    // The whole settings object: a setting added to RequestSettings reaches the requester unlisted.
    this.http = new Requester(options)
    this.baseUrl = this.http.baseUrl
    this.triggerOptions = { settleMs: options.triggerSettleMs, cause: options.triggerCause }
  }

  /** HTTP requests sent, by operation ('job', 'trigger', 'queue', 'build', 'log', 'crumb', …) and 'total'. */
  get requestCounts(): Readonly<Record<string, number>> {
    return this.http.requestCounts
  }

  /** The session (cookies, crumb) for another client of the same Jenkins to continue: the abort's (RequestSettings.session). */
  session(): JenkinsSession | undefined {
    return this.http.session()
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

  /** An operation over this client's requester, whatever it throws scrubbed (Requester.guarded). */
  private guarded<A extends unknown[], T>(
    operation: (http: Requester, ...args: A) => Promise<T>
  ): (...args: A) => Promise<T> {
    return (...args) => this.http.guarded(() => operation(this.http, ...args))
  }

  getJob = this.guarded(async (http, job: JobPath) => {
    const info = await reads.getJob(http, job)
    const passwords = info.parameterDefinitions.filter(d => d.password).map(d => d.name)
    if (passwords.length > 0) this.passwords.set(jobKey(job), new Set(passwords))
    return info
  })

  getBuild = this.guarded(
    (
      http,
      job: JobPath,
      which: number | 'lastBuild' | 'lastSuccessfulBuild',
      options: { tree?: string; depth?: number } = {}
    ) =>
      reads.getBuild(http, job, which, { ...options, passwords: this.passwords.get(jobKey(job)) })
  )

  trigger = this.guarded(
    (
      http,
      info: JobInfo,
      job: JobPath,
      params: BuildParameters,
      files: readonly UploadFile[] = []
    ) =>
      files.length > 0
        ? triggerUpload(http, info, job, params, files, this.triggerOptions)
        : trigger(http, info, job, params, this.triggerOptions)
  )

  locateRoot = this.guarded((http, what: string) => http.locateRoot(what))
  listJobs = this.guarded(reads.listJobs)
  rootUrl = this.guarded(reads.rootUrl)
  getQueueItem = this.guarded(reads.getQueueItem)
  cancelQueueItem = this.guarded(actions.cancelQueueItem)
  recentBuilds = this.guarded(reads.recentBuilds)
  getQueue = this.guarded(reads.getQueue)
  runningBuilds = this.guarded(runningBuilds)
  scanMultibranch = this.guarded(multibranch.scanMultibranch)
  indexingLog = this.guarded(multibranch.indexingLog)
  progressiveText = this.guarded(reads.progressiveText)
  stopBuild = this.guarded(actions.stopBuild)
  findLostTrigger = this.guarded(findLostTrigger)
  disableJob = this.guarded(actions.disableJob)
  failedTests = this.guarded(readFailedTests)
  describeRun = this.guarded(describeRun)
  listArtifacts = this.guarded((http, build: BuildRef) => artifacts.listArtifacts(http, build))
  downloadArtifact = this.guarded(artifacts.downloadArtifact)
  readArtifact = this.guarded(artifacts.readArtifact)
}
