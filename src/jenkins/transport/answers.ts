/**
 * What the request path (requester.ts) makes of an answer: its body read
 * within bounds, and a failed answer turned into the error to throw or to
 * retry (TransientFailure).
 */
import { JenkinsError } from './errors.js'
import type { HttpResponse } from './http.js'
import { JsonTooDeep, MAX_JSON_DEPTH, readJenkinsJson, type DroppedPart } from './json.js'
import { htmlError, looksLikeHtml, type ErrorContext } from './responses.js'
import { TransientFailure } from './retry.js'

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
export async function jsonBody<T>(
  response: HttpResponse,
  context: ErrorContext,
  /** Top-level lists whose elements may be left out when nested too deep (a build's `actions`), and who is told of each. */
  options: { droppable?: readonly string[]; onDropped?: (part: DroppedPart) => void } = {}
): Promise<T> {
  const body = await bodyOf(response.text(JSON_LIMIT, 'fail'))
  // An SSO proxy or login page can answer 200 with HTML.
  if (looksLikeHtml(response, body)) throw htmlGlitch(context, response.status)
  try {
    const { value, dropped } = readJenkinsJson(body, options)
    for (const part of dropped) options.onDropped?.(part)
    return value as T
  } catch (error) {
    // The same answer again would be as deep: not a glitch to retry.
    if (error instanceof JsonTooDeep) throw tooDeepError(context, error, response.status)
    throw new TransientFailure(
      new JenkinsError(
        'protocol',
        `Jenkins at ${context.server} answered ${context.what} with malformed JSON`,
        response.status
      ),
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
  return new JenkinsError(
    'protocol',
    `Jenkins at ${context.server} answered ${context.what} with JSON nested more than ${MAX_JSON_DEPTH} levels deep (at character ${error.offset}), which this action does not read: no Jenkins answer it asks for nests that deep, so a plugin or something in front of Jenkins sent it`,
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
