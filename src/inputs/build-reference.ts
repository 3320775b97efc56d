/**
 * `build: <number or URL>`: a build the step did not start, to follow as it
 * follows a new one. A number is a build of `job`; a URL is a build or a
 * queue item URL Jenkins gave for `job` (a `build-url` or `queue-url`
 * output). A URL below `url` is checked here, before any request: another
 * job's is refused naming both. A URL elsewhere may still be Jenkins' own,
 * written from its configured root URL (jenkins-api.md 9): that is decided
 * once Jenkins has said its root URL (src/follow/given-build.ts), with the
 * same reading (locateReference). Requests always go to `url`.
 */
import { InputError } from '../util/input-error.js'
import { clip } from '../util/shorten.js'
import { hasDotSegment, parseHttpUrl } from '../util/http-url.js'
import { isBuildNumber } from '../jenkins/model/counts.js'
import { fullName, parseUrlForm, pathBelow, redactUrl } from '../jenkins/model/job-path.js'
import type { JobPath } from '../jenkins/model/types.js'

/** What `build` names besides new, last and last-successful; `where`: an item's of `jobs`, for its messages (itemMessage). */
export type BuildReference = { where?: string } & (
  | { kind: 'build'; number: number; text: string }
  | { kind: 'queue'; id: number; text: string }
  /** The job's lastBuild or lastSuccessfulBuild page: the mode of that name. */
  | { kind: 'latest'; mode: 'last' | 'last-successful'; text: string }
  /** A URL not below `url`: Jenkins' root URL decides (given-build.ts). */
  | { kind: 'elsewhere'; url: URL; text: string }
)

/**
 * A message about `build` for an item of `jobs` (`where`: "Input 'jobs'
 * item 2's 'build'"), from the one written for the `build` input.
 */
export function itemMessage(message: string, where: string): string {
  return message
    .replace("Input 'build'", where)
    .replace("(input 'job')", "(its 'job')")
    .replace("the job given in 'job'", 'its job')
}

const FORMS =
  "expected new, last, last-successful, a build number of the job (42), or a build or queue item URL Jenkins gave for it (an earlier step's build-url or queue-url)"

/** The reference `value` names, or undefined when it is neither a number nor a URL. */
export function parseBuildReference(
  value: string,
  baseUrl: string,
  job: JobPath
): BuildReference | undefined {
  if (/^\d+$/.test(value)) {
    const number = Number(value)
    if (!isBuildNumber(number)) {
      throw new InputError(`Input 'build' ('${clip(value)}') is not a build number: ${FORMS}.`)
    }
    return { kind: 'build', number, text: value }
  }
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return undefined
  const shown = redactUrl(value)
  const url = parseHttpUrl(value, `Input 'build' ('${shown}')`, FORMS)
  if (url.username !== '' || url.password !== '') {
    throw new InputError(
      `Input 'build' URL must not contain credentials: give the URL as Jenkins wrote it (${FORMS}).`
    )
  }
  if (url.search !== '' || url.hash !== '' || /[?#]/.test(value)) {
    throw new InputError(`Input 'build' URL ('${shown}') has a query or fragment: ${FORMS}.`)
  }
  if (hasDotSegment(value)) {
    throw new InputError(`Input 'build' URL ('${shown}') has a '.' or '..' segment: ${FORMS}.`)
  }
  return locateReference(url, baseUrl, job, shown) ?? { kind: 'elsewhere', url, text: shown }
}

/**
 * The build or queue item `url` names below `base` (the `url` input, or the
 * root URL Jenkins writes), checked to be of `job`; undefined when `url` is
 * not below `base` (another origin, or outside its context path).
 */
export function locateReference(
  url: URL,
  base: string,
  job: JobPath,
  shown: string
): Exclude<BuildReference, { kind: 'elsewhere' }> | undefined {
  const rest = URL.canParse(base) ? pathBelow(url, new URL(base)) : undefined
  if (rest === undefined) return undefined
  const queue = /^queue\/item\/(\d+)(?:\/|$)/.exec(rest)
  if (queue) {
    const id = Number(queue[1])
    if (Number.isSafeInteger(id)) return { kind: 'queue', id, text: shown }
  }
  const parts = rest.split('/')
  let at = 0
  while (parts[at] === 'job' && parts[at + 1]) at += 2
  let names: JobPath = []
  try {
    names = parseUrlForm(parts.slice(0, at).join('/'), shown)
  } catch {
    // A malformed percent-encoding: no job, so not a build URL (below).
  }
  // The build: its number, or a permalink, then any page of it (console, changes, tests…).
  const which = parts[at] ?? ''
  const number = /^\d+$/.test(which) ? Number(which) : NaN
  const permalink = PERMALINKS[which]
  if (names.length === 0 || (!isBuildNumber(number) && !permalink)) {
    throw new InputError(notABuild(shown, names.length > 0 && which === ''))
  }
  if (fullName(names) !== fullName(job)) {
    throw new InputError(
      `Input 'build' URL ('${shown}') is a build of job '${fullName(names)}', not of '${fullName(job)}' (input 'job'): follow a build of the job given in 'job'.`
    )
  }
  if (isBuildNumber(number)) return { kind: 'build', number, text: shown }
  if (permalink === 'last' || permalink === 'last-successful') {
    return { kind: 'latest', mode: permalink, text: shown }
  }
  throw new InputError(
    `Input 'build' URL ('${shown}') names ${which}, a build Jenkins picks anew each time: give \`build: last\` (lastBuild) or \`build: last-successful\` (lastSuccessfulBuild), or that build's own URL, with its number (…/job/NAME/42/).`
  )
}

/**
 * The job's permalinks (PermalinkProjectAction.Permalink.BUILTIN): the
 * two the step follows as its named modes, and the others it cannot.
 */
const PERMALINKS: Readonly<Record<string, 'last' | 'last-successful' | 'other'>> = {
  lastBuild: 'last',
  lastSuccessfulBuild: 'last-successful',
  lastStableBuild: 'other',
  lastUnstableBuild: 'other',
  lastFailedBuild: 'other',
  lastUnsuccessfulBuild: 'other',
  lastCompletedBuild: 'other'
}

/** What to paste instead of a URL that names no build (`jobPage`: the job's own page). */
function notABuild(shown: string, jobPage: boolean): string {
  const what = jobPage ? "is the job's page, not a build's" : 'is not a build URL'
  return `Input 'build' URL ('${shown}') ${what}: paste a build's URL from its page in Jenkins (…/job/NAME/42/, or any page below it such as …/42/console), its lastBuild or lastSuccessfulBuild (…/job/NAME/lastBuild/), or a queue item URL (…/queue/item/7/): ${FORMS}.`
}
