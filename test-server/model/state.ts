/**
 * State types of the Jenkins-compatible test server: its items, queue and
 * builds as they are now, and the handle tests drive it by (TestJenkins).
 */

import type {
  AimedFault,
  AimedFaultHandle,
  FaultSpec,
  HostileSpec,
  JobScript,
  JobSpec,
  ParameterSpec,
  ParameterType,
  RequestLogEntry,
  Result,
  TriggerEcho,
  UserSpec
} from '../types.js'

/** A cause as exported (causes.ts makes them). */
export interface Cause {
  _class: string
  shortDescription: string
  /** UserIdCause: the user id, null for anonymous. */
  userId?: string | null
  /** UserIdCause. */
  userName?: string
  /** RemoteCause: the caller's address. */
  addr?: string
  /** RemoteCause: the request's `cause` parameter, or null. */
  note?: string | null
}

export interface ParameterValueState {
  name: string
  type: ParameterType
  /** A file parameter's: its file name. */
  value: string | boolean
  /** A file parameter's upload (uploads.ts). */
  file?: StoredFile
}

/** An uploaded file, kept on disk as Jenkins keeps a DiskFileItem. */
interface StoredFile {
  /** The name Jenkins keeps (the base name of the part's filename). */
  fileName: string
  /** Where the server stored the content. */
  path: string
  size: number
}

type ItemType = 'freestyle' | 'pipeline' | 'folder' | 'multibranch'

export interface JobState {
  /** Item name as in URLs (multibranch branches: the encoded `feature%2Fx`). */
  name: string
  /** Slash-joined names from the root, e.g. 'folder/job'. */
  fullName: string
  displayName: string
  type: ItemType
  parent: JobState | null
  /** Children of folders, keyed by lower-cased name (Jenkins looks items up case-insensitively). */
  children: Map<string, JobState>
  disabled: boolean
  concurrent: boolean
  quietPeriodSec: number | undefined
  parameters: ParameterSpec[]
  script: JobScript
  /** Oldest first. */
  builds: BuildState[]
  nextBuildNumber: number
  /** The "Trigger builds remotely" token, if the job has one. */
  authToken: string | undefined
  /** Multibranch: the SCM's heads by raw name (JobSpec.heads). */
  heads: Map<string, JobSpec> | undefined
  /** Multibranch: the current or last scan (ComputedFolder.getComputation). */
  indexing: IndexingState | undefined
  /** Multibranch: JobSpec.scanDurationMs. */
  scanDurationMs: number
  /** Multibranch branch: JobSpec.indexingBuild. */
  indexingBuild: boolean
}

/** A multibranch scan (branch-api's BranchIndexing, a FolderComputation). */
export interface IndexingState {
  causes: Cause[]
  /** Null while it runs (FolderComputation.isLogUpdated). */
  result: Result | null
  startedAt: number
  finishedAt: number | null
  /** The stored log, with its console notes. */
  logText(): string
}

export interface QueueItemState {
  id: number
  job: JobState
  parameters: ParameterValueState[]
  causes: Cause[]
  inQueueSince: number
  /** When the quiet period ends. */
  dueAt: number
  state: 'waiting' | 'blocked' | 'buildable' | 'left'
  buildableSince: number | null
  leftAt: number | null
  cancelled: boolean
  build: BuildState | null
  /** A scan's queue item, once it left the queue: the computation it ran. */
  indexing?: IndexingState
  /** What its build echoes (HostileSpec.echoTrigger). */
  echo?: TriggerEcho
}

export interface BuildState {
  job: JobState
  number: number
  queueId: number
  /** Parameter values by name (unknown names never reach a build). */
  parameters: Record<string, string | boolean>
  parameterValues: ParameterValueState[]
  causes: Cause[]
  result: Result | null
  /** Run.isBuilding(): false from the moment the result is final (POST_PRODUCTION), while the log may still be written. */
  building: boolean
  /** Run.isLogUpdated(): true until the log is closed; progressiveText sends `X-More-Data: true` meanwhile. */
  logUpdated: boolean
  /** Epoch ms: queued, started, marked finished (`building` turned false; null while running). */
  queuedAt: number
  startedAt: number
  finishedAt: number | null
  /** Epoch ms the log was closed (null while it is written). */
  logClosedAt: number | null
  /** Epoch ms each text the build wrote reached the log (not the generated console), for lag figures. */
  readonly writes: ReadonlyArray<{ at: number; text: string }>
  /** Set when `stop` was received. */
  stopRequestedAt: number | null
  /** The console as stored (with annotations), for small logs. */
  consoleText(): string
  /** Stored console length in bytes. */
  consoleLength(): number
}

export interface ServerState {
  /** The root folder (type 'folder', name ''). */
  root: JobState
  /** Every queue item still known (waiting, blocked, buildable, and LeftItems in the cache). */
  queue: QueueItemState[]
  /** Number of executors. */
  executors: number
  /** Finds an item by full name ('folder/job'), case-insensitively. */
  findJob(fullName: string): JobState | undefined
}

export interface TestJenkins {
  /** Base URL including the context path, no trailing slash. */
  url: string
  state: ServerState
  requests: RequestLogEntry[]
  /** Every crumb the crumb issuer handed out, across restarts (to search logs for them). */
  readonly issuedCrumbs: readonly string[]
  /** Every session id (session cookie value) handed out, across restarts (to search logs for them). */
  readonly issuedSessions: readonly string[]
  /** Current session cookie name (`JSESSIONID.<8 hex>`). */
  readonly cookieName: string
  /** Credentials of the configured users, for tests. */
  users: UserSpec[]
  close(): Promise<void>
  /** Drops sessions (new cookie name and salt), forgets LeftItems, refuses connections for restartDowntimeMs. */
  restart(): Promise<void>
  setFaults(f: FaultSpec | undefined): void
  /** Turns the hostile text on, changes it, or (undefined) turns it off. */
  setHostile(h: HostileSpec | undefined): void
  /** Adds a fault aimed at some requests (kind, job), alongside setFaults' and other aimed ones. */
  aim(fault: AimedFault): AimedFaultHandle
  /** All builds of a job by full name ('folder/job'), oldest first. */
  builds(fullName: string): BuildState[]
  /** Triggers counted from the request log (201/303 answers, also those whose answer was then lost), for one job or all. */
  triggerCount(fullName?: string): number
  addJob(fullName: string, spec: JobSpec): void
  /**
   * The job's cron trigger fires, as TimerTrigger.run does: a request with
   * a TimerTriggerCause, every parameter at its default (a file parameter
   * has none) and no quiet period, folded into an equal queued item like any
   * other request. Returns the queue item it queued or folded into.
   */
  timer(fullName: string): QueueItemState
  /**
   * A new branch or change request in the SCM of multibranch project
   * `project` (a full name), as a push or a new pull request makes one: the
   * next scan creates its job.
   */
  addHead(project: string, branch: string, spec?: JobSpec): void
  /** Append a raw line to a build's console (a newline is added when missing). */
  appendConsole(fullName: string, number: number, line: string): void
  /** Adds finished builds to a job's history, oldest first, as if they had run before (for its estimatedDuration). */
  addHistory(fullName: string, builds: Array<{ durationMs: number; result?: Result }>): void
}
