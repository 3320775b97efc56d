import * as core from '@actions/core'
import { isAbsolute, resolve } from 'node:path'
import { isInside } from './artifact-paths.js'
import { parseArtifactPatterns, PatternError, type ArtifactPattern } from './artifact-patterns.js'
import { parseCaCert } from './ca-cert.js'
import { BUILD_RESULTS, Input, type BuildResult } from './constants.js'
import { parseDuration } from './duration.js'
import { headerSecrets, parseExtraHeaders, type ExtraHeader } from './extra-headers.js'
import { InputError } from './input-error.js'
import {
  branchItemName,
  fullName,
  JobPathError,
  parseJobPath,
  redactUrl
} from './jenkins/job-path.js'
import type { BuildParameters, JobPath } from './jenkins/types.js'
import { parseParameters } from './parameters.js'

export { InputError } from './input-error.js'

/** Input `wait`: `true` → finish, `started` → started, `false` → queued. */
export type WaitMode = 'finish' | 'started' | 'queued'
/** Input `build`. */
export type BuildMode = 'new' | 'last' | 'last-successful'
/** Input `scan`. */
export type ScanMode = 'if-missing' | 'never'

/** Every input of action.yml, read once and validated. */
export interface Settings {
  /** Base URL, normalised: http(s), no credentials/query/fragment, no trailing slash. */
  url: string
  user: string
  /** API token or password ('' for anonymous). Already registered with core.setSecret. */
  token: string
  /** Item names from the root; [] only when listJobs is true and `job` is empty. With `branch`, the branch job (project + encoded branch). */
  job: JobPath
  /** Full name for messages, e.g. 'team/service/deploy' ('' for the root). */
  jobName: string
  parameters: BuildParameters
  /** True when the `parameters` input was non-empty. */
  hasParameters: boolean
  wait: WaitMode
  disable: boolean
  build: BuildMode
  listJobs: boolean
  /** Bound on the whole step, in milliseconds. */
  timeoutMs: number
  /** Results that count as success; never empty, no duplicates. */
  accept: BuildResult[]
  log: boolean
  abortOnCancel: boolean
  commitStatus: boolean
  githubToken: string
  /** Commit status context, defaulted to `jenkins/<jobName>` (with `branch`: `jenkins/<project>`). */
  statusContext: string
  /** Input `branch`: the branch as Jenkins and the SCM name it, and its multibranch project (`job`). */
  branch?: { name: string; project: JobPath }
  scan: ScanMode
  /** The job's "Trigger builds remotely" token ('' for none). Already registered with core.setSecret. */
  jobToken: string
  /** Extra headers for the Jenkins origin only. Values already registered with core.setSecret. */
  headers: ExtraHeader[]
  /** PEM CA certificates trusted for Jenkins besides Node's defaults (each one parsed). */
  caCerts: string[]
  /** Lines of the `artifacts` input; empty: download nothing. */
  artifacts: readonly ArtifactPattern[]
  /** Absolute folder the artifacts are written to, inside the workspace. */
  artifactsPath: string
  /** The workspace (GITHUB_WORKSPACE, else the working directory): outputs name paths relative to it. */
  workspace: string
}

/** What the inputs are read against besides their values. */
export interface InputEnvironment {
  /** GITHUB_WORKSPACE; the working directory when unset. */
  workspace: string
  platform: NodeJS.Platform
}

/**
 * The defaults of action.yml. The runner applies them, but library callers
 * and `core.getInput` cannot tell "unset" from "empty", so an empty value
 * always means the default. `github-token` defaults to `${{ github.token }}`,
 * which only the runner can evaluate.
 */
export const INPUT_DEFAULTS: Readonly<Record<Input, string>> = {
  [Input.Url]: '',
  [Input.User]: '',
  [Input.Token]: '',
  [Input.Job]: '',
  [Input.Parameters]: '',
  [Input.Wait]: 'true',
  [Input.Disable]: 'false',
  [Input.Build]: 'new',
  [Input.ListJobs]: 'false',
  [Input.Timeout]: '3600',
  [Input.Accept]: 'SUCCESS',
  [Input.Log]: 'true',
  [Input.AbortOnCancel]: 'true',
  [Input.CommitStatus]: 'false',
  [Input.GithubToken]: '',
  [Input.StatusContext]: '',
  [Input.Branch]: '',
  [Input.Scan]: 'if-missing',
  [Input.JobToken]: '',
  [Input.Headers]: '',
  [Input.CaCert]: '',
  [Input.Artifacts]: '',
  [Input.ArtifactsPath]: 'jenkins-artifacts'
}

const BUILD_MODES: readonly BuildMode[] = ['new', 'last', 'last-successful']
const SCAN_MODES: readonly ScanMode[] = ['if-missing', 'never']

/** Pure: reads every input through `get` (tests pass a map) and validates it. */
export function parseSettings(
  get: (name: Input) => string,
  env: InputEnvironment = currentEnvironment()
): Settings {
  // Multi-line inputs keep their whitespace so that line numbers in messages
  // match what the user wrote; everything else is trimmed like core.getInput does.
  const read = (name: Input): string => {
    const value = MULTI_LINE.has(name) ? get(name) : get(name).trim()
    return value.trim() === '' ? INPUT_DEFAULTS[name] : value
  }

  const url = parseBaseUrl(read(Input.Url))
  const { user, token } = parseCredentials(read(Input.User), read(Input.Token))

  const disable = readBoolean(read, Input.Disable)
  const listJobs = readBoolean(read, Input.ListJobs)
  const log = readBoolean(read, Input.Log)
  const abortOnCancel = readBoolean(read, Input.AbortOnCancel)
  const commitStatus = readBoolean(read, Input.CommitStatus)

  const wait = parseWait(read(Input.Wait))
  const build = parseBuild(read(Input.Build))
  const timeoutMs = parseDuration(read(Input.Timeout), Input.Timeout)
  const accept = parseAccept(read(Input.Accept))

  const parametersText = read(Input.Parameters)
  const hasParameters = parametersText.trim() !== ''
  const parameters = parseParameters(parametersText)

  const project = parseJob(read(Input.Job), url, listJobs)
  const branch = parseBranch(read(Input.Branch))
  const scan = parseScan(read(Input.Scan), branch !== undefined)
  const job = branch === undefined ? project : Object.freeze([...project, branchItemName(branch)])
  const jobName = fullName(job)
  const jobToken = read(Input.JobToken)
  if (/\p{Cc}/u.test(jobToken)) {
    throw new InputError(
      `Input 'job-token' must not contain control characters (line breaks, tabs): expected the job's "Trigger builds remotely" token.`
    )
  }
  const headers = parseExtraHeaders(read(Input.Headers), { credentials: user !== '' })
  const caCerts = parseCaCert(read(Input.CaCert))

  const artifacts = parseArtifacts(read(Input.Artifacts), env.platform)
  const artifactsPath = parseArtifactsPath(read(Input.ArtifactsPath), env.workspace)

  checkConflicts({
    disable,
    listJobs,
    build,
    hasParameters,
    commitStatus,
    wait,
    branch: branch !== undefined,
    jobToken: jobToken !== '',
    hasArtifacts: artifacts.length > 0
  })

  const githubToken = read(Input.GithubToken)
  if (commitStatus && githubToken === '') {
    throw new InputError(
      `Input 'commit-status' is true but 'github-token' is empty: expected a token with \`statuses: write\` (leave the input out to use the workflow's github.token).`
    )
  }
  // A required status check needs a context that does not change with every
  // pull request: with `branch`, the project's name.
  const contextName = branch === undefined ? jobName : fullName(project)
  const statusContext =
    read(Input.StatusContext) || (contextName === '' ? 'jenkins' : `jenkins/${contextName}`)

  return {
    url,
    user,
    token,
    job,
    jobName,
    parameters,
    hasParameters,
    wait,
    disable,
    build,
    listJobs,
    timeoutMs,
    accept,
    log,
    abortOnCancel,
    commitStatus,
    githubToken,
    statusContext,
    ...(branch === undefined ? {} : { branch: { name: branch, project } }),
    scan,
    jobToken,
    headers,
    caCerts,
    artifacts,
    artifactsPath,
    workspace: env.workspace
  }
}

/** Inputs whose lines and whitespace matter. */
const MULTI_LINE: ReadonlySet<Input> = new Set([Input.Parameters, Input.Artifacts])

function currentEnvironment(): InputEnvironment {
  return {
    workspace: resolve(process.env['GITHUB_WORKSPACE'] || process.cwd()),
    platform: process.platform
  }
}

/**
 * Reads the inputs with core.getInput. The secrets are registered with
 * core.setSecret first, before any validation can write a message, so that
 * nothing this step logs afterwards can show them.
 */
export function getSettings(): Settings {
  maskSecret(core.getInput(Input.Token))
  maskSecret(core.getInput(Input.GithubToken))
  maskSecret(core.getInput(Input.JobToken))
  // Header values are secrets (access tokens); values under 4 characters
  // are not, and masking them would blank every such string in the log.
  for (const value of headerSecrets(core.getInput(Input.Headers))) {
    if (value.length >= 4) maskSecret(value)
  }
  maskUrlPassword(core.getInput(Input.Url))
  maskUrlPassword(core.getInput(Input.Job))
  return parseSettings(name => core.getInput(name, { trimWhitespace: !MULTI_LINE.has(name) }))
}

function maskSecret(value: string): void {
  if (value !== '') core.setSecret(value)
}

/** A password written into a URL (which we reject) must not show up in a later log line. */
function maskUrlPassword(value: string): void {
  const userinfo = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)@/i.exec(value)?.[1]
  const colon = userinfo?.indexOf(':') ?? -1
  if (userinfo === undefined || colon < 0) return
  const password = userinfo.slice(colon + 1)
  maskSecret(password)
  try {
    const decoded = decodeURIComponent(password)
    if (decoded !== password) maskSecret(decoded)
  } catch {
    // Not percent-encoded; the raw form is masked already.
  }
}

function parseBaseUrl(value: string): string {
  const expected = 'expected the Jenkins base URL, http(s)://host[:port][/context-path]'
  if (value === '') throw new InputError(`Input 'url' is required: ${expected}.`)
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new InputError(`Input 'url' ('${redactUrl(value)}') is not an absolute URL: ${expected}.`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InputError(
      `Input 'url' ('${redactUrl(value)}') must use http or https, not '${url.protocol.slice(0, -1)}': ${expected}.`
    )
  }
  if (url.username !== '' || url.password !== '') {
    // The message must not echo the URL: it holds the password.
    throw new InputError(
      `Input 'url' must not contain credentials: put the user name in 'user' and the API token in 'token' (${expected}).`
    )
  }
  if (url.search !== '' || url.hash !== '' || /[?#]/.test(value)) {
    // Not echoed: a query can hold a token.
    throw new InputError(
      `Input 'url' ('${redactUrl(value)}') must not have a query or fragment (the part from '?' or '#' on, not shown here): ${expected}.`
    )
  }
  return url.origin + url.pathname.replace(/\/+$/, '')
}

function parseCredentials(user: string, token: string): { user: string; token: string } {
  if (token !== '' && user === '') {
    throw new InputError(
      `Input 'token' is set but 'user' is empty: an API token belongs to a user, so set 'user' to that user's id (or leave both empty for anonymous access).`
    )
  }
  if (user !== '' && token === '') {
    // Jenkins never challenges anonymous requests (jenkins-api.md 2.1), so
    // without a token the action would silently run as anonymous.
    throw new InputError(
      `Input 'user' ('${user}') is set but 'token' is empty: set 'token' to the user's API token (or leave both empty for anonymous access).`
    )
  }
  // Basic auth splits user:password at the first colon (RFC 7617), and a
  // control character could not travel in a header.
  if (user.includes(':') || /\p{Cc}/u.test(user)) {
    throw new InputError(
      `Input 'user' must not contain ':' or control characters: expected a Jenkins user id.`
    )
  }
  if (/\p{Cc}/u.test(token)) {
    throw new InputError(
      `Input 'token' must not contain control characters (line breaks, tabs): expected one API token or password.`
    )
  }
  return { user, token }
}

function readBoolean(read: (name: Input) => string, name: Input): boolean {
  const value = read(name)
  // The YAML 1.2 core schema, exactly as core.getBooleanInput accepts it.
  if (value === 'true' || value === 'True' || value === 'TRUE') return true
  if (value === 'false' || value === 'False' || value === 'FALSE') return false
  throw new InputError(
    `Input '${name}' ('${clip(value)}') is not a boolean: expected true or false (true | True | TRUE | false | False | FALSE).`
  )
}

function parseWait(value: string): WaitMode {
  switch (value.toLowerCase()) {
    case 'true':
      return 'finish'
    case 'started':
      return 'started'
    case 'false':
      return 'queued'
    default:
      throw new InputError(`Input 'wait' ('${clip(value)}') must be one of true, started, false.`)
  }
}

function parseBuild(value: string): BuildMode {
  const mode = BUILD_MODES.find(m => m === value.toLowerCase())
  if (mode === undefined) {
    throw new InputError(
      `Input 'build' ('${clip(value)}') must be one of ${BUILD_MODES.join(', ')}.`
    )
  }
  return mode
}

function parseAccept(value: string): BuildResult[] {
  const expected = `expected a comma-separated list of ${BUILD_RESULTS.join(', ')}`
  const items = value
    .split(',')
    .map(item => item.trim().toUpperCase())
    .filter(item => item !== '')
  if (items.length === 0) throw new InputError(`Input 'accept' lists no result: ${expected}.`)
  const results: BuildResult[] = []
  for (const item of items) {
    const result = BUILD_RESULTS.find(r => r === item)
    if (result === undefined) {
      throw new InputError(`Input 'accept' has an unknown result '${clip(item)}': ${expected}.`)
    }
    if (!results.includes(result)) results.push(result)
  }
  return results
}

function parseJob(value: string, url: string, listJobs: boolean): JobPath {
  if (value === '') {
    if (listJobs) return Object.freeze([])
    throw new InputError(
      `Input 'job' is required unless 'list-jobs' is true: expected \`folder/job\`, \`job/folder/job/job\`, or the job URL on the same server as 'url'.`
    )
  }
  try {
    return parseJobPath(value, url)
  } catch (error) {
    if (error instanceof JobPathError) throw new InputError(error.message)
    throw error
  }
}

function parseArtifacts(value: string, platform: NodeJS.Platform): ArtifactPattern[] {
  try {
    return parseArtifactPatterns(value, platform)
  } catch (error) {
    if (error instanceof PatternError) {
      throw new InputError(
        `Input 'artifacts' has a pattern that can never match: ${error.message}.`
      )
    }
    throw error
  }
}

/** Resolved against the workspace, which it must not leave (checked before any request). */
function parseArtifactsPath(value: string, workspace: string): string {
  const expected = `expected a folder inside the workspace (${workspace}), such as jenkins-artifacts`
  if (value.includes('\0'))
    throw new InputError(`Input 'artifacts-path' contains NUL: ${expected}.`)
  const target = resolve(workspace, value)
  if (!isInside(workspace, target)) {
    const how = isAbsolute(value) ? 'is outside the workspace' : 'leads out of the workspace'
    throw new InputError(`Input 'artifacts-path' ('${clip(value)}') ${how}: ${expected}.`)
  }
  return target
}

function parseBranch(value: string): string | undefined {
  if (value === '') return undefined
  if (/\p{Cc}/u.test(value)) {
    throw new InputError(
      `Input 'branch' contains a control character: expected a branch or pull-request name as Jenkins shows it, e.g. feature/x or PR-42.`
    )
  }
  return value
}

function parseScan(value: string, hasBranch: boolean): ScanMode {
  const mode = SCAN_MODES.find(m => m === value.toLowerCase())
  if (mode === undefined) {
    throw new InputError(`Input 'scan' ('${clip(value)}') must be one of ${SCAN_MODES.join(', ')}.`)
  }
  if (mode !== 'if-missing' && !hasBranch) {
    throw new InputError(
      `Input 'scan' ('${mode}') only applies with 'branch': set 'branch' to the branch or pull request of the multibranch project in 'job', or leave 'scan' out.`
    )
  }
  return mode
}

function checkConflicts(s: {
  disable: boolean
  listJobs: boolean
  build: BuildMode
  hasParameters: boolean
  commitStatus: boolean
  wait: WaitMode
  branch: boolean
  jobToken: boolean
  hasArtifacts: boolean
}): void {
  const conflict = (a: string, b: string, why: string): InputError =>
    new InputError(`Inputs '${a}' and '${b}' cannot be used together: ${why}.`)
  if (s.branch && s.listJobs) {
    throw conflict(
      'branch',
      'list-jobs',
      `to list the branches of a multibranch project, name it in 'job' and leave 'branch' out`
    )
  }
  if (s.jobToken && s.listJobs) {
    throw conflict(
      'job-token',
      'list-jobs',
      'a job token only triggers builds; listing reads the jobs'
    )
  }
  if (s.jobToken && s.disable) {
    throw conflict(
      'job-token',
      'disable',
      'a job token only triggers builds; disabling needs user and token with Job/Configure'
    )
  }
  if (s.jobToken && s.build !== 'new') {
    throw conflict(
      'job-token',
      'build',
      `a job token only triggers builds; 'build: ${s.build}' triggers nothing`
    )
  }
  if (s.disable && s.listJobs) {
    throw conflict('disable', 'list-jobs', 'disabling a job and listing jobs are separate runs')
  }
  if (s.disable && s.hasParameters) {
    throw conflict(
      'disable',
      'parameters',
      'a disabled job is not built, so parameters would be ignored'
    )
  }
  if (s.disable && s.build !== 'new') {
    throw conflict('disable', 'build', `'disable' does not report a build; leave 'build' at new`)
  }
  if (s.listJobs && s.hasParameters) {
    throw conflict(
      'list-jobs',
      'parameters',
      'listing jobs builds nothing, so parameters would be ignored'
    )
  }
  if (s.listJobs && s.build !== 'new') {
    throw conflict('list-jobs', 'build', `listing jobs reports no build; leave 'build' at new`)
  }
  if (s.build !== 'new' && s.hasParameters) {
    throw conflict(
      'build',
      'parameters',
      `'build: ${s.build}' reports an existing build and triggers nothing, so parameters would be ignored`
    )
  }
  if (s.hasArtifacts && (s.disable || s.listJobs)) {
    throw conflict(
      'artifacts',
      s.disable ? 'disable' : 'list-jobs',
      'no build is reported, so there are no artifacts to download'
    )
  }
  if (s.hasArtifacts && s.wait !== 'finish') {
    throw conflict(
      'artifacts',
      'wait',
      `artifacts are downloaded once the build ends, which 'wait: ${s.wait === 'queued' ? 'false' : 'started'}' does not wait for; use 'wait: true'`
    )
  }
  // A pending status that nothing ever resolves would block a protected
  // branch for good.
  if (s.commitStatus && s.wait === 'queued') {
    throw conflict(
      'commit-status',
      'wait',
      `with 'wait: false' the result is never known, so the commit status would stay pending; use 'wait: true'`
    )
  }
}

function clip(text: string): string {
  return text.length > 40 ? text.slice(0, 40) + '…' : text
}
