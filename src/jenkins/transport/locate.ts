import { shortName } from '../../util/names.js'
import { JenkinsError } from './errors.js'
import type { HttpResponse } from './http.js'

/**
 * Where Jenkins is, when the configured `url` got a 404 that Jenkins did not
 * send: typically a `url` without the context path Jenkins runs under. Only
 * on that error path, and in at most four small GETs; the answer is a
 * sentence for the message. Why those GETs tell:
 * docs/internals.md, "Where Jenkins is, after a 404 it did not send".
 */

/** What a look at a URL shows: status and headers, or undefined when nothing answered. */
type Glance = Pick<HttpResponse, 'status' | 'header'>

/** One GET, following same-origin redirects or not, that reads nothing but status and headers. */
export type Look = (url: string, o: { follow: boolean }) => Promise<Glance | undefined>

/** The context path Jenkins' documentation uses for --prefix, the one most installations pick. */
const USUAL_CONTEXT_PATH = '/jenkins'

/**
 * Undefined when Jenkins answers at `baseUrl` after all (the 404 was its
 * own, with the header lost on the way); otherwise what to set 'url' to, as
 * far as can be told.
 */
export async function locateJenkins(baseUrl: string, look: Look): Promise<string | undefined> {
  if (await isJenkins(baseUrl, look, { root: false })) return undefined
  const origin = new URL(baseUrl).origin
  const redirected = await rootRedirect(origin, look)
  for (const candidate of [redirected, `${origin}${USUAL_CONTEXT_PATH}`]) {
    if (candidate === undefined || candidate === baseUrl) continue
    if (await isJenkins(candidate, look, { root: false })) {
      const how = candidate === redirected ? ' (the server redirects / there)' : ''
      return `Jenkins answers at ${candidate}${how}: set 'url' to ${candidate}.`
    }
  }
  return `If Jenkins runs under a context path (its --prefix option), 'url' must end with it, as in ${origin}${USUAL_CONTEXT_PATH}.`
}

/** Most looks for Jenkins' root above a `url` that is not it. */
const ROOT_LOOKS = 3

/**
 * Where Jenkins' root is when Jenkins answers below `baseUrl` but not at it:
 * an extra context path (`/jenkins` on a Jenkins served at `/`), or a job's
 * or folder's page pasted into `url`. Asked only once Jenkins found neither
 * `what` (a job) nor a job list at `url` (follow/build-parts.ts). Undefined when
 * `baseUrl` is Jenkins' root (its /login answers as Jenkins' login page), or
 * when no root is found within ROOT_LOOKS looks: the path before a `/job/`
 * segment, then the shorter paths, the nearest first.
 */
export async function locateRoot(
  baseUrl: string,
  look: Look,
  what: string
): Promise<string | undefined> {
  if (await isJenkins(baseUrl, look)) return undefined
  const { origin, pathname } = new URL(baseUrl)
  const segments = pathname.split('/').filter(Boolean)
  const item = segments.indexOf('job')
  const paths = [
    ...(item >= 0 ? [segments.slice(0, item)] : []),
    ...segments.map((_, n) => segments.slice(0, segments.length - 1 - n))
  ].map(path => (path.length > 0 ? `${origin}/${path.join('/')}` : origin))
  const candidates = [...new Set(paths)].slice(0, ROOT_LOOKS - 1)
  for (const candidate of candidates) {
    if (!(await isJenkins(candidate, look))) continue
    const page = item >= 0 ? itemOf(segments.slice(item)) : undefined
    return `'url' is not the address of Jenkins: Jenkins answers at ${candidate}, and at ${baseUrl} it has neither ${what} nor its login page. Set 'url' to ${candidate}${page ? `; ${baseUrl} is the page of ${page}, whose path goes in 'job'` : ''}.`
  }
  return undefined
}

/** `job/a/job/b/…` as the item it names (`'a/b'`), for the message; undefined when the path names none. */
function itemOf(segments: readonly string[]): string | undefined {
  const names: string[] = []
  for (let i = 0; segments[i] === 'job'; i += 2) {
    const name = segments[i + 1]
    if (name === undefined) break
    try {
      names.push(decodeURIComponent(name))
    } catch {
      return undefined
    }
  }
  return names.length > 0 ? `'${shortName(names.join('/'))}'` : undefined
}

/**
 * Whether a Jenkins answers at `base`: its login page carries X-Jenkins. Its
 * root (`root`) answers it with a success (below the root, Jenkins answers
 * /login with its 404).
 */
async function isJenkins(base: string, look: Look, { root = true } = {}): Promise<boolean> {
  const answer = await look(`${base}/login`, { follow: true })
  if (answer?.header('x-jenkins') === undefined) return false
  return !root || (answer.status >= 200 && answer.status < 300)
}

/** The error for a request whose 404 showed that `baseUrl` is not Jenkins' address. */
export function notJenkinsError(baseUrl: string, what: string, where: string): JenkinsError {
  return new JenkinsError(
    'not-jenkins',
    `The server at ${baseUrl} answered ${what} with a 404 that is not Jenkins' (no X-Jenkins header), and ${baseUrl}/login is no Jenkins page either: 'url' is not the address of Jenkins. ${where}`,
    404
  )
}

/** Where the server's root redirects on the same origin, as a base URL, if it does. */
async function rootRedirect(origin: string, look: Look): Promise<string | undefined> {
  const answer = await look(`${origin}/`, { follow: false })
  const location = answer?.header('location')
  if (!answer || answer.status < 300 || answer.status >= 400 || !location) return undefined
  const target = URL.parse(location, `${origin}/`)
  if (!target || target.origin !== origin || target.pathname === '/') return undefined
  return origin + target.pathname.replace(/\/+$/, '')
}
