/**
 * GitHub's values decoded where they arrive (the event file the runner
 * wrote, the REST API's answers) into types that are true: a commit is a
 * full SHA, a pull request a positive whole number, a time GitHub's own
 * second. A field that does not decode is named in an `Undecodable` error,
 * never guessed around: a guess is how a status lands on another commit.
 * Values are not echoed: a hostile one could hold a line break.
 */
import { commitShaOf } from '../util/commit-sha.js'
import { githubLoginOf } from '../util/github-login.js'
import { isRecord } from '../util/is-record.js'

/** A field of GitHub's data that is missing or not what it must be. */
export class Undecodable extends Error {
  constructor(
    /** Whose data: `the workflow_run event`, `GitHub's answer for pull request #8`. */
    readonly source: string,
    /** The field, as a path: `workflow_run.head_sha`. */
    readonly path: string,
    expected: string,
    missing: boolean
  ) {
    super(missing ? `${source} has no ${path}` : `${source}'s ${path} is not ${expected}`)
    this.name = 'Undecodable'
  }
}

/** A value at `path` inside nested objects; undefined where any step is not an object. */
export function field(value: unknown, ...path: string[]): unknown {
  let current = value
  for (const key of path) current = isRecord(current) ? current[key] : undefined
  return current
}

/** One kind of GitHub value: its decoder (the true value, or undefined), and what a message says it must be. */
export interface Kind<T> {
  decode(value: unknown): T | undefined
  expected: string
}

export const SHA: Kind<string> = {
  decode: commitShaOf,
  expected: 'a commit SHA (40 or 64 hexadecimal digits)'
}

export const PULL_NUMBER: Kind<number> = {
  decode: value =>
    typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined,
  expected: 'a pull request number (a whole number from 1)'
}

/** GitHub's times (`2011-01-26T19:06:43Z`), as whole seconds since the epoch: GitHub counts in seconds, so two times in one second are not in order. */
export const TIME: Kind<number> = {
  decode: value => {
    if (typeof value !== 'string') return undefined
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/.test(value)) {
      return undefined
    }
    const ms = Date.parse(value)
    return Number.isFinite(ms) ? Math.floor(ms / 1000) : undefined
  },
  expected: 'a time (YYYY-MM-DDTHH:MM:SSZ)'
}

/** A user's login: letters, digits, `-` and `_` (enterprise-managed users), and `[bot]` for an app. */
export const LOGIN: Kind<string> = { decode: githubLoginOf, expected: 'a GitHub login' }

/** A repository or owner name as GitHub allows them. */
export const REPO_NAME: Kind<string> = {
  decode: value =>
    typeof value === 'string' && /^[A-Za-z0-9_.-]{1,100}$/.test(value) && !/^\.{1,2}$/.test(value)
      ? value
      : undefined,
  expected: 'a repository name'
}

/** A branch name: git refuses control characters and spaces in one. */
export const BRANCH: Kind<string> = {
  decode: value =>
    typeof value === 'string' && value !== '' && value.length <= 1000 && !/[\p{Cc}\s]/u.test(value)
      ? value
      : undefined,
  expected: 'a branch name'
}

/**
 * The value at `path` of `value`, decoded, or an Undecodable naming it
 * (`source` says whose data it is).
 */
export function required<T>(value: unknown, path: string, kind: Kind<T>, source: string): T {
  return decodedAt(field(value, ...path.split('.')), path, kind, source)
}

/** `raw`, found at `path` of `source`'s data, decoded, or an Undecodable naming it. */
export function decodedAt<T>(raw: unknown, path: string, kind: Kind<T>, source: string): T {
  const decoded = kind.decode(raw)
  if (decoded === undefined) {
    throw new Undecodable(source, path, kind.expected, raw === undefined || raw === null)
  }
  return decoded
}

/** Like required, but a missing (undefined or null) field is undefined; a present one must decode. */
export function optional<T>(
  value: unknown,
  path: string,
  kind: Kind<T>,
  source: string
): T | undefined {
  const raw = field(value, ...path.split('.'))
  return raw === undefined || raw === null ? undefined : required(value, path, kind, source)
}

/** `at` (epoch seconds) as GitHub writes times. */
export function timeText(at: number): string {
  return new Date(at * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z')
}
