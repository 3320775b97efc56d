/**
 * Public option types of the Jenkins-compatible test server: jobs, users,
 * faults, server options, the request log. Its state is state.ts.
 */

/** Build results (hudson.model.Result), in Jenkins' order from best to worst. */
export type Result = 'SUCCESS' | 'UNSTABLE' | 'FAILURE' | 'NOT_BUILT' | 'ABORTED'

/** What a build of a job does. */
export interface JobScript {
  /** Run time of a build; default 1000. */
  durationMs?: number
  /** Final result; default SUCCESS. */
  result?: Result
  /** Lines written evenly over the duration. */
  consoleLines?: string[]
  /** Instead: a generated console of this many bytes, written over the duration. */
  consoleBytes?: number
  /** Pipeline only in Jenkins: the result is set while the build is still running. */
  earlyResult?: { afterMs: number; result: Result }
  /** Publishes a JUnit test report (TestResultAction) when the build ends. */
  tests?: TestReportSpec
  /** A Pipeline's stages, run one after the other (instead of `durationMs`); see StageSpec. */
  stages?: StageSpec[]
  /** Files archived when the build ends (ArtifactArchiver), listed in the build JSON and served below `artifact/`. */
  artifacts?: ArtifactSpec[]
  /** Embed raw ConsoleNote annotations in lines, as Jenkins >= 2.509 serves them. */
  consoleNotes?: boolean
  /** Pipeline: time from `stop` to the end of the build (`term`/`kill` end it at once). */
  stopDelayMs?: number
  /** Write one `NAME=value` line per parameter at the start of the build. */
  echoParameters?: boolean
  /** How this job's builds end; default the server's `endGap`. */
  endGap?: EndGap
  /** Written right after `building` turns false, before `Finished:` (RunListener.onCompleted, a freestyle job's downstream triggers). */
  completedLines?: string[]
  /** Written after `Finished: RESULT`, before the log closes (a Pipeline's stash clean-up error, WorkflowRun.finish). */
  afterFinishedLines?: string[]
  /**
   * What the build says of itself, as a Pipeline's `currentBuild.description`
   * and `currentBuild.displayName` do (Run.setDescription, setDisplayName),
   * from its start. A description may hold HTML: Jenkins stores it as
   * given, and only its markup formatter decides how its pages show it.
   */
  description?: string
  displayName?: string
  /** The `duration` a finished build's JSON claims, whatever it took: a broken or hostile server (1e21, -1). */
  claimedDuration?: number
}

/** Milliseconds: fixed, or drawn uniformly from [min, max] by the server's seeded PRNG. */
export type Millis = number | [number, number]

/**
 * The end of a build as Jenkins runs it (Run.execute with RunExecution.cleanUp,
 * WorkflowRun.finish): `building` turns false first, Jenkins then runs every
 * RunListener.onCompleted and the job's clean-up, writes `Finished: RESULT`,
 * closes the log and only then does progressiveText stop answering
 * `X-More-Data: true`. The sequence and its sources: build.ts.
 */
export interface EndGap {
  /** From `building: false` to the `Finished:` line (the listeners). */
  finishedAfterMs: Millis
  /** From the `Finished:` line to the log's completion (closing the log, saving build.xml). */
  closedAfterMs: Millis
}

/** One test case of a JUnit report (CaseResult). */
export interface TestCaseSpec {
  /** Fully qualified, e.g. com.example.CalcTest. */
  className: string
  name: string
  /** CaseResult.getStatus; REGRESSION and FIXED as junit-plugin reported them before its UI redesign. Default PASSED. */
  status?: 'PASSED' | 'FAILED' | 'SKIPPED' | 'REGRESSION' | 'FIXED'
  errorDetails?: string
  errorStackTrace?: string
  /** Seconds. */
  duration?: number
}

/** One suite (SuiteResult): a report file's worth of cases, with the Pipeline blocks around its junit step. */
export interface TestSuiteSpec {
  name: string
  cases: TestCaseSpec[]
  /** Flow node ids of the enclosing blocks, innermost first. */
  enclosingBlocks?: string[]
  /** Their names (stage names), innermost first. */
  enclosingBlockNames?: string[]
  nodeId?: string
}

/**
 * A test report: explicit suites, or `total` cases generated with `failed`
 * and `skipped` among them. `claims` replaces the counts the action and the
 * report announce (failCount, skipCount, totalCount), whatever the suites
 * hold: a broken or hostile publisher (1e21 cases, -1 failures).
 */
export type TestReportSpec = (
  | { suites: TestSuiteSpec[] }
  | {
      total: number
      failed: number
      skipped: number
      /** Cases per generated suite; default 100. */
      casesPerSuite?: number
      /** Generated case names padded to this many characters (default: `case000042`, 10). */
      caseNameChars?: number
      /** Where the failed and skipped cases go: spread over the report (default), at its start or at its end. */
      failuresAt?: 'spread' | 'start' | 'end'
    }
) & { claims?: { total?: number; failed?: number; skipped?: number } }

/** One stage of a Pipeline (a `stage` step), as the Stage View plugin will show it. */
export interface StageSpec {
  name: string
  /** Run time; default 200. */
  durationMs?: number
  /** SUCCESS (default); FAILURE fails the stage and the build, and no later stage runs; UNSTABLE marks both. */
  result?: 'SUCCESS' | 'FAILURE' | 'UNSTABLE'
  /**
   * With `result: 'FAILURE'`: the failure is caught as by
   * `catchError(buildResult: 'FAILURE', stageResult: 'FAILURE')`, so the
   * stage ends FAILED (its WarningAction), the build is marked FAILURE and
   * the next stage still runs.
   */
  catchError?: boolean
  /** Lines written evenly over the stage. */
  consoleLines?: string[]
  /**
   * The start wfapi reports instead of the real one (a broken clock or
   * plugin: 9007199254740991, past JavaScript's last date); the stage runs
   * as usual.
   */
  reportedStartMillis?: number
  /** After its run time the stage stops at an `input` step until someone proceeds or aborts (POST input/<id>/proceedEmpty or abort). */
  input?: {
    message: string
    /** InputStep id; default the capitalised digest of the message, as the plugin does (here: 'Input' + a hash). */
    id?: string
    /** The user who started the build (its UserIdCause) proceeds after this long, as a reviewer would (for the demo); default never. */
    proceedAfterMs?: number
  }
}

/** An archived file. */
export interface ArtifactSpec {
  /** The relativePath Jenkins lists (not checked: a hostile server may send anything). */
  path: string
  /** Its content (a string is UTF-8); or `size` bytes of generated text (served in constant memory). */
  content?: string | Buffer
  size?: number
}

export type ParameterType =
  | 'string'
  | 'boolean'
  | 'choice'
  | 'text'
  | 'password'
  /** Core's FileParameterDefinition. */
  | 'file'
  /** The file-parameters plugin's `base64File` (Base64FileParameterDefinition). */
  | 'base64File'
  /** The file-parameters plugin's `stashedFile` (StashedFileParameterDefinition). */
  | 'stashedFile'

export interface ParameterSpec {
  name: string
  /** Default 'string'. */
  type?: ParameterType
  /** Default value ('' for strings, false for booleans, the first choice for choices). */
  default?: string | boolean
  choices?: string[]
  description?: string
  /**
   * A plugin's definition that takes its value as `type`'s does (it extends
   * SimpleParameterDefinition: one value, a 500 for two): its class, whose
   * simple name the definition exports as its `type` (ParameterDefinition
   * .getType). For a parameter type the client cannot know. Default core's.
   */
  pluginClass?: string
}

export interface JobSpec {
  /** Default 'freestyle'. */
  type?: 'freestyle' | 'pipeline' | 'folder' | 'multibranch'
  parameters?: ParameterSpec[]
  disabled?: boolean
  /** Concurrent builds allowed; default false for freestyle, true for pipeline (as in Jenkins). */
  concurrent?: boolean
  /** The job's own quiet period, overriding the server default. */
  quietPeriodSec?: number
  script?: JobScript
  /** Children of a folder or multibranch project, by item name. */
  jobs?: Record<string, JobSpec>
  /** Display name; multibranch branches default to the decoded name (`feature%2Fx` → `feature/x`). */
  displayName?: string
  /**
   * The job's "Trigger builds remotely" token (BuildAuthorizationToken): a
   * request carrying it as `token` skips the Job/Build check and records a
   * RemoteCause (jenkins-api.md 3.1, 3.6).
   */
  authToken?: string
  /**
   * Multibranch: the branches and change requests the SCM has, as the SCM
   * names them (`feature/x`, `PR-42`). A scan creates a job for each one
   * that has none yet and, as branch-api does by default, builds it.
   * Default: the branches `jobs` already holds.
   */
  heads?: Record<string, JobSpec>
  /** Multibranch: how long a scan (branch indexing) takes; default 500. */
  scanDurationMs?: number
  /**
   * A multibranch branch: whether the scan that discovers it builds it
   * (default true, branch-api's default; false as with a suppressing
   * branch property or build strategy).
   */
  indexingBuild?: boolean
}

export type Permission = 'read' | 'build' | 'configure' | 'cancel' | 'admin'

export interface UserSpec {
  name: string
  password?: string
  apiToken?: string
  /** Default: every permission but admin. */
  permissions?: Permission[]
}

/** What a request does, for the request log and to aim faults. */
export type RequestKind =
  | 'crumb'
  | 'job'
  | 'trigger'
  | 'queue'
  | 'build'
  | 'log'
  | 'stop'
  | 'cancel'
  | 'disable'
  | 'list'
  /** POST build on a multibranch project: a scan (ComputedFolder.doBuild). */
  | 'scan'
  /** The scan's log (`indexing/…`). */
  | 'scan-log'
  /** A build's test report (`testReport/…`). */
  | 'tests'
  /** A Pipeline's stages (`wfapi/…`). */
  | 'stages'
  /** A Pipeline's input step (`input/…`). */
  | 'input'
  /** A build's archived file (`artifact/…`). */
  | 'artifact'
  /** A build's parameters (`parameters/…`): a file parameter's content. */
  | 'parameters'
  /** The computers and their executors (`computer/…`). */
  | 'computer'
  | 'other'

export interface FaultSpec {
  /** PRNG seed (mulberry32); the same seed and request sequence give the same faults. Default 1. */
  seed?: number
  /** Share (0..1) of requests answered with an error status, without acting. */
  errorRate?: number
  /** Statuses to pick from; default [502, 503]. */
  errorStatuses?: number[]
  /** Share (0..1) of requests whose connection is destroyed without an answer, without acting. */
  dropRate?: number
  /**
   * Share (0..1) of requests that Jenkins DOES act on, but whose answer is
   * lost on the way back: the client gets `lostAs` instead (a proxy that gave
   * up after passing the request on). Aimed at triggers, this queues a build
   * the client never hears of.
   */
  lostAnswerRate?: number
  /** What a lost answer looks like: 'drop' (connection closed) or a status; default ['drop', 502]. */
  lostAs?: Array<'drop' | number>
  /** Added latency: fixed, or uniformly drawn from [min, max]. */
  latencyMs?: number | [number, number]
  /** Sent as Retry-After on injected 503 answers. */
  retryAfterSec?: number
  /** Only these kinds are faulted (default: all). */
  kinds?: RequestKind[]
  /** These kinds are never faulted. */
  excludeKinds?: RequestKind[]
  /** Restart the server this long after the faults are applied. */
  restartAfterMs?: number
  /** Restart the server `afterMs` after the next build (of `job`, a full name, if given) starts. */
  restartDuringBuild?: { afterMs: number; job?: string }
}

/** Text fields a hostile Jenkins fills (see HostileSpec). */
export type HostileField = 'why' | 'name' | 'displayName' | 'result' | 'cause'

/**
 * A hostile, compromised or broken Jenkins, or something posing as one: the
 * text fields a client may print carry `text` in front of their usual value.
 * Real Jenkins lets users write most of them: display names are free text,
 * a `why` quotes label, node and item names, causes quote user names; item
 * names refuse `:` and control characters (Jenkins.checkGoodName) and a
 * result is one of five names, but a server that lies is not bound by that.
 * Everything else (URLs, numbers, states) behaves as usual.
 */
export interface HostileSpec {
  /** e.g. '::error::x', '\r::warning::x', '\n::stop-commands::x', '##[error]x'. */
  text: string
  /**
   * Where it goes (default all): `why` of a queue item still queued; `name`
   * (item `name` and `fullName`, a queue item's task); `displayName` (items'
   * and builds' display and full display names); `result` of a build that has
   * one; `cause` (a cause's shortDescription and userName).
   */
  fields?: HostileField[]
  /**
   * A `why` also echoes the request: its Cookie header and the crumb its
   * session was issued, as a proxy or plugin that quotes what it saw might
   * (`why: JSESSIONID.…=… crumb c0ffee…`). `text` may then be ''.
   */
  echoRequest?: boolean
  /**
   * A build echoes what its trigger request carried, as a build that prints
   * its environment, or a Jenkins that logs what it was sent, might: the
   * password or token of its Authorization header, its cookies, the crumb
   * it sent, its job `token`, the values of headers Jenkins does not use
   * (an auth proxy's) and its parameters' values (TriggerEcho), in front of
   * each of these texts of the build.
   */
  echoTrigger?: EchoField[]
  /**
   * Password parameters' values, which Jenkins never exports: sent as the
   * PasswordParameterValue's `value` (a plugin, an older or a hostile
   * Jenkins: `exported`), or under a StringParameterValue (`as-string`; the
   * job's definition still says password).
   */
  passwordValues?: 'exported' | 'as-string'
}

/**
 * A build's texts that HostileSpec.echoTrigger fills: its `description`,
 * `displayName`, string `parameter` values, `stage` names (wfapi), `test`
 * case names (testReport), and its `console` (a line after the cause).
 */
export type EchoField = 'description' | 'displayName' | 'parameter' | 'stage' | 'test' | 'console'

/** What a build echoes (HostileSpec.echoTrigger): the text, and where. */
export interface TriggerEcho {
  text: string
  fields: readonly EchoField[]
}

/**
 * What an aimed fault does to a request it hits. The first four let Jenkins
 * answer and spoil the way the answer travels back; the others replace the
 * answer without Jenkins acting (a proxy in front of it).
 */
export type FaultEffect =
  /** The headers at once, then the body at `bytesPerSecond`. */
  | { type: 'drip'; bytesPerSecond: number }
  /** The headers, then nothing; the connection stays open. */
  | { type: 'silence' }
  /** Part of the body (default: half), then nothing; the connection stays open. */
  | { type: 'half-open'; afterBytes?: number }
  /** Part of the body (default: half), then a TCP reset. */
  | { type: 'reset'; afterBytes?: number }
  /**
   * Jenkins handles the request, but its connection is reset once
   * `afterBytes` of the request body came (0: at its first bytes), or all
   * but its last `beforeEnd` bytes (by its Content-Length): an upload cut
   * off at its start, mid-way or in its closing boundary.
   */
  | { type: 'reset-upload'; afterBytes: number }
  | { type: 'reset-upload'; beforeEnd: number }
  /**
   * Jenkins' answer as it is, but without Content-Length: sent in chunks
   * (Transfer-Encoding: chunked), as a compressing or re-encoding proxy in
   * front of Jenkins, or a plugin that streams a file, sends it. The body
   * streams with backpressure, so the request log tells a client that stopped
   * reading early (no `finished`, fewer `bytes`) when the body is larger than
   * the socket buffers can hold.
   */
  | { type: 'chunked' }
  /** No answer at all; the connection stays open (Jenkins not asked). */
  | { type: 'hang' }
  /** A 200 HTML sign-in page of an SSO proxy (Jenkins not asked). */
  | { type: 'html-page' }
  /** A 200 answer whose JSON is cut short (Jenkins not asked). */
  | { type: 'invalid-json' }
  /** This status, with Retry-After when given (Jenkins not asked). */
  | { type: 'status'; status: number; retryAfterSec?: number }
  /**
   * Jenkins' own JSON answer carrying one more member nested `depth` levels
   * deep (`[[[…]]]`): in `actions` when the answer has them (an action, as a
   * plugin's could be), else as the object's first member. With `field`:
   * `actions` always gets the deep action first (the list added when the
   * answer has none: a proxy that ignores tree=), any other top-level field
   * (`result`) gets the deep value in place of its own. A broken plugin or a
   * hostile proxy: Jenkins acts as usual.
   */
  | { type: 'deep-json'; depth: number; field?: string }

/**
 * A fault aimed at some requests only, by kind and job, so that one server
 * can serve several tests at once, each faulting only its own requests.
 */
export interface AimedFault {
  /** The kind of request it hits (default: every kind; with `hang`, a Jenkins that accepts connections and never answers). */
  kind?: RequestKind
  /** Only requests that address this job (full name; for queue items and cancelItem, their job). */
  job?: string
  /** Only this method. */
  method?: 'GET' | 'POST'
  /** Only requests whose query, decoded, contains this (`tree=artifacts`: a build's artifacts list, not its polls). */
  query?: string
  /** The first matching request it hits, 1-based (default 1): `from: 2` lets the first one through. */
  from?: number
  /** How many matching requests it hits from there (default: all). */
  times?: number
  effect: FaultEffect
}

/** An aimed fault in place (TestJenkins.aim). */
export interface AimedFaultHandle {
  /** Requests it has hit so far. */
  readonly hits: number
  /** Resolves when it hits its first request (to act while that request hangs). */
  readonly hit: Promise<void>
  /** Takes it away; requests already hit keep their fate. */
  remove(): void
}

export interface ServerOptions {
  /** Default 0 (a free port). */
  port?: number
  /** Default 127.0.0.1. */
  host?: string
  /** e.g. '/jenkins'; default none. */
  contextPath?: string
  /** Default: admin/admin with an API token. */
  users?: UserSpec[]
  /** Anonymous users get Overall/Read and Job/Read. Default false. */
  anonymousRead?: boolean
  /** CSRF protection; default true. */
  csrf?: boolean
  /** Crumb request field (header) name; default 'Jenkins-Crumb'. */
  crumbField?: string
  /** Default 2. */
  executors?: number
  /** Server-wide quiet period; default 5 (Jenkins' default). */
  quietPeriodSec?: number
  /** How long a LeftItem stays readable; default 5 minutes. */
  leftItemTtlMs?: number
  /** Time a LeftItem shows `executable: null` before the run exists; default 0. */
  executableDelayMs?: number
  /** Jenkins' configured URL, used in JSON `url` fields; default the server's own address. */
  rootUrl?: string
  jobs?: Record<string, JobSpec>
  faults?: FaultSpec
  /** How long `restart()` keeps the port closed; default 200. */
  restartDowntimeMs?: number
  /** Serve https; `testCertificates` (tls.ts) makes a test CA and a certificate it signed. */
  tls?: { key: string | Buffer; cert: string | Buffer }
  /**
   * An authenticating proxy in front of Jenkins (Cloudflare Access,
   * oauth2-proxy, IAP): a request without every one of these headers (exact
   * values) never reaches Jenkins and gets the proxy's HTML login page,
   * with `status` (default 302 to the proxy's sign-in page, which answers 200).
   */
  authProxy?: { headers: Record<string, string>; status?: 200 | 302 | 401 | 403 }
  /** X-Jenkins; default '2.541.1'. */
  version?: string
  /** How builds end (jobs may override); default DEFAULT_END_GAP. */
  endGap?: EndGap
  /** Seed of the PRNG that draws end gaps given as ranges; default 1. */
  seed?: number
  /** Serve attacker-chosen text in the fields a client prints; default off. */
  hostile?: HostileSpec
  /**
   * Jenkins' clock minus the real one, in ms (default 0): a Jenkins whose
   * clock is behind (negative) or ahead of the runner's. Every time it
   * reports (`timestamp`, `inQueueSince`, `buildableStartMilliseconds`, the
   * stage view's times, the Date and Last-Modified headers) is on that clock.
   */
  clockSkewMs?: number
  /** Whether the Pipeline Stage View plugin (`wfapi`) is installed; default true. */
  stageView?: boolean
  /**
   * Jenkins' error page (a 500) shows the exception's stack trace, as with
   * -Djenkins.model.Jenkins.SHOW_STACK_TRACE=true (and in Jenkins before
   * 2.x); default false, as in Jenkins: the page gives only a Logging ID.
   */
  showStackTrace?: boolean
  /**
   * `computer/api/json` shows no running build (every `currentExecutable`
   * null), as a ComputerSource plugin that filters the list would; default
   * false. A client must not take a build missing from it for an ended one.
   */
  executorsHidden?: boolean
  /** Called with each request's log entry once it is answered (or its connection closed). */
  onRequest?: (entry: RequestLogEntry) => void
}

export interface RequestLogEntry {
  method: string
  /** Raw path without the query, including the context path. */
  path: string
  /** Raw query string without '?', '' when none. */
  query: string
  /** 0 when the connection was dropped. */
  status: number
  /** Authenticated user id, 'anonymous', or null when the credentials were rejected. */
  user: string | null
  /** How `user` signed in (unset when the request never got that far). */
  auth?: 'token' | 'password' | 'anonymous'
  /** Set when CrumbFilter checked this request's crumb (a POST with CSRF protection on, not by API token). */
  crumbChecked?: boolean
  /** Set when the request carried a header named like the crumb field (whatever its value). */
  crumbHeader?: boolean
  /** Epoch ms when the request arrived. */
  time: number
  /** Epoch ms when the whole answer was handed to the connection (unset when it was not). */
  finished?: number
  kind: RequestKind
  /** Full name of the job addressed, if any. */
  job?: string
  /**
   * Set when the answer was an injected fault ('lost': Jenkins acted, the
   * answer was replaced; else an aimed fault's effect), or the auth proxy
   * refused the request ('auth-proxy').
   */
  fault?: 'error' | 'drop' | 'lost' | 'auth-proxy' | FaultEffect['type']
  /** With fault 'lost': the status Jenkins answered before the answer was lost. */
  actedStatus?: number
  /**
   * Body bytes handed to the connection: what the client read, or more when
   * it stopped reading early (the rest is dropped with the connection).
   */
  bytes?: number
}
