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
import { fullName, redactUrl } from '../jenkins/model/job-path.js'
import type { JobPath } from '../jenkins/model/types.js'

/** What `build` names besides new, last and last-successful; `where`: an item's of `jobs`, for its messages (itemMessage). */
export type BuildReference = { where?: string } & (
  | { kind: 'build'; number: number; text: string }
  | { kind: 'queue'; id: number; text: string }
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
  let root: URL
  try {
    root = new URL(base)
  } catch {
    return undefined
  }
  const basePath = root.pathname.replace(/\/+$/, '')
  const path = url.pathname
  if (url.origin !== root.origin) return undefined
  if (basePath !== '' && path !== basePath && !path.startsWith(`${basePath}/`)) return undefined
  const rest = path.slice(basePath.length).replace(/^\/+/, '').replace(/\/+$/, '')
  const queue = /^queue\/item\/(\d+)$/.exec(rest)
  if (queue) {
    const id = Number(queue[1])
    if (Number.isSafeInteger(id)) return { kind: 'queue', id, text: shown }
  }
  const parts = rest.split('/')
  const last = parts.pop() ?? ''
  const names: string[] = []
  let pairs = parts.length % 2 === 0 && parts.length > 0 && /^\d+$/.test(last)
  for (let i = 0; pairs && i < parts.length; i += 2) {
    const name = parts[i + 1]
    if (parts[i] !== 'job' || !name) pairs = false
    else {
      try {
        // As parseJobPath: a decoded '/' is a multibranch name's %2F.
        names.push(decodeURIComponent(name).replace(/\//g, '%2F'))
      } catch {
        pairs = false
      }
    }
  }
  const number = Number(last)
  if (!pairs || !isBuildNumber(number)) {
    throw new InputError(
      `Input 'build' URL ('${shown}') is not a build URL (…/job/NAME/42/) or a queue item URL (…/queue/item/7/): ${FORMS}.`
    )
  }
  if (fullName(names) !== fullName(job)) {
    throw new InputError(
      `Input 'build' URL ('${shown}') is a build of job '${fullName(names)}', not of '${fullName(job)}' (input 'job'): follow a build of the job given in 'job'.`
    )
  }
  return { kind: 'build', number, text: shown }
}
