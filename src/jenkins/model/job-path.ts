import { hasDotSegment, parseHttpUrl } from '../../util/http-url.js'
import { InputError } from '../../util/input-error.js'
import type { JobPath } from './types.js'

const FORMS =
  'expected `folder/job`, `job/folder/job/job`, or the job URL on the same server as `url`'

/**
 * Turns the `job` input into the item names from the root.
 *
 * - `a/b/c`: the names as Jenkins shows them in `fullName`. A multibranch
 *   branch is named as Jenkins names it (`feature%2Fx`), so segments are
 *   taken literally, not decoded.
 * - `job/a/job/b`: a URL path, as copied from the browser: segments are
 *   percent-decoded once.
 * - `https://host/ctx/job/a/job/b/`: must be on the same origin and under the
 *   same context path as `baseUrl`; the rest is read as the `job/` form.
 */
export function parseJobPath(input: string, baseUrl: string): JobPath {
  const value = input.trim()
  if (value === '') throw new InputError(`Input 'job' is empty: ${FORMS}.`)
  if (/\p{Cc}/u.test(value)) {
    throw new InputError(`Input 'job' contains a control character: ${FORMS}.`)
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return parseJobUrl(value, baseUrl)
  const trimmed = value.replace(/^\/+/, '').replace(/\/+$/, '')
  if (trimmed === 'job' || trimmed.startsWith('job/')) return parseUrlForm(trimmed, value)
  return checkSegments(trimmed.split('/'), value)
}

function parseJobUrl(value: string, baseUrl: string): JobPath {
  const url = parseHttpUrl(value, `Input 'job' ('${redactUrl(value)}')`, FORMS)
  const base = new URL(baseUrl)
  if (url.username !== '' || url.password !== '') {
    throw new InputError(
      `Input 'job' URL must not contain credentials: put the user name in 'user' and the API token in 'token' (${FORMS}).`
    )
  }
  if (hasDotSegment(value)) {
    throw new InputError(
      `Input 'job' URL ('${redactUrl(value)}') has a '.' or '..' segment: ${FORMS}.`
    )
  }
  if (url.origin !== base.origin) {
    throw new InputError(
      `Input 'job' is a URL on ${url.origin}, but 'url' is ${base.origin}: the job URL must be on the same server (credentials are never sent to another host).`
    )
  }
  if (url.search || url.hash) {
    throw new InputError(
      `Input 'job' URL has a query or fragment ('${redactUrl(value)}'): ${FORMS}.`
    )
  }
  const rest = pathBelow(url, base)
  if (rest === undefined) {
    throw new InputError(
      `Input 'job' URL path '${url.pathname}' is not under the context path '${base.pathname.replace(/\/+$/, '')}' of 'url': ${FORMS}.`
    )
  }
  return parseUrlForm(rest, value)
}

/**
 * The path of `url` below `base`'s context path, without a leading or
 * trailing '/'; undefined when it is not below (another origin, or outside
 * the context path).
 */
export function pathBelow(url: URL, base: URL): string | undefined {
  const basePath = base.pathname.replace(/\/+$/, '')
  const path = url.pathname
  if (url.origin !== base.origin) return undefined
  if (basePath && path !== basePath && !path.startsWith(`${basePath}/`)) return undefined
  return path.slice(basePath.length).replace(/^\/+/, '').replace(/\/+$/, '')
}

/**
 * The names of a `job/NAME/job/NAME` path (the part of a URL below the
 * context path), each percent-decoded once; `original`: the input as given, for messages.
 */
export function parseUrlForm(path: string, original: string): JobPath {
  const parts = path.split('/')
  const names: string[] = []
  for (let i = 0; i < parts.length; i += 2) {
    const marker = parts[i]
    const name = parts[i + 1]
    if (marker !== 'job' || name === undefined || name === '') {
      throw new InputError(
        `Input 'job' ('${redactUrl(original)}') is not a job path: every name must follow '/job/' (${FORMS}).`
      )
    }
    try {
      // An item name never holds '/': a decoded one came from a multibranch
      // branch URL written with a single %2F, whose item name is `feature%2Fx`
      // (jenkins-api.md 3.8). Keep it as that name, which encodes to the
      // canonical `feature%252Fx` that survives reverse proxies.
      names.push(decodeURIComponent(name).replace(/\//g, '%2F'))
    } catch {
      throw new InputError(`Input 'job' has a malformed percent-encoding in '${name}': ${FORMS}.`)
    }
  }
  return checkSegments(names, original)
}

function checkSegments(segments: string[], original: string): JobPath {
  for (const segment of segments) {
    if (segment === '') {
      throw new InputError(
        `Input 'job' ('${redactUrl(original)}') has an empty segment ('//'): ${FORMS}.`
      )
    }
    if (segment === '.' || segment === '..') {
      throw new InputError(
        `Input 'job' ('${redactUrl(original)}') has a '${segment}' segment: Jenkins item names cannot be '.' or '..' (${FORMS}).`
      )
    }
  }
  return Object.freeze([...segments])
}

/** Absolute URL of a job on `baseUrl` (normalised, no trailing slash), `/job/a/job/b/`, each name percent-encoded once. */
export function jobUrl(baseUrl: string, job: JobPath): string {
  // encodeURIComponent is compatible with Jenkins' Util.rawEncode (it only
  // leaves `~` unencoded, which Stapler reads the same), and turns a multibranch `feature%2Fx` into `feature%252Fx`,
  // the canonical form that survives reverse proxies (jenkins-api.md 3.8).
  return `${baseUrl}${job.map(name => `/job/${encodeURIComponent(name)}`).join('')}/`
}

/** Absolute URL of a build on `baseUrl` (normalised, no trailing slash), ending in '/'. */
export function buildUrl(baseUrl: string, job: JobPath, number: number): string {
  return `${jobUrl(baseUrl, job)}${number}/`
}

/**
 * Absolute URL of a queue item on `baseUrl` (normalised, no trailing slash),
 * ending in '/'; `?` stands for an id not learned yet.
 */
export function queueItemUrl(baseUrl: string, queueId: number | undefined): string {
  return `${baseUrl}/queue/item/${queueId ?? '?'}/`
}

/**
 * What a job is known by: Jenkins looks items up case-insensitively
 * (jenkins-api.md 3.8), and an item name never holds '/', so the lower-case
 * full name tells one job from every other.
 */
export function jobKey(job: JobPath): string {
  return fullName(job).toLowerCase()
}

/** Whether two job paths name the same job (jobKey). */
export function sameJob(a: JobPath, b: JobPath): boolean {
  return jobKey(a) === jobKey(b)
}

/** `folder/sub/job`, as Jenkins' fullName. */
export function fullName(job: JobPath): string {
  return job.join('/')
}

/**
 * A URL for messages, without what may be secret: the query and fragment
 * (`?token=…`) become `?…` / `#…`, then everything up to the last '@' goes
 * (user:password), even with no scheme or a '/' in the password: a parser
 * may read a malformed URL differently, and hiding too much is harmless.
 */
export function redactUrl(value: string): string {
  return value
    .replace(/([?#])[\s\S]*$/, '$1…')
    .replace(/^([a-z][a-z0-9+.-]*:\/\/)?[\s\S]*@/i, '$1***@')
}

/**
 * The item name of a multibranch branch, as branch-api's NameEncoder.encode
 * makes it (src/main/java/jenkins/branch/NameEncoder.java): only `# % / ? [ ]
 * \` are escaped, and the names '', '.', '..'. `feature/x` → `feature%2Fx`,
 * whose URL segment is then `feature%252Fx` (jenkins-api.md 3.8).
 */
export function branchItemName(branch: string): string {
  if (branch === '') return '%00'
  if (branch === '.') return '%2E'
  if (branch === '..') return '%2E.'
  return branch.replace(/[#%/?[\]\\]/g, ch => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`)
}

/** NameEncoder.decode: the branch name of a multibranch item name (`feature%2Fx` → `feature/x`). */
export function branchNameOf(item: string): string {
  if (!item.includes('%')) return item
  if (item === '%00') return ''
  if (item === '%2E') return '.'
  if (item === '%2E.') return '..'
  return item.replace(/%(2[35F]|3F|5[BCD])/g, escape => decodeURIComponent(escape))
}
