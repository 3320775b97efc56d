/**
 * What the request path (requester.ts) makes of an answer: its body read
 * within bounds, and a failed answer turned into the error to throw or to
 * retry (TransientFailure), with a message a user can act on.
 */
import { JenkinsError, type JenkinsErrorKind } from './errors.js'
import type { HttpResponse } from './http.js'
import {
  JsonTooDeep,
  MAX_JSON_DEPTH,
  parseJenkinsJson,
  readJenkinsJson,
  type DroppedPart
} from './json.js'
import { TransientFailure } from './retry.js'
import { isRecord } from '../../util/is-record.js'

/** Statuses worth another try for a request that may safely repeat. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504])

/** What a request was about, so that errors name the thing the user asked for. */
export interface ErrorContext {
  /** The configured Jenkins URL, context path included, e.g. https://ci.example.com/jenkins (never credentials or a query). */
  server: string
  user?: string
  /** What was asked, e.g. "job 'a/b'" or "the stop of build #4 of 'a/b'". */
  what: string
  /** Message for a 404. */
  notFound?: string
  /** Message for a 409. */
  conflict?: string
  /** The permission the request needs, e.g. 'Job/Cancel', used when Jenkins does not say. */
  permission?: string
  /** Added to a 5xx message. */
  serverHint?: string
  /** The request is anonymous and the step has a job token: reads may be refused where the trigger is not. */
  jobTokenOnly?: boolean
  /** The request follows a build this step queued (queue item, build, console), rather than preparing the trigger. */
  following?: boolean
  /** The request carried the job token (`token` form field): a 403 means the token was refused. */
  jobTokenSent?: boolean
}

/** Jetty's 403 body when the crumb is missing or stale (jenkins-api.md 1.5). */
export function isCrumbRejection(status: number, body: string): boolean {
  return status === 403 && /No valid crumb/i.test(body)
}

/** Jenkins' "Authentication required" page: a 403 HTML meta refresh to /login?from= (jenkins-api.md 2.2, 10). */
function isLoginPage(response: HttpResponse, body: string): boolean {
  return (
    body.includes('/login?from=') ||
    (response.contentType.includes('html') && /Authentication required/i.test(body))
  )
}

/** True when a body that should be JSON is an HTML page (login page, SSO proxy, error page). */
export function looksLikeHtml(response: HttpResponse, body: string): boolean {
  return response.contentType.includes('text/html') || /^\s*</.test(body)
}

/** The error for an HTML page where JSON was expected. */
export function htmlError(context: ErrorContext, status: number): JenkinsError {
  return new JenkinsError(
    'html',
    `Jenkins answered with an HTML page where JSON was expected — a login page or SSO proxy in front of Jenkins? (${context.what} at ${context.server}, status ${status}). If an authenticating proxy (Cloudflare Access, an IAP, oauth2-proxy) guards Jenkins, give it the headers it expects in 'headers'.`,
    status
  )
}

/** An answer no real Jenkins sends from `server`: `what` names it and says what is wrong with it. */
export function oddAnswer(server: string, what: string, status?: number): JenkinsError {
  return new JenkinsError('protocol', `Jenkins at ${server} answered ${what}`, status)
}

const PERMISSION_GROUPS = new Map(
  Object.entries({ Item: 'Job', Hudson: 'Overall', Run: 'Run', Computer: 'Agent', View: 'View' })
)

/** `hudson.model.Item.Configure` → `Job/Configure`, as the Jenkins UI names permissions. */
function permissionName(id: string): string {
  const [, kind = '', name] = /^hudson\.model\.(\w+)\.(\w+)$/.exec(id) ?? []
  const group = PERMISSION_GROUPS.get(kind)
  return group ? `${group}/${name}` : id
}

/**
 * A one-line message from an error body, when there is a readable one: plain
 * text, Jetty's error page title ("Error 400 Nothing is submitted"), or a
 * JSON `message`. Jenkins' own HTML pages (404, oops) give nothing useful.
 */
function shortMessage(response: HttpResponse, body: string): string | undefined {
  const type = response.contentType
  let text: string | undefined
  if (type.includes('json')) {
    try {
      // An error body too deep to read has no message to quote (JsonTooDeep).
      const parsed = parseJenkinsJson(body)
      const message = isRecord(parsed) ? parsed.message : undefined
      if (typeof message === 'string') text = message
    } catch {
      text = undefined
    }
  } else if (type.includes('html') || looksLikeHtml(response, body)) {
    const title = /<title>\s*Error\s+\d{3}\s+([^<]+?)\s*<\/title>/i.exec(body)
    text = title?.[1]
  } else {
    text = body
  }
  const line = text
    ?.split(/\r?\n/)
    .map(part => part.trim())
    .find(part => part !== '')
  if (!line) return undefined
  return line.length > 200 ? `${line.slice(0, 200)}…` : line
}

/** The JenkinsError for a status that is not the success the caller wanted. */
export function errorForResponse(
  response: HttpResponse,
  body: string,
  context: ErrorContext
): JenkinsError {
  const status = response.status
  const at = `Jenkins at ${context.server}`
  const short = shortMessage(response, body)
  const detail = short ? `: ${short}` : ''
  const fail = (kind: JenkinsErrorKind, message: string): JenkinsError =>
    new JenkinsError(kind, message, status)
  switch (status) {
    case 401:
      // Jenkins' own 401 always challenges Basic with realm "Jenkins"
      // (BasicAuthenticationEntryPoint, jenkins-api.md 2.1); one without it
      // comes from something in front of Jenkins.
      if (!/realm="?Jenkins/i.test(response.header('www-authenticate') ?? '')) {
        return fail(
          'bad-credentials',
          `${at} answered ${context.what} with 401 without Jenkins' Basic challenge: an authenticating proxy in front of Jenkins? Give it the headers it expects in 'headers'${context.user ? '' : ', or set user and token if Jenkins itself asks'}.`
        )
      }
      return fail(
        'bad-credentials',
        context.user
          ? `${at} rejected the credentials for user '${context.user}' (401): check the user and API token`
          : `${at} asked for credentials (401): set user and token`
      )
    case 403:
      return forbiddenError(response, body, context)
    case 404:
      return fail('not-found', context.notFound ?? `${at} has no ${context.what} (404)`)
    case 409:
      return fail(
        'conflict',
        context.conflict ?? `${at} refused ${context.what} (409 Conflict${detail})`
      )
    case 400:
    case 405:
      return fail('bad-request', `${at} rejected ${context.what} (${status}${detail})`)
    case 431:
      // Node's own server and most proxies allow 8-16 KiB of headers; the
      // Authorization header is the one that can be that big.
      return fail(
        'bad-request',
        `${at} refused the request headers as too large (431) for ${context.what}: the Authorization header is built from the 'user' and 'token' inputs; check that they hold a user name and an API token`
      )
    case 429:
      return fail('server', `${at} is rate-limiting requests (429) for ${context.what}`)
  }
  if (status >= 500) {
    const hint = context.serverHint ? ` ${context.serverHint}` : ''
    return fail('server', `${at} failed ${context.what} (${status}${detail}).${hint}`)
  }
  return fail(
    'protocol',
    `${at} answered ${context.what} with an unexpected status ${status}${detail}`
  )
}

/** A 403's error. */
const forbidden = (kind: JenkinsErrorKind, message: string): JenkinsError =>
  new JenkinsError(kind, message, 403)

function forbiddenError(response: HttpResponse, body: string, context: ErrorContext): JenkinsError {
  const at = `Jenkins at ${context.server}`
  if (isCrumbRejection(response.status, body)) {
    return forbidden(
      'crumb',
      `${at} rejected the CSRF crumb for ${context.what} (403 "No valid crumb") even with a fresh crumb and session: does a proxy drop the session cookie or the crumb header?`
    )
  }
  if (context.jobTokenSent) return jobTokenRefused(body, context)
  const required = response.header('x-required-permission')
  const who = response.header('x-you-are-authenticated-as') ?? context.user
  // Anonymous callers get the login page, and no permission headers (2.2).
  if (isLoginPage(response, body) || (!context.user && required === undefined)) {
    if (context.jobTokenOnly) return anonymousReadRefused(context)
    const sent = context.user
      ? ` Credentials for user '${context.user}' were sent but Jenkins treated the request as anonymous: is a proxy removing the Authorization header?`
      : ''
    return forbidden(
      'auth-required',
      `Jenkins requires authentication: set user and token (${at} answered ${context.what} with 403).${sent}`
    )
  }
  const permission = required ? permissionName(required) : context.permission
  const needs = permission
    ? `the user lacks ${permission}${required ? ` (${required})` : ''}`
    : 'the user lacks a permission'
  return forbidden(
    'forbidden',
    `${at} denied ${context.what} to user '${who ?? 'anonymous'}' (403): ${needs}`
  )
}

/**
 * A trigger that carried the job token got a 403: BuildAuthorizationToken
 * skips every permission check for the right token, so either the token is
 * not the job's ("Invalid token provided.", shown to users; anonymous
 * callers get the login page instead), or the job has no token and the
 * caller lacks Job/Build. The token itself is never shown.
 */
function jobTokenRefused(body: string, context: ErrorContext): JenkinsError {
  const invalid = /Invalid token provided/.test(body)
  const who = context.user ? `user '${context.user}'` : 'anonymous users'
  return forbidden(
    'forbidden',
    `Jenkins at ${context.server} refused the job token for ${context.what} (403${invalid ? ' "Invalid token provided."' : ''}): it is not the job's "Trigger builds remotely" token${invalid ? '' : `, or the job has no such token and ${who} lack Job/Build`}. Check 'job-token' (its value is not shown).`
  )
}

/**
 * An anonymous read refused while the step holds only a job token. Jenkins
 * looks a job up (getItem needs Job/Read), serves the crumb (Overall/Read)
 * and shows queue items and builds (Job/Read) only to callers who may read,
 * whatever token they carry.
 */
function anonymousReadRefused(context: ErrorContext): JenkinsError {
  const at = `Jenkins at ${context.server}`
  return forbidden(
    'auth-required',
    context.following
      ? `${at} refused anonymous read of ${context.what} (403): the job token let this step queue the build, but following it needs read access: give user/token, or use wait: false.`
      : `${at} refused anonymous read of ${context.what} (403): a job token alone is not enough here, because Jenkins finds the job, and hands out the CSRF crumb its trigger needs, only to callers who may read it (Overall/Read and Job/Read). Give user/token (that user then needs only Job/Read: the job token stands in for Job/Build), or grant anonymous read.`
  )
}

/** JSON answers can be big (a large instance's job tree); a bound still stops a runaway body. */
const JSON_LIMIT = 64 * 1024 * 1024
export const ERROR_BODY_LIMIT = 64 * 1024
/** Tries of a read that got an HTML page or invalid JSON: one is a glitch (an SSO proxy's blip), three are the answer. */
const GLITCH_ATTEMPTS = 3

/** An HTML page where Jenkins' answer was expected: worth GLITCH_ATTEMPTS tries in all. */
export function htmlGlitch(context: ErrorContext, status: number): TransientFailure {
  return new TransientFailure(htmlError(context, status), 'an HTML page', {
    maxAttempts: GLITCH_ATTEMPTS
  })
}

/** A body read whose failure (broken off, too slow, stalled) is worth another try; too large and interrupted are not. */
export async function bodyOf(reading: Promise<string>): Promise<string> {
  try {
    return await reading
  } catch (error) {
    if (error instanceof JenkinsError && (error.kind === 'network' || error.kind === 'timeout')) {
      throw new TransientFailure(
        error,
        error.kind === 'network' ? 'body broke off' : 'body too slow'
      )
    }
    throw error
  }
}

/**
 * A 2xx answer's JSON. A body that broke off or came too slowly, one HTML
 * page (an SSO proxy's blip) and one invalid JSON answer are retried; an HTML
 * page on every try is the login page it looks like.
 */
export async function jsonBody(
  response: HttpResponse,
  context: ErrorContext,
  /** Top-level lists whose elements may be left out when nested too deep (a build's `actions`), and who is told of each. */
  options: { droppable?: readonly string[]; onDropped?: (part: DroppedPart) => void } = {}
): Promise<unknown> {
  const body = await bodyOf(response.text(JSON_LIMIT, 'fail'))
  // An SSO proxy or login page can answer 200 with HTML.
  if (looksLikeHtml(response, body)) throw htmlGlitch(context, response.status)
  try {
    const { value, dropped } = readJenkinsJson(body, options)
    for (const part of dropped) options.onDropped?.(part)
    return value
  } catch (error) {
    // The same answer again would be as deep: not a glitch to retry.
    if (error instanceof JsonTooDeep) throw tooDeepError(context, error, response.status)
    throw new TransientFailure(
      oddAnswer(context.server, `${context.what} with malformed JSON`, response.status),
      'invalid JSON',
      { maxAttempts: GLITCH_ATTEMPTS }
    )
  }
}

/** What to say of an answer nested too deep to read. */
export function tooDeepError(
  context: ErrorContext,
  error: JsonTooDeep,
  status?: number
): JenkinsError {
  return oddAnswer(
    context.server,
    `${context.what} with JSON nested more than ${MAX_JSON_DEPTH} levels deep (at character ${error.offset}), which this action does not read: no Jenkins answer it asks for nests that deep, so a plugin or something in front of Jenkins sent it`,
    status
  )
}

/**
 * What to say of a part left out as too deep (json.ts readJenkinsJson):
 * which answer, which element of which list, and whose data it was.
 */
export function droppedNote(context: ErrorContext, part: DroppedPart): string {
  const whose = part.className === undefined ? '' : ` (${part.className})`
  return `Jenkins at ${context.server} answered ${context.what} with element ${part.index + 1} of its '${part.field}'${whose} nested more than ${MAX_JSON_DEPTH} levels deep (at character ${part.offset}): it is read without that element, as if Jenkins had not sent it (a plugin's data, or something in front of Jenkins that ignores tree=)`
}
