import * as core from '@actions/core'
import { X509Certificate } from 'node:crypto'
import { resolve } from 'node:path'
import { parseArtifactPatterns } from './artifact-patterns.js'
import { Input } from '../util/constants.js'
import { parseDuration } from '../util/duration.js'
import { headerSecrets, parseExtraHeaders } from './extra-headers.js'
import { checkConflicts, conflict } from './input-conflicts.js'
import { InputError } from '../util/input-error.js'
import {
  parseAccept,
  parseBaseUrl,
  parseBranch,
  parseBuild,
  parseCommentPermission,
  parseCommit,
  parseCommitParameter,
  parseCredentials,
  parsePullRequest,
  parseScan,
  parseSecret,
  optional,
  parseWait,
  readBoolean
} from './input-values.js'
import { clip } from '../util/shorten.js'
import type { JobPath } from '../jenkins/model/types.js'
import { jobEntry, parseJobs, parseProject, parseValuesFile } from './jobs-input.js'
import { parseParameters } from './parameters.js'
import { parseBuildReference } from './build-reference.js'
import { workspaceFolder, WorkspacePathError } from '../util/workspace-paths.js'
import { parseFiles } from './upload-files.js'
import { githubLoginOf } from '../util/github-login.js'

/**
 * Every input of action.yml, read once and validated: what parseSettings
 * returns (each field's meaning is written where it is set). The job's
 * fields are those of an item of `jobs` (jobEntry): one `job` is the
 * one-item case. With `jobs`: job [], jobName '', and the shared
 * parameters, files and values-file.
 */
export type Settings = ReturnType<typeof parseSettings>

/**
 * The non-empty defaults of action.yml (any other input defaults to '').
 * The runner applies them, but library callers and `core.getInput` cannot
 * tell "unset" from "empty", so an empty value always means the default.
 * `github-token` defaults to `${{ github.token }}`, which only the runner
 * can evaluate.
 * @internal
 */
export const INPUT_DEFAULTS: Readonly<Partial<Record<Input, string>>> = {
  [Input.Wait]: 'true',
  [Input.Disable]: 'false',
  [Input.Build]: 'new',
  [Input.ListJobs]: 'false',
  [Input.Settle]: 'false',
  [Input.Timeout]: '3600',
  [Input.Accept]: 'SUCCESS',
  [Input.Log]: 'true',
  [Input.AbortOnCancel]: 'true',
  [Input.CommitStatus]: 'false',
  [Input.PrComment]: 'false',
  [Input.CommentPermission]: 'write',
  [Input.Scan]: 'if-missing',
  [Input.ArtifactsPath]: 'jenkins-artifacts',
  [Input.FailFast]: 'false',
  [Input.ValuesFileRequired]: 'false'
}

/**
 * Pure: reads every input through `get` (tests pass a map) and validates it,
 * against `env`: the workspace (GITHUB_WORKSPACE; the working directory when
 * unset) and the platform.
 * @internal
 */
export function parseSettings(
  get: (name: Input) => string,
  env: { workspace: string; platform: NodeJS.Platform } = {
    workspace: resolve(process.env['GITHUB_WORKSPACE'] || process.cwd()),
    platform: process.platform
  }
) {
  // Multi-line inputs keep their whitespace so that line numbers in messages
  // match what the user wrote; everything else is trimmed like core.getInput does.
  const read = (name: Input): string => {
    const value = MULTI_LINE.has(name) ? get(name) : get(name).trim()
    return value.trim() === '' ? (INPUT_DEFAULTS[name] ?? '') : value
  }

  const url = parseBaseUrl(read(Input.Url))
  const { user, token } = parseCredentials(read(Input.User), read(Input.Token))

  const bool = (name: Input): boolean => readBoolean(read, name)
  const disable = bool(Input.Disable)
  const listJobs = bool(Input.ListJobs)
  const settle = bool(Input.Settle)
  const statusCreator = parseStatusCreator(read(Input.StatusCreator), settle)
  const statusContext = read(Input.StatusContext)
  const commitStatus = bool(Input.CommitStatus)
  const prComment = bool(Input.PrComment)
  const commit = parseCommit(read(Input.Commit))
  const pullRequest = parsePullRequest(read(Input.PullRequest))
  const commitParameter = parseCommitParameter(read(Input.CommitParameter))
  const wait = parseWait(read(Input.Wait))
  const buildText = read(Input.Build)

  const parametersText = read(Input.Parameters)
  const hasParameters = parametersText.trim() !== ''
  const parameters = parseParameters(parametersText)
  const files = parseFiles(read(Input.Files))

  const failFast = bool(Input.FailFast)
  const valuesFileRequired = bool(Input.ValuesFileRequired)
  const valuesFile = parseValuesFile(read(Input.ValuesFile), `Input '${Input.ValuesFile}'`)
  const jobsText = read(Input.Jobs)
  const several = jobsText.trim() !== ''
  if (several && read(Input.Job) !== '') {
    throw conflict('jobs', 'job', `'jobs' names every job to build: add this one to it`)
  }
  if (several && listJobs) {
    throw conflict('jobs', 'list-jobs', `'list-jobs' lists the jobs of the folder in 'job'`)
  }
  if (settle) settleConflicts({ several, listJobs, disable, read })
  const shared = {
    parameters,
    hasParameters,
    files,
    branch: parseBranch(read(Input.Branch)) ?? '',
    ...(valuesFile === undefined ? {} : { valuesFile })
  }
  const jobs = several ? parseJobs(jobsText, url, shared) : undefined
  // One `job` is the one-item case of `jobs`; with `jobs`, no job and the shared inputs.
  const one = jobs
    ? jobEntry(Object.freeze([]), { ...shared, branch: '' })
    : jobEntry(parseJob(read(Input.Job), url, listJobs || settle), shared)
  const { job } = one
  const scan = parseScan(
    read(Input.Scan),
    (jobs?.entries ?? [one]).some(entry => entry.branch !== undefined)
  )
  // A build number or URL names one build of one job: never with `jobs`.
  if (jobs && (/^\d+$/.test(buildText) || /^[a-z][a-z0-9+.-]*:\/\//i.test(buildText))) {
    throw conflict(
      'jobs',
      'build',
      `a build number or URL names one build of one job: give it as that item's "build"`
    )
  }
  const reference = jobs ? undefined : parseBuildReference(buildText, url, job)
  // A lastBuild or lastSuccessfulBuild URL below url is that mode.
  const given = reference?.kind === 'latest' ? undefined : reference
  const build =
    reference?.kind === 'latest' ? reference.mode : given ? 'given' : parseBuild(buildText)
  const jobToken = parseSecret(
    read(Input.JobToken),
    Input.JobToken,
    `the job's "Trigger builds remotely" token`
  )
  const artifacts = parseArtifactPatterns(read(Input.Artifacts), env.platform)

  // The settings the conflict checks read.
  const use = {
    ...one,
    wait,
    disable,
    build,
    listJobs,
    /** The job's "Trigger builds remotely" token ('' for none). Already masked (getSettings). */
    jobToken,
    /** Lines of the `artifacts` input; empty: download nothing. */
    artifacts,
    /** Input `jobs`: the builds to start and follow together, in the order given; undefined with `job`. */
    ...(jobs ? { jobs: jobs.entries } : {}),
    /** Input `fail-fast`: when one of the `jobs` builds ends outside `accept`, stop the others this step started. */
    failFast,
    /** Input `values-file-required`: a values file that cannot be read fails the step (after its report) rather than warn. */
    valuesFileRequired,
    /** Input `commit-parameter`: the job parameter that takes the commit under test (outcome/commit-gate.ts); undefined: none. */
    ...(commitParameter === undefined ? {} : { commitParameter })
  }
  checkConflicts({ ...use, statusContext: statusContext !== '' })

  const githubToken = read(Input.GithubToken)
  const needsToken = [
    [commitStatus, Input.CommitStatus, 'statuses: write'],
    [settle, Input.Settle, 'statuses: write'],
    [prComment, Input.PrComment, 'pull-requests: write']
  ] as const
  for (const [on, name, permission] of needsToken) {
    if (on && githubToken === '') {
      throw new InputError(
        `Input '${name}' is true but 'github-token' is empty: expected a token with \`${permission}\` (leave the input out to use the workflow's github.token).`
      )
    }
  }
  return {
    /** Base URL, normalised: http(s), no credentials/query/fragment, no trailing slash. */
    url,
    user,
    /** API token or password ('' for anonymous). Already masked (getSettings). */
    token,
    ...use,
    ...(given ? { given } : {}),
    /** Input `settle`: settle the hand-offs whose builds ended (step/settle.ts), only those of `context` (`status-context` given) and of `job` (given), written by `creator` (`status-creator`); undefined: not this mode. */
    ...(settle
      ? {
          settle: {
            ...(statusCreator === undefined ? {} : { creator: statusCreator }),
            ...(statusContext === '' ? {} : { context: statusContext })
          }
        }
      : {}),
    /** Bound on the whole step, in milliseconds. */
    timeoutMs: parseDuration(read(Input.Timeout), Input.Timeout),
    /** Results that count as success; never empty, no duplicates. */
    accept: parseAccept(read(Input.Accept)),
    log: bool(Input.Log),
    abortOnCancel: bool(Input.AbortOnCancel),
    commitStatus,
    githubToken,
    /** The `status-context` input when given, else the job's. */
    statusContext: statusContext || one.statusContext,
    /** Input `pr-comment`: keep one comment on the run's pull request up to date. */
    prComment,
    /** Input `commit`: the commit under test, a full lower-case SHA; undefined: the event's rule (commit-under-test.ts). */
    ...(commit === undefined ? {} : { commit }),
    /** Input `pull-request`: the pull request the run is for, where the event names none. */
    ...(pullRequest === undefined ? {} : { pullRequest }),
    /** Input `comment-permission`: the least role the author of a comment command needs (outcome/commit-gate.ts). */
    commentPermission: parseCommentPermission(read(Input.CommentPermission)),
    scan,
    /** Extra headers for the Jenkins origin only. Values already masked (getSettings). */
    headers: parseExtraHeaders(read(Input.Headers), { credentials: user !== '' }),
    /** PEM CA certificates trusted for Jenkins besides Node's defaults (each one parsed). */
    caCerts: parseCaCert(read(Input.CaCert)),
    /** Absolute folder the artifacts are written to, inside the workspace. */
    artifactsPath: parseArtifactsPath(read(Input.ArtifactsPath), env.workspace),
    /** The workspace (GITHUB_WORKSPACE, else the working directory): outputs name paths relative to it. */
    workspace: env.workspace,
    /** What the inputs allow but may not mean (an item of `jobs` given twice): printed as warnings. */
    inputWarnings: jobs?.warnings ?? []
  }
}

/** Inputs whose lines and whitespace matter. */
const MULTI_LINE = new Set([Input.Parameters, Input.Files, Input.Artifacts, Input.Jobs])

/**
 * Reads the inputs with core.getInput. The secrets are given to `mask`
 * first (the step's: the runner's masker and the step's redaction,
 * step/step-io.ts), before any validation can write a message, so that
 * nothing this step writes afterwards can show them.
 */
export function getSettings(options: { mask: (secret: string) => void }): Settings {
  const mask = (value: string): void => {
    if (value !== '') options.mask(value)
  }
  for (const name of [Input.Token, Input.GithubToken, Input.JobToken]) mask(core.getInput(name))
  // Header values are secrets (access tokens); values under 4 characters
  // are not, and masking them would blank every such string in the log.
  for (const value of headerSecrets(core.getInput(Input.Headers))) {
    if (value.length >= 4) mask(value)
  }
  const jobs = core.getInput(Input.Jobs).split(/[\r\n",]+/)
  for (const value of [core.getInput(Input.Url), core.getInput(Input.Job), ...jobs]) {
    urlPasswords(value.trim()).forEach(mask)
  }
  return parseSettings(name => core.getInput(name, { trimWhitespace: !MULTI_LINE.has(name) }))
}

/** A password written into a URL (which we reject), as written and decoded: it must not show up in a later line. */
function urlPasswords(value: string): string[] {
  // The user name ends at the first ':', the password at the last '@' before the path.
  const password = /^[a-z][a-z0-9+.-]*:\/\/[^/?#:]*:([^/?#]*)@/i.exec(value)?.[1]
  if (password === undefined) return []
  try {
    const decoded = decodeURIComponent(password)
    return decoded !== password ? [password, decoded] : [password]
  } catch {
    // Not percent-encoded: the raw form only.
    return [password]
  }
}

function parseJob(value: string, url: string, listJobs: boolean): JobPath {
  if (value === '') {
    if (listJobs) return Object.freeze([])
    throw new InputError(
      `Input 'job' is required unless 'jobs' is set or 'list-jobs' is true: expected \`folder/job\`, \`job/folder/job/job\`, or the job URL on the same server as 'url'.`
    )
  }
  return parseProject(value, url, "Input 'job'")
}

/** Resolved against the workspace, which it must not leave (checked before any request). */
function parseArtifactsPath(value: string, workspace: string): string {
  const expected = `expected a folder inside the workspace (${workspace}), such as jenkins-artifacts`
  if (value.includes('\0'))
    throw new InputError(`Input 'artifacts-path' contains NUL: ${expected}.`)
  try {
    return workspaceFolder(value, workspace)
  } catch (error) {
    if (!(error instanceof WorkspacePathError)) throw error
    throw new InputError(`Input 'artifacts-path' ('${clip(value)}') ${error.reason}: ${expected}.`)
  }
}

/** `settle` reads hand-offs and writes their final statuses: it builds nothing, and lists or disables no job. */
function settleConflicts(o: {
  several: boolean
  listJobs: boolean
  disable: boolean
  read: (name: Input) => string
}): void {
  const why = 'settle triggers nothing: it settles the hand-offs earlier steps left'
  if (o.several) throw conflict('settle', 'jobs', `${why} (filter with 'job' or 'status-context')`)
  if (o.listJobs) throw conflict('settle', 'list-jobs', why)
  if (o.disable) throw conflict('settle', 'disable', why)
  for (const name of [
    Input.Parameters,
    Input.Files,
    Input.Build,
    Input.JobToken,
    Input.Artifacts
  ]) {
    if (o.read(name) !== (INPUT_DEFAULTS[name] ?? '')) throw conflict('settle', name, why)
  }
}

/** `status-creator`: a GitHub login (an app's ends in `[bot]`), with `settle` only. */
function parseStatusCreator(value: string, settle: boolean): string | undefined {
  if (value !== '' && !settle) {
    throw new InputError(
      `Input 'status-creator' only applies with 'settle: true': it names who wrote the hand-offs a settle run takes.`
    )
  }
  return optional(
    Input.StatusCreator,
    githubLoginOf,
    'a GitHub login: expected a login such as my-app[bot]'
  )(value)
}

const CA_EXPECTED =
  'expected the PEM text of one or more CA certificates (-----BEGIN CERTIFICATE----- … -----END CERTIFICATE-----), e.g. `ca-cert: ${{ secrets.JENKINS_CA }}`'

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END ([A-Z0-9 ]+)-----/g

/**
 * Parses the `ca-cert` input into PEM certificates, each one checked by
 * Node's X509 parser, so that a broken one is an input error before any
 * request. Text between blocks (a bundle's `# Subject:` comments) is
 * ignored; a private key is refused outright.
 */
function parseCaCert(text: string): string[] {
  const value = text.trim()
  if (value === '') return []
  const certificates: string[] = []
  let index = 0
  for (const match of value.matchAll(PEM_BLOCK)) {
    index++
    const [block, label = '', , endLabel = ''] = match
    if (/PRIVATE KEY/.test(label) || /PRIVATE KEY/.test(endLabel)) {
      throw new InputError(
        `Input 'ca-cert' holds a private key (block ${index}): it takes CA certificates only, which are public. Remove the key, and treat it as leaked if it was a real one.`
      )
    }
    if (label !== 'CERTIFICATE' || endLabel !== 'CERTIFICATE') {
      throw new InputError(
        `Input 'ca-cert' block ${index} is a ${label === endLabel ? label : `${label}/${endLabel}`} block: ${CA_EXPECTED}.`
      )
    }
    try {
      // Throws on bad base64 or DER; the message never holds the input.
      void new X509Certificate(block)
    } catch {
      throw new InputError(
        `Input 'ca-cert' certificate ${index} is not a valid certificate (damaged base64 or DER): ${CA_EXPECTED}.`
      )
    }
    certificates.push(`${block}\n`)
  }
  const begins = value.match(/-----BEGIN /g)?.length ?? 0
  if (begins > index) {
    throw new InputError(
      `Input 'ca-cert' has a BEGIN line without its END line (block ${index + 1}; cut short when copied?): ${CA_EXPECTED}.`
    )
  }
  if (certificates.length === 0) {
    const path = !/\s/.test(value) && /[/\\]|\.(pem|crt|cer)$/i.test(value)
    throw new InputError(
      `Input 'ca-cert' holds no PEM certificate${path ? ' (it looks like a file path: give the certificate text itself, or point NODE_EXTRA_CA_CERTS at the file)' : ''}: ${CA_EXPECTED}.`
    )
  }
  return certificates
}
