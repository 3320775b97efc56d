import type { Readable, Writable } from 'node:stream'
import type { BuildResult } from '../../util/constants.js'

/** A job's place in Jenkins: the decoded item names from the root, e.g. ['team', 'service', 'deploy']. */
export type JobPath = readonly string[]

/** Build parameters as the user gave them; an array is a multi-value parameter (repeated form field). */
export type BuildParameters = Readonly<Record<string, string | readonly string[]>>

/** One parameter definition of a job (job JSON `property[].parameterDefinitions[]`). */
export interface ParameterDefinition {
  name: string
  /** e.g. StringParameterDefinition, BooleanParameterDefinition, ChoiceParameterDefinition */
  type?: string
  /** A password (PasswordParameterDefinition, or a plugin's kin): its default value is never kept, nor any build's value of it. */
  password?: true
  defaultValue?: unknown
  choices?: string[]
}

/** What the client needs to know of a job before triggering it. */
export interface JobInfo {
  _class?: string
  name: string
  /** The job's URL rebased onto the configured base URL (never Jenkins' own root URL). */
  url: string
  buildable?: boolean
  disabled?: boolean
  /** Empty when the job takes no parameters. */
  parameterDefinitions: ParameterDefinition[]
  /** True for folders, multibranch projects and organisation folders (things that are not jobs). */
  isFolder: boolean
  /** For folders: a plain folder, a multibranch project (its jobs are branches), or an organisation folder (its items are multibranch projects). */
  folderKind?: 'folder' | 'multibranch' | 'organization'
  /** The number the next build will get; bounds the builds a lost trigger answer may have started. */
  nextBuildNumber?: number
  /** The job's newest builds, newest first (at most 6): what Jenkins estimates the next one's length from. */
  recent?: BuildSummary[]
  /** The job's last finished builds, newest first (at most 10); [] when it has none. */
  history?: BuildSummary[]
}

/** One of a job's recent builds (job `builds[number,result,duration,building]`). */
export interface BuildSummary {
  number: number
  result: BuildResult | null
  /** ms; 0 while building. */
  duration: number
  building: boolean
}

/** Result of a trigger POST. */
export interface TriggerResult {
  /** Queue item id taken from the Location header. */
  queueId: number
  /** Queue item URL rebased onto the configured base URL, e.g. https://ci/jenkins/queue/item/42/ */
  queueUrl: string
  /** True when Jenkins answered 303: an identical item was already queued and ours merged into it. */
  merged: boolean
  /** Names the caller sent that the job does not define (Jenkins drops them silently). */
  unknownParameters: string[]
  /** Set when the trigger's answer was lost and the item or build was found in Jenkins instead. */
  adopted?: 'queue' | 'build'
}

/**
 * A build (GET job/.../N/api/json, whole or with a `tree`), decoded once
 * where it is read (reads/decode.ts decodeBuild): what the action reads is
 * true to its type, what Jenkins sent that is not (a broken or hostile
 * server) is left out; the JSON itself is kept as it came in `json`.
 */
export interface Build {
  _class?: string
  number: number
  /** Jenkins' own URL (may be on another host), absent when it sent none: never a request target (BuildRef.url is). */
  url?: string
  building: boolean
  result: BuildResult | null
  /** Milliseconds (0 while it runs); absent when Jenkins sent no count (or the read's tree left it out). */
  duration?: number
  /** Jenkins' estimate in milliseconds (-1: none); absent when not a whole number. */
  estimatedDuration?: number
  /** Its start, epoch milliseconds; absent when not a count. */
  timestamp?: number
  queueId?: number
  /** Run.getDescription as Jenkins stores it (HTML with an HTML markup formatter); '' when none. */
  description: string
  /** Run.getDisplayName: `#N` unless the build set its own. */
  displayName: string
  actions?: unknown[]
  /** What it ran with, decoded from its ParametersAction (reads/decode.ts parametersIn); absent when it has none. */
  parameters?: ExportedParameter[]
  /**
   * The JSON as Jenkins sent it (less the nested plugin lists the read
   * drops: transport/json.ts), for the `build` output and nothing else:
   * read the decoded fields above.
   */
  json: Readonly<Record<string, unknown>>
}

/** Enough to address a build: its job and number. `url` is rebased onto the configured base. */
export interface BuildRef {
  job: JobPath
  number: number
  url: string
}

/** One chunk of the progressive console log. */
export interface ProgressiveText {
  /** The raw body (Jenkins may use CRLF and may include ConsoleNote annotations); the caller must consume or destroy it. */
  body: Readable
  /** X-Text-Size: the offset to ask for next. */
  textSize: number
  /** X-More-Data: true while the build is still logging; false when the log is complete. */
  moreData: boolean
}

/** Where one download attempt writes: a temporary file, kept or dropped at the end. */
export interface ArtifactSink {
  stream: Writable
  /** Told the bytes received so far, after each chunk. */
  progress?(bytes: number): void
  /** The body arrived whole: make it the artifact (rename into place). */
  commit(): Promise<void>
  /** The attempt failed: remove what was written. */
  discard(): Promise<void>
}

/** A failed test case of a build's test report. */
export interface FailedTest {
  /** Fully qualified class name, as the report has it. */
  className: string
  /** The case's name as Jenkins shows it (with its stages when the report spans several). */
  name: string
  /** FAILED, or REGRESSION from older JUnit plugins. */
  status: string
  /** Its page in Jenkins, on the configured base URL. */
  url: string
  /** The failure's message (CaseResult.errorDetails), cut to its first 2000 characters. */
  errorDetails?: string
  /** The failure's stack trace (CaseResult.errorStackTrace), cut to its first 8000 characters. */
  errorStackTrace?: string
  /** The Pipeline stages around the junit step, outermost first. */
  stage?: string
}

/** What a bounded read of a test report found. */
export interface FailedTestsRead {
  /** Failed tests, in report order, up to the number asked for. */
  failed: FailedTest[]
  /** Cases read (failed or not). */
  casesRead: number
  /** Body bytes read, over every page. */
  bytesRead: number
  requests: number
  /** Every case of the report was read. */
  complete: boolean
  /** The scan stopped at its byte budget, before the report's end and before finding all it wanted. */
  budgetReached: boolean
}

/** A JSON value, as JSON.parse gives it. */
export type JsonValue =
  string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue }

/** A parameter as Jenkins exports it; `value` is absent for password parameters. */
export interface ExportedParameter {
  name: string
  value?: unknown
  /** A password parameter (its value's `_class` says so): never shown. */
  password?: true
  /** A file parameter (core's FileParameterValue, the File Parameters plugin's): Jenkins exports its name only. */
  file?: true
}

/** An item waiting in the queue (queue/api/json). */
export interface QueuedTask {
  id: number
  /** Decoded item names of its task, from the task's URL (e.g. ['repo', 'PR-42']). */
  job: string[]
  /** `_class` of each of its causes, e.g. 'jenkins.branch.BranchIndexingCause'. */
  causes: string[]
  /** userId of each of its UserIdCauses (null for anonymous); absent when it has none. */
  userIds?: Array<string | null>
  parameters: ExportedParameter[]
  /** Why it is still waiting (Jenkins' text, untrusted), when it says. */
  why?: string
}

/** What a LostTrigger turned out to be in Jenkins. */
export interface FoundTrigger {
  queueId: number
  /** Set when it was found as a build (the queue item had already left). */
  buildNumber?: number
}

/** Outcome of POST queue/cancelItem. */
export type CancelOutcome = 'cancelled' | 'already-left' | 'not-found'
