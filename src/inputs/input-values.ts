import { BUILD_RESULTS, Input, type BuildResult } from '../util/constants.js'
import { InputError } from '../util/input-error.js'
import { parseHttpUrl } from '../util/http-url.js'
import { redactUrl } from '../jenkins/model/job-path.js'
import { clip } from '../util/shorten.js'
import { commitShaOf } from '../util/commit-sha.js'

/** Input `wait`: `true` → finish, `started` → started, `false` → queued. */
export type WaitMode = (typeof WAIT_MODES)[keyof typeof WAIT_MODES]
/** Input `build`: `given` is a build number or URL (Settings.given, build-reference.ts). */
export type BuildMode = (typeof BUILD_MODES)[number] | 'given'
/** Input `scan`. */
export type ScanMode = (typeof SCAN_MODES)[number]

const WAIT_MODES = { true: 'finish', started: 'started', false: 'queued' } as const
const BUILD_MODES = ['new', 'last', 'last-successful'] as const
const SCAN_MODES = ['if-missing', 'never'] as const
const COMMENT_PERMISSIONS = ['triage', 'write', 'maintain', 'admin', 'none'] as const

/*
 * The parsers of single input values: each takes the value as read (trimmed,
 * defaults applied) and throws InputError naming the input and the expected form.
 */

export function parseBaseUrl(value: string): string {
  const expected = 'expected the Jenkins base URL, http(s)://host[:port][/context-path]'
  if (value === '') throw new InputError(`Input 'url' is required: ${expected}.`)
  const url = parseHttpUrl(value, `Input 'url' ('${redactUrl(value)}')`, expected)
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

export function parseCredentials(user: string, token: string): { user: string; token: string } {
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
  return { user, token: parseSecret(token, 'token', 'one API token or password') }
}

/** A token or password (it travels in a header or a URL): one line, no tab. */
export function parseSecret(value: string, name: string, expected: string): string {
  if (/\p{Cc}/u.test(value)) {
    throw new InputError(
      `Input '${name}' must not contain control characters (line breaks, tabs): expected ${expected}.`
    )
  }
  return value
}

export function readBoolean(read: (name: Input) => string, name: Input): boolean {
  const value = read(name)
  // The YAML 1.2 core schema, exactly as core.getBooleanInput accepts it.
  if (value === 'true' || value === 'True' || value === 'TRUE') return true
  if (value === 'false' || value === 'False' || value === 'FALSE') return false
  throw new InputError(
    `Input '${name}' ('${clip(value)}') is not a boolean: expected true or false (true | True | TRUE | false | False | FALSE).`
  )
}

export function parseWait(value: string): WaitMode {
  return WAIT_MODES[oneOf(Input.Wait, ['true', 'started', 'false'] as const)(value)]
}

export const parseBuild = oneOf<BuildMode>(
  Input.Build,
  BUILD_MODES,
  ', a build number of the job (42), or a build or queue item URL Jenkins gave for it.'
)

/**
 * The parser of a choice input `name`: the choice a value names (in any
 * case); else an error naming the input, the value and the choices, then `more`.
 */
function oneOf<T extends string>(name: Input, choices: readonly T[], more = '.') {
  return (value: string): T => {
    const choice = choices.find(c => c === value.toLowerCase())
    if (choice === undefined) {
      throw new InputError(
        `Input '${name}' ('${clip(value)}') must be one of ${choices.join(', ')}${more}`
      )
    }
    return choice
  }
}

export function parseAccept(value: string): BuildResult[] {
  const expected = `expected a comma-separated list of ${BUILD_RESULTS.join(', ')}`
  const items = value
    .split(',')
    .map(item => item.trim().toUpperCase())
    .filter(item => item !== '')
  if (items.length === 0) throw new InputError(`Input 'accept' lists no result: ${expected}.`)
  const unknown = items.find(item => !BUILD_RESULTS.some(r => r === item))
  if (unknown !== undefined) {
    throw new InputError(`Input 'accept' has an unknown result '${clip(unknown)}': ${expected}.`)
  }
  // In the order given, each once.
  return [...new Set(items.flatMap(item => BUILD_RESULTS.filter(r => r === item)))]
}

/** `where` names the input in the error (an item of `jobs` has its own). */
export function parseBranch(value: string, where = "Input 'branch'"): string | undefined {
  if (value === '') return undefined
  if (/\p{Cc}/u.test(value)) {
    throw new InputError(
      `${where} contains a control character: expected a branch or pull-request name as Jenkins shows it, e.g. feature/x or PR-42.`
    )
  }
  return value
}

export function parseScan(value: string, hasBranch: boolean): ScanMode {
  const mode = oneOf(Input.Scan, SCAN_MODES)(value)
  if (mode !== 'if-missing' && !hasBranch) {
    throw new InputError(
      `Input 'scan' ('${mode}') only applies with 'branch': set 'branch' to the branch or pull request of the multibranch project in 'job', or leave 'scan' out.`
    )
  }
  return mode
}

/**
 * The parser of an optional input `name`: undefined when empty, else what
 * `parse` reads, or an error naming the input, the value and `what` it is not.
 */
export function optional<T>(name: Input, parse: (value: string) => T | undefined, what: string) {
  return (value: string): T | undefined => {
    if (value === '') return undefined
    const parsed = parse(value)
    if (parsed === undefined) {
      throw new InputError(`Input '${name}' ('${clip(value)}') is not ${what}.`)
    }
    return parsed
  }
}

/** Input `commit`: a full SHA-1 or SHA-256 commit id, lower-cased. */
export const parseCommit = optional(
  Input.Commit,
  commitShaOf,
  'a full commit SHA: expected 40 (or, in a SHA-256 repository, 64) hexadecimal characters, such as ${{ github.event.pull_request.head.sha }}'
)

/** Input `pull-request`: a pull request number. */
export const parsePullRequest = optional(
  Input.PullRequest,
  value => (/^#?[1-9][0-9]{0,14}$/.test(value) ? Number(value.replace('#', '')) : undefined),
  'a pull request number: expected a whole number from 1, such as 42'
)

/**
 * Input `comment-permission`: the least role on the repository the author of
 * a comment command needs; `none` checks nothing. `read` is refused: on a
 * public repository everyone has it.
 */
export const parseCommentPermission = oneOf(
  Input.CommentPermission,
  COMMENT_PERMISSIONS,
  ': the least role on the repository that the author of a comment command needs (read is not enough: on a public repository everyone has it).'
)

/** Input `commit-parameter`: the name of the job's parameter that takes the commit under test. */
export const parseCommitParameter = optional(
  Input.CommitParameter,
  value => (value.includes('=') || /\p{Cc}/u.test(value) || value.length > 200 ? undefined : value),
  "a parameter name: expected the name of the job's parameter that takes the commit under test, such as SHA (no '=', no control characters)"
)
