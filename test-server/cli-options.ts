/**
 * The test server's command line (`npm run server -- …`): its flags, their
 * help, and their reading into ServerOptions. Every bad flag or value is a
 * UsageError that names the flag and what it expects.
 */
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { SAMPLE_NOTES, SAMPLE_WORKSPACE, sampleJobs } from './model/sample-jobs.js'
import { DEFAULT_USERS } from './server.js'
import { timeSpan } from './model/time-span.js'
import type {
  JobSpec,
  ParameterSpec,
  ParameterType,
  Permission,
  Result,
  ServerOptions,
  UserSpec
} from './types.js'

/** A bad command line: the message names the flag and what it expects. */
export class UsageError extends Error {}

/** What the command line asks for. */
export interface CliConfig {
  /** --help: print HELP and exit. */
  help: boolean
  options: ServerOptions
  /** --tls: the folder for the test CA and the server's certificate. */
  tlsDir?: string
  /** --log: print each request. */
  log: boolean
  /** --silent: accept connections and answer nothing (a hung Jenkins, a wrong port). */
  silent: boolean
  /** The job the start-up lines point the action at: the first --job (else --pipeline), else a sample. */
  job?: string
}

export const DEFAULT_PORT = 8080
const DEFAULT = DEFAULT_USERS[0] as Required<UserSpec>

/** One line per sample job: its name, then what it shows. */
function sampleLines(): string[] {
  return Object.entries(SAMPLE_NOTES).map(([name, note]) => `  ${name.padEnd(23)}  ${note}`)
}

export const HELP = `Jenkins-compatible test server: starts with sample jobs, prints how to point the
action at it, and runs until Ctrl+C.

usage: npm run server -- [flags]         (or: npx tsx test-server/cli.ts [flags])

Server
  --port N                 Port to listen on; 0 picks a free one (default ${DEFAULT_PORT}).
  --host ADDRESS           Address to listen on (default 127.0.0.1; 0.0.0.0 or :: for all).
  --context PATH           Context path, as a Jenkins served below /jenkins (default none).
  --root-url URL           Jenkins URL as configured in Manage Jenkins > System, used in the
                           URLs Jenkins returns (default: the server's own address).
  --tls DIR                Serve https, with a certificate signed by a test CA that is
                           written to DIR/ca.pem (the action's ca-cert input takes its text).
  --auth-proxy 'Name: value'
                           An authenticating proxy in front: requests without this header
                           get its sign-in page. Repeat for several headers.
  --csrf on|off            CSRF protection: crumbs for password sign-ins (default on).
  --crumb-field NAME       Crumb header name (default Jenkins-Crumb).
  --anonymous-read         Anonymous users may read (Overall/Read, Job/Read).
  --quiet-period SECONDS   Server-wide quiet period (default 5, as Jenkins).
  --executors N            Executors (default 2; 0 keeps every build waiting in the queue).
  --no-stage-view          As without the Pipeline Stage View plugin (no wfapi).
  --hostile TEXT           A hostile Jenkins: TEXT (\\n and \\r read as line breaks) in front of
                           every name, display name, queue reason, result and cause.
  --clock-skew DURATION    Jenkins' clock off the real one: =-75447h (behind), 1h (ahead). Every
                           time it reports (build start, queued since, Date header) is on it.
  --silent                 Accept connections and answer nothing: a hung Jenkins, a wrong port.
  --echo-request           Queue reasons also quote the request's cookie and its session's
                           crumb, as a proxy that echoes requests might.
  --log                    Print each request: method, path, status, user, kind.

Users (default: ${DEFAULT.name}, password ${DEFAULT.password}, API token ${DEFAULT.apiToken},
all permissions; given any --user or --token, only those users exist)
  --user NAME:PASSWORD     A user who signs in with a password: the action then fetches a
                           crumb and keeps a session. Repeat for several users.
  --token NAME:TOKEN       NAME's API token, fixed (any text without spaces): the action then
                           needs no crumb. Adds the user when no --user names them.
  --permissions NAME:LIST  NAME's permissions, comma-separated from read, build, configure,
                           cancel, admin (default: all but admin; ${DEFAULT.name} may be given
                           fewer: --permissions ${DEFAULT.name}:read).

Jobs (the sample jobs exist too, unless --no-samples)
  --job NAME[:DURATION[:RESULT]]
                           A freestyle job. NAME may be in folders (team/app), which are
                           made as needed. DURATION: 500ms, 30s, 2m, 1h (default 1s).
                           RESULT: SUCCESS (default), UNSTABLE, FAILURE, NOT_BUILT, ABORTED.
                           Repeat for several jobs; a sample of the same name is replaced.
  --pipeline NAME[:DURATION[:RESULT]]
                           The same, as a Pipeline job (concurrent builds allowed).
  --param JOB:NAME[:TYPE][=DEFAULT]
                           A parameter of JOB (a --job, --pipeline or sample job). TYPE:
                           string (default), boolean, choice, text, password, or a file
                           parameter: file (core), base64File, stashedFile (the File
                           Parameters plugin). For a choice, DEFAULT lists the choices,
                           the first being the default: dev|prod.
  --job-token JOB:TOKEN    JOB's "Trigger builds remotely" token (the job-token input).
  --no-samples             Only the jobs given by --job and --pipeline.

  -h, --help               This help.

Sample jobs (what each shows; --no-samples leaves them out)
${sampleLines().join('\n')}
  Run jenkins-build in ${SAMPLE_WORKSPACE} (its current directory is the workspace)
  to see the failed tests of with-tests, failing-tests and team/service/deploy at
  their file:line: cd ${SAMPLE_WORKSPACE} && npx --no-install jenkins-build --job failing-tests

Example: a deploy job that fails after 20 s, for a user ci with a fixed API token:
  npm run server -- --token ci:11aa22bb33cc44dd55ee66ff77889900aa \\
    --job team/deploy:20s:FAILURE --param 'team/deploy:ENV:choice=dev|prod'`

export const FLAGS = {
  help: { type: 'boolean', short: 'h' },
  port: { type: 'string' },
  host: { type: 'string' },
  context: { type: 'string' },
  'root-url': { type: 'string' },
  tls: { type: 'string' },
  'auth-proxy': { type: 'string', multiple: true },
  csrf: { type: 'string' },
  'crumb-field': { type: 'string' },
  'anonymous-read': { type: 'boolean' },
  'quiet-period': { type: 'string' },
  executors: { type: 'string' },
  'no-stage-view': { type: 'boolean' },
  hostile: { type: 'string' },
  'clock-skew': { type: 'string' },
  silent: { type: 'boolean' },
  'echo-request': { type: 'boolean' },
  log: { type: 'boolean' },
  user: { type: 'string', multiple: true },
  token: { type: 'string', multiple: true },
  permissions: { type: 'string', multiple: true },
  job: { type: 'string', multiple: true },
  pipeline: { type: 'string', multiple: true },
  param: { type: 'string', multiple: true },
  'job-token': { type: 'string', multiple: true },
  'no-samples': { type: 'boolean' }
} as const

type Values = ReturnType<typeof parseArgs<{ options: typeof FLAGS }>>['values']

/** node:util's parse errors, said in this command's terms. */
function parseError(error: unknown): UsageError {
  const { code, message } = error as { code?: string; message: string }
  const quoted = /'([^' ]+)/.exec(message)?.[1] ?? ''
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return new UsageError(`unknown flag ${quoted}`)
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      // `npm run server --port 9000` gives npm the flag and the server its value.
      return new UsageError(
        `unexpected argument '${quoted}': every value follows its flag, and npm run needs -- before the flags (npm run server -- --port ${DEFAULT_PORT})`
      )
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (message.includes('argument missing')) return new UsageError(`${quoted} needs a value`)
      if (message.includes('does not take an argument')) {
        return new UsageError(`${quoted} takes no value`)
      }
      if (message.includes('ambiguous')) {
        return new UsageError(
          `${quoted}'s value starts with '-': write it as ${quoted}=VALUE, or give the flag a value`
        )
      }
  }
  return new UsageError(message)
}

function integer(flag: string, value: string, min: number, max: number): number {
  const n = Number(value)
  if (!/^\d+$/.test(value) || n < min || n > max) {
    throw new UsageError(`--${flag} takes a whole number from ${min} to ${max}, not '${value}'`)
  }
  return n
}

/** `NAME:REST`, split on the first colon; both parts non-empty. */
function pair(flag: string, value: string, form: string): [string, string] {
  const colon = value.indexOf(':')
  const name = value.slice(0, colon)
  const rest = value.slice(colon + 1)
  if (colon <= 0 || rest === '') throw new UsageError(`--${flag} takes ${form}, not '${value}'`)
  return [name, rest]
}

/** 500ms, 30s, 2m, 1h, or seconds; at most a day. */
export function parseDuration(flag: string, text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text)
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match?.[2] ?? 's'] ?? 1000
  const ms = Math.round(Number(match?.[1]) * unit)
  if (!match || ms > 86_400_000) {
    throw new UsageError(
      `--${flag}: '${text}' is not a duration: 500ms, 30s, 2m or 1h (at most 24h)`
    )
  }
  return ms
}

const RESULTS: Result[] = ['SUCCESS', 'UNSTABLE', 'FAILURE', 'NOT_BUILT', 'ABORTED']
const PERMISSIONS: Permission[] = ['read', 'build', 'configure', 'cancel', 'admin']
const PARAMETER_TYPES: ParameterType[] = [
  'string',
  'boolean',
  'choice',
  'text',
  'password',
  'file',
  'base64File',
  'stashedFile'
]

/** Jenkins.checkGoodName: no empty name, no `.` or `..`, no control or unsafe characters. */
function checkItemName(flag: string, fullName: string, name: string): void {
  const bad = /[\p{Cc}?*/\\%!@#$^&|<>[\]:;]/u.exec(name)
  if (name.trim() === '' || name.trim() === '.' || name.trim() === '..' || bad) {
    const why = bad ? `'${JSON.stringify(bad[0]).slice(1, -1)}' is unsafe` : 'empty, . or ..'
    throw new UsageError(
      `--${flag}: '${fullName}' is not a Jenkins item name (${why} in '${name}'; folders are separated by /)`
    )
  }
}

/** The generated console of a --job: a first line saying what it was asked, then a line a second (at most 60). */
function consoleOf(name: string, durationMs: number, result: Result): string[] {
  const steps = Math.min(60, Math.floor(durationMs / 1000))
  const lines = [
    `${name} runs ${timeSpan(durationMs)} and ends ${result}, as the test server's command line asked`
  ]
  for (let i = 1; i <= steps; i++) lines.push(`step ${i} of ${steps}`)
  return lines
}

/**
 * The job tree, copied on write along each path it changes, so that the
 * shared sampleJobs stay as they are.
 */
class JobTree {
  readonly root: Record<string, JobSpec>

  constructor(samples: boolean) {
    this.root = samples ? { ...sampleJobs } : {}
  }

  /** Calls `change` with the spec at `fullName` (undefined when missing) and stores what it returns. */
  update(flag: string, fullName: string, change: (spec: JobSpec | undefined) => JobSpec): void {
    const names = fullName.split('/')
    for (const name of names) checkItemName(flag, fullName, name)
    let folder = this.root
    const last = names.pop() as string
    for (const [i, name] of names.entries()) {
      const key = this.key(folder, name)
      const spec = key === undefined ? { type: 'folder' as const } : folder[key]
      if (spec?.type !== 'folder') {
        const path = names.slice(0, i + 1).join('/')
        throw new UsageError(
          `--${flag} ${fullName}: ${path} is a ${spec?.type ?? 'freestyle'} job, not a folder`
        )
      }
      const copy: JobSpec = { ...spec, jobs: { ...spec.jobs } }
      folder[key ?? name] = copy
      folder = copy.jobs as Record<string, JobSpec>
    }
    const key = this.key(folder, last)
    const spec = change(key === undefined ? undefined : folder[key])
    // Jenkins looks items up case-insensitively: one name, one item.
    if (key !== undefined) delete folder[key]
    folder[last] = spec
  }

  private key(folder: Record<string, JobSpec>, name: string): string | undefined {
    return Object.keys(folder).find(k => k.toLowerCase() === name.toLowerCase())
  }
}

function addJobs(values: Values, tree: JobTree): string | undefined {
  let first: string | undefined
  const declared = [
    ...(values.job ?? []).map(spec => ({ flag: 'job', spec, type: 'freestyle' as const })),
    ...(values.pipeline ?? []).map(spec => ({ flag: 'pipeline', spec, type: 'pipeline' as const }))
  ]
  for (const { flag, spec, type } of declared) {
    const [name = '', duration, result, ...extra] = spec.split(':')
    if (extra.length > 0) {
      throw new UsageError(`--${flag} takes NAME[:DURATION[:RESULT]], not '${spec}'`)
    }
    const durationMs = duration ? parseDuration(flag, duration) : 1000
    const upper = (result || 'SUCCESS').toUpperCase() as Result
    if (!RESULTS.includes(upper)) {
      throw new UsageError(`--${flag} ${spec}: the result is one of ${RESULTS.join(', ')}`)
    }
    tree.update(flag, name, () => ({
      type,
      script: {
        durationMs,
        result: upper,
        consoleLines: consoleOf(name, durationMs, upper),
        echoParameters: true
      }
    }))
    first ??= name
  }
  return first
}

function parameter(spec: string): { job: string; parameter: ParameterSpec } {
  const eq = spec.indexOf('=')
  const head = eq < 0 ? spec : spec.slice(0, eq)
  const value = eq < 0 ? undefined : spec.slice(eq + 1)
  const [job = '', name = '', type = 'string', ...extra] = head.split(':')
  if (job === '' || name === '' || extra.length > 0) {
    throw new UsageError(`--param takes JOB:NAME[:TYPE][=DEFAULT], not '${spec}'`)
  }
  if (!PARAMETER_TYPES.includes(type as ParameterType)) {
    throw new UsageError(`--param ${spec}: the type is one of ${PARAMETER_TYPES.join(', ')}`)
  }
  const parameter: ParameterSpec = { name, type: type as ParameterType }
  if (type === 'choice') {
    const choices = (value ?? '').split('|')
    if (value === undefined || choices.includes('')) {
      throw new UsageError(`--param ${spec}: a choice lists its choices: ${head}=dev|prod`)
    }
    parameter.choices = choices
  } else if (type === 'boolean') {
    if (value !== undefined && value !== 'true' && value !== 'false') {
      throw new UsageError(`--param ${spec}: a boolean's default is true or false`)
    }
    parameter.default = value === 'true'
  } else if (value !== undefined) {
    parameter.default = value
  }
  return { job, parameter }
}

/** Changes of existing jobs: parameters and job tokens. */
function changeJobs(values: Values, tree: JobTree): void {
  const existing = (flag: string, job: string, change: (spec: JobSpec) => JobSpec): void =>
    tree.update(flag, job, spec => {
      if (spec === undefined || spec.type === 'folder' || spec.type === 'multibranch') {
        throw new UsageError(
          `--${flag}: no job ${job}${spec ? ` (it is a ${spec.type})` : ''}: declare it with --job ${job}`
        )
      }
      return change(spec)
    })
  for (const spec of values.param ?? []) {
    const { job, parameter: p } = parameter(spec)
    existing('param', job, job => {
      const others = (job.parameters ?? []).filter(q => q.name !== p.name)
      return { ...job, parameters: [...others, p] }
    })
  }
  for (const spec of values['job-token'] ?? []) {
    const [job, token] = pair('job-token', spec, 'JOB:TOKEN')
    existing('job-token', job, job => ({ ...job, authToken: token }))
  }
}

function users(values: Values): UserSpec[] {
  // The default login stays unless users are given; --permissions may change it.
  const given = (values.user?.length ?? 0) + (values.token?.length ?? 0) > 0
  const byName = new Map<string, UserSpec>(
    given ? [] : DEFAULT_USERS.map(u => [u.name.toLowerCase(), { ...u }])
  )
  const user = (flag: string, name: string, create: boolean): UserSpec => {
    const found = byName.get(name.toLowerCase())
    if (found || !create) {
      if (found) return found
      throw new UsageError(
        `--${flag}: no user ${name}: add one with --user ${name}:PASSWORD or --token ${name}:TOKEN`
      )
    }
    const spec: UserSpec = { name }
    byName.set(name.toLowerCase(), spec)
    return spec
  }
  for (const value of values.user ?? []) {
    const [name, password] = pair('user', value, 'NAME:PASSWORD')
    if (byName.has(name.toLowerCase())) throw new UsageError(`--user ${name} is given twice`)
    user('user', name, true).password = password
  }
  for (const value of values.token ?? []) {
    const [name, token] = pair('token', value, 'NAME:TOKEN')
    if (/\s/.test(token)) throw new UsageError(`--token ${name}: a token has no spaces`)
    const spec = user('token', name, true)
    if (spec.apiToken !== undefined) throw new UsageError(`--token ${name} is given twice`)
    spec.apiToken = token
  }
  for (const value of values.permissions ?? []) {
    const [name, list] = pair('permissions', value, 'NAME:LIST')
    const granted = list.split(',').map(p => p.trim().toLowerCase())
    const bad = granted.find(p => !PERMISSIONS.includes(p as Permission))
    if (bad !== undefined) {
      throw new UsageError(
        `--permissions ${name}: '${bad}' is not one of ${PERMISSIONS.join(', ')}`
      )
    }
    user('permissions', name, false).permissions = granted as Permission[]
  }
  return [...byName.values()]
}

function serverOptions(values: Values): ServerOptions {
  const options: ServerOptions = { port: DEFAULT_PORT }
  if (values.port !== undefined) options.port = integer('port', values.port, 0, 65_535)
  if (values.host !== undefined) {
    if (values.host.trim() === '') throw new UsageError('--host needs a name or an address')
    options.host = values.host
  }
  if (values.context !== undefined) {
    if (!/^\/?[\w.~%!$&'()*+,;=:@/-]*$/.test(values.context)) {
      throw new UsageError(`--context takes a URL path such as /jenkins, not '${values.context}'`)
    }
    options.contextPath = values.context
  }
  if (values['root-url'] !== undefined) {
    const url = URL.canParse(values['root-url']) ? new URL(values['root-url']) : undefined
    if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
      throw new UsageError(`--root-url takes an http(s) URL, not '${values['root-url']}'`)
    }
    options.rootUrl = values['root-url']
  }
  for (const header of values['auth-proxy'] ?? []) {
    const match = /^([!#$%&'*+.^_`|~\w-]+):\s*(\S.*)$/.exec(header)
    if (!match) throw new UsageError(`--auth-proxy takes 'Name: value', not '${header}'`)
    options.authProxy ??= { headers: {} }
    options.authProxy.headers[match[1] as string] = (match[2] as string).trim()
  }
  if (values.csrf !== undefined) {
    if (values.csrf !== 'on' && values.csrf !== 'off') {
      throw new UsageError(`--csrf takes on or off, not '${values.csrf}'`)
    }
    options.csrf = values.csrf === 'on'
  }
  if (values['crumb-field'] !== undefined) {
    if (!/^[!#$%&'*+.^_`|~\w-]+$/.test(values['crumb-field'])) {
      throw new UsageError(`--crumb-field takes a header name, not '${values['crumb-field']}'`)
    }
    options.crumbField = values['crumb-field']
  }
  if (values['anonymous-read']) options.anonymousRead = true
  if (values['quiet-period'] !== undefined) {
    const seconds = Number(values['quiet-period'])
    if (!/^\d+(\.\d+)?$/.test(values['quiet-period']) || seconds > 86_400) {
      throw new UsageError(
        `--quiet-period takes seconds from 0 to 86400, not '${values['quiet-period']}'`
      )
    }
    options.quietPeriodSec = seconds
  }
  if (values.executors !== undefined) {
    options.executors = integer('executors', values.executors, 0, 100)
  }
  if (values['no-stage-view']) options.stageView = false
  if (values.hostile !== undefined) {
    if (values.hostile === '') throw new UsageError('--hostile needs a text')
    options.hostile = { text: values.hostile.replace(/\\n/g, '\n').replace(/\\r/g, '\r') }
  }
  if (values['clock-skew'] !== undefined) options.clockSkewMs = clockSkew(values['clock-skew'])
  if (values['echo-request']) options.hostile = { text: '', ...options.hostile, echoRequest: true }
  return options
}

/** -75447h, +1h, 90s, 500ms: a signed duration, at most a thousand years. */
function clockSkew(text: string): number {
  const match = /^([+-]?)(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text)
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match?.[3] ?? 's'] ?? 1000
  const ms = Math.round(Number(match?.[2]) * unit) * (match?.[1] === '-' ? -1 : 1)
  if (!match || Math.abs(ms) > 1000 * 365 * 24 * 3_600_000) {
    throw new UsageError(
      `--clock-skew takes a duration with its unit, - for behind: -75447h, 1h, 90s, 500ms; not '${text}'`
    )
  }
  return ms
}

function tlsDir(value: string | undefined): string | undefined {
  if (value === '') throw new UsageError('--tls needs a folder for the test CA and certificate')
  return value === undefined ? undefined : resolve(value)
}

/** Reads the command line (without node and the script); throws UsageError. */
export function parseCli(args: readonly string[]): CliConfig {
  let values: Values
  try {
    values = parseArgs({ args: [...args], options: FLAGS, strict: true }).values
  } catch (error) {
    throw parseError(error)
  }
  if (values.help) return { help: true, options: {}, log: false, silent: false }
  const options = serverOptions(values)
  options.users = users(values)
  const tree = new JobTree(!values['no-samples'])
  const first = addJobs(values, tree)
  changeJobs(values, tree)
  options.jobs = tree.root
  const job = first ?? (values['no-samples'] ? undefined : 'hello')
  return {
    help: false,
    options,
    tlsDir: tlsDir(values.tls),
    log: values.log ?? false,
    silent: values.silent ?? false,
    job
  }
}
