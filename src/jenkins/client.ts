import * as actions from './trigger/actions.js'
import * as artifacts from './reads/artifacts.js'
import { runningBuilds } from './reads/executors.js'
import { buildUrl, jobKey, jobUrl } from './model/job-path.js'
import * as multibranch from './reads/multibranch.js'
import * as reads from './reads/reads.js'
import { describeRun } from './reads/stages.js'
import { readFailedTests } from './reports/test-report.js'
import { Requester } from './transport/requester.js'
import type { RequestSettings } from './transport/http.js'
import { trigger } from './trigger/trigger.js'
import { findLostTrigger } from './trigger/reconcile.js'
import { triggerUpload } from './trigger/upload-trigger.js'
import type { BuildParameters, BuildRef, JobInfo, JobPath } from './model/types.js'
import type { UploadFile } from './transport/multipart.js'

export interface ClientOptions extends RequestSettings {
  /** How long a lost trigger answer is given before looking again (default: reconcile.ts; tests shrink it). */
  triggerSettleMs?: number
  /** With a job token: the note Jenkins records with the RemoteCause, e.g. the workflow run's URL. */
  triggerCause?: string
}

/** A build by number or permalink (reads.ts getBuild). */
type BuildWhich = Parameters<typeof reads.getBuild>[2]

/** The trigger's info, job and parameters (trigger.ts), and the files to upload if any (upload-trigger.ts). */
type TriggerArgs = [
  info: JobInfo,
  job: JobPath,
  params: BuildParameters,
  files?: readonly UploadFile[]
]

/** What a finished build produced: apart, so that the follower and cancel paths (and their fakes) do not depend on it. */
type OutputKeys =
  'failedTests' | 'describeRun' | 'listArtifacts' | 'downloadArtifact' | 'readArtifact'
export type BuildOutputsApi = Pick<JenkinsClient, OutputKeys>
/** Everything else the action asks of Jenkins: the follower and main depend on it alone, to be tested with a fake. */
export type JenkinsApi = Omit<JenkinsClient, OutputKeys | 'http'>

/**
 * The Jenkins HTTP API. Every operation throws JenkinsError (errors.ts) with
 * a message a user can act on; reads retry transient failures. A facade: the
 * operations live in reads.ts, trigger.ts and actions.ts, and all of them go
 * through one Requester (requester.ts): one request path, bounded by the
 * signal and deadline given here (ClientOptions.signal, .deadline), and one
 * redaction list that every error leaving an operation passes (`guarded`),
 * whatever path made it (the trigger's included).
 */
export class JenkinsClient {
  readonly baseUrl: string
  /** The one request path: its requestCounts, session() for another client to continue, dispose(). */
  readonly http: Requester
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

  /** Absolute URL of a job on the configured base, ending in '/'. */
  jobUrl(job: JobPath): string {
    return jobUrl(this.baseUrl, job)
  }

  /** Absolute URL of a build on the configured base, ending in '/'. */
  buildUrl(job: JobPath, number: number): string {
    return buildUrl(this.baseUrl, job, number)
  }

  /**
   * An operation over this client's requester, whatever it throws scrubbed
   * (belt and braces: no message leaves with a credential, crumb or session
   * in it). Every operation of the client goes through it.
   */
  private guarded<A extends unknown[], T>(
    operation: (http: Requester, ...args: A) => Promise<T>
  ): (...args: A) => Promise<T> {
    return async (...args) => {
      try {
        return await operation(this.http, ...args)
      } catch (error) {
        const redact = this.http.redact
        if (error instanceof Error && redact(error.message) !== error.message) {
          error.message = redact(error.message)
          if (error.stack) error.stack = redact(error.stack)
        }
        throw error
      }
    }
  }

  getJob = this.guarded(async (http, job: JobPath) => {
    const info = await reads.getJob(http, job)
    const passwords = info.parameterDefinitions.filter(d => d.password).map(d => d.name)
    if (passwords.length > 0) this.passwords.set(jobKey(job), new Set(passwords))
    return info
  })

  /** A build's JSON by number or permalink; `tree` limits the fields (Jenkins tree syntax). */
  getBuild = this.guarded(
    (http, job: JobPath, which: BuildWhich, options: { tree?: string } = {}) =>
      reads.getBuild(http, job, which, { ...options, passwords: this.passwords.get(jobKey(job)) })
  )

  /** POST build or buildWithParameters (chosen from info.parameterDefinitions), never sent again once it may have reached Jenkins. */
  trigger = this.guarded((http, ...[info, job, params, files = []]: TriggerArgs) =>
    files.length > 0
      ? triggerUpload(http, info, job, params, files, this.triggerOptions)
      : trigger(http, info, job, params, this.triggerOptions)
  )

  /** When `url` is a path below Jenkins' root and Jenkins found no `what` there: what to set it to, as the error's message. */
  locateRoot = this.guarded((http, what: string) => http.locateRoot(what))
  /** Full names (`folder/sub/job`) of every job below `folder` (root when empty), in one request. */
  listJobs = this.guarded(reads.listJobs)
  /** The root URL Jenkins is configured with (what it writes in `url` fields), or null. */
  rootUrl = this.guarded(reads.rootUrl)
  getQueueItem = this.guarded(reads.getQueueItem)
  cancelQueueItem = this.guarded(actions.cancelQueueItem)
  /** The job's most recent builds, newest first, with their queue ids; `actions` adds causes and parameters. */
  recentBuilds = this.guarded(reads.recentBuilds)
  getQueue = this.guarded(reads.getQueue)
  /** Every build running on an executor that the caller may read, in one request; `deadline` bounds its retries. */
  runningBuilds = this.guarded(runningBuilds)
  /** POST build on a multibranch project: Jenkins queues a scan and answers with a redirect, no queue item. */
  scanMultibranch = this.guarded(multibranch.scanMultibranch)
  /** A multibranch project's scan log from `start`: the current scan's, or the last one's until a queued scan starts. */
  indexingLog = this.guarded(multibranch.indexingLog)
  progressiveText = this.guarded(reads.progressiveText)
  /** POST stop / term / kill on a build (302 counts as success). */
  stopBuild = this.guarded(actions.stopBuild)
  /** Looks (reads only, never a new trigger) for the queue item or build a lost trigger made. */
  findLostTrigger = this.guarded(findLostTrigger)
  disableJob = this.guarded(actions.disableJob)
  /** Failed tests of the build's report, read in bounded pages (reports/test-report.ts). */
  failedTests = this.guarded(readFailedTests)
  /** The Pipeline's stages (`wfapi/describe`); undefined when Jenkins has no such endpoint (404). */
  describeRun = this.guarded(describeRun)
  listArtifacts = this.guarded((http, build: BuildRef) => artifacts.listArtifacts(http, build))
  /** Streams one artifact into sinks from `open` (one per attempt; retried within the deadline). */
  downloadArtifact = this.guarded(artifacts.downloadArtifact)
  /** One artifact into memory, at most `maxBytes` of it read. */
  readArtifact = this.guarded(artifacts.readArtifact)
}
