/**
 * What the test server's command line prints when it has started: where it
 * listens, its users and jobs, and exactly how to point the action at it
 * (a workflow step's `with:` block, and the same run from a terminal with the
 * jenkins-build command).
 */
import { DEFAULT_USERS } from './server.js'
import type { JobSpec, RequestLogEntry, ServerOptions, UserSpec } from './types.js'

export interface Started {
  /** The server's base URL, context path included, without a trailing slash. */
  url: string
  options: ServerOptions
  /** The job to show in the examples. */
  job?: string
  /** --tls: the test CA's file. */
  caPath?: string
}

/** What a workflow passes as `ca-cert`: the CA's text, kept in a secret. */
const SECRET_CA = '${{ secrets.JENKINS_CA }}'

/** A word for a POSIX shell: as it is when safe, else single-quoted. */
export function shellWord(text: string): string {
  if (/^[\w@%+=:,./-]+$/.test(text)) return text
  return `'${text.replace(/'/g, `'\\''`)}'`
}

/** Full names of the buildable jobs below `jobs`, with what sets them apart. */
export function jobNames(jobs: Record<string, JobSpec>, prefix = ''): string[] {
  const names: string[] = []
  for (const [name, spec] of Object.entries(jobs)) {
    const full = `${prefix}${name}`
    if (spec.type === 'folder') names.push(...jobNames(spec.jobs ?? {}, `${full}/`))
    else if (spec.type === 'multibranch') names.push(`${full} (multibranch)`)
    else if (spec.disabled) names.push(`${full} (disabled)`)
    else if (spec.authToken !== undefined) names.push(`${full} (job token ${spec.authToken})`)
    else names.push(full)
  }
  return names
}

function permissions(user: UserSpec): string {
  const list = user.permissions ?? ['read', 'build', 'configure', 'cancel']
  return list.includes('admin') ? 'all permissions' : `permissions ${list.join(', ')}`
}

function describeUser(user: UserSpec): string {
  const secrets = [
    user.password === undefined ? undefined : `password ${user.password}`,
    user.apiToken === undefined ? undefined : `API token ${user.apiToken}`
  ].filter(s => s !== undefined)
  return `  ${user.name}: ${secrets.join(', ')} (${permissions(user)})`
}

/** The lines printed once the server listens. */
export function startupLines(started: Started): string[] {
  const { url, options, job, caPath } = started
  const csrf = options.csrf ?? true
  const users = options.users ?? []
  const login = users[0]
  const lines = [`Jenkins test server at ${url}/`]
  lines.push(
    `  CSRF protection ${csrf ? `on (crumb header ${options.crumbField ?? 'Jenkins-Crumb'})` : 'off'}; anonymous users ${options.anonymousRead ? 'may read' : 'cannot read'}.`
  )
  if (caPath) lines.push(`  https with a test CA: ${caPath}`)
  const proxyHeaders = options.authProxy?.headers ?? {}
  if (options.authProxy) {
    lines.push(`  Behind an auth proxy requiring: ${Object.keys(proxyHeaders).join(', ')}`)
  }
  lines.push('Users:', ...users.map(describeUser))
  const jobs = jobNames(options.jobs ?? {})
  lines.push(`Jobs: ${jobs.length > 0 ? jobs.join(', ') : 'none (add one with --job NAME)'}`)
  if (!login) return [...lines, 'Stop it with Ctrl+C.']

  const secret = login.apiToken ?? login.password ?? ''
  const how =
    login.apiToken !== undefined
      ? `with ${login.name}'s API token (Jenkins checks no crumb for it${login.password !== undefined ? '; the password works too, with a crumb and a session' : ''})`
      : `with ${login.name}'s password (${csrf ? 'Jenkins wants a crumb and a session for it' : 'CSRF protection is off: no crumb'})`
  const inputs: Array<[string, string]> = [
    ['url', url],
    ['user', login.name],
    ['token', secret]
  ]
  if (job !== undefined) inputs.push(['job', job])
  const headers = Object.entries(proxyHeaders).map(([name, value]) => `${name}: ${value}`)
  lines.push(`Point the action at it ${how}:`, '  with:')
  for (const [name, value] of inputs) lines.push(`    ${name}: ${value}`)
  if (headers.length > 0) lines.push('    headers: |', ...headers.map(h => `      ${h}`))
  if (caPath) {
    lines.push(`    ca-cert: ${SECRET_CA} # a secret holding the text of ${caPath}`)
  }
  lines.push(
    'Or from a terminal, in the repository root (jenkins-build runs dist/index.js as the runner does):'
  )
  const variables: Array<[string, string]> = [
    ['JENKINS_URL', url],
    ['JENKINS_USER', login.name],
    ['JENKINS_TOKEN', secret]
  ]
  lines.push(
    `  export ${variables.map(([name, value]) => `${name}=${shellWord(value)}`).join(' ')}`
  )
  const words = job === undefined ? [] : ['--job', shellWord(job)]
  // $'…' keeps the line breaks between several headers in one shell word.
  if (headers.length > 0) {
    const escaped = headers.map(h => h.replace(/\\/g, '\\\\').replace(/'/g, "\\'"))
    words.push('--headers', `$'${escaped.join('\\n')}'`)
  }
  if (caPath) words.push('--ca-cert', `"$(cat ${shellWord(caPath)})"`)
  lines.push(`  npx --no-install jenkins-build ${words.join(' ')}`.trimEnd())
  // .env.example holds the default login, this address and the sample job params.
  const byDefault = DEFAULT_USERS[0]
  const defaultLogin = login.name === byDefault?.name && secret === byDefault.apiToken
  if (url === 'http://127.0.0.1:8080' && defaultLogin && options.jobs?.params) {
    lines.push('  npm run local-action    (its .env.example points here)')
  }
  lines.push('Stop it with Ctrl+C.')
  return lines
}

/** One request of --log: method, path (a `token` in the query hidden), status, user, kind. */
export function requestLine(entry: RequestLogEntry): string {
  const query = entry.query.replace(/(^|&)(token=)[^&]*/gi, '$1$2***')
  const status = entry.status === 0 ? 'no answer' : String(entry.status)
  const fault = entry.fault ? `, ${entry.fault}` : ''
  const by = { token: ' by API token', password: ' by password', anonymous: '' }[
    entry.auth ?? 'anonymous'
  ]
  const who = entry.user === null ? 'credentials rejected' : `${entry.user}${by}`
  const crumb = entry.crumbChecked ? ', crumb checked' : ''
  return `${entry.method} ${entry.path}${query ? `?${query}` : ''} ${status} (${who}${crumb}, ${entry.kind}${fault})`
}
