/**
 * The bounds of every request to GitHub, as the Jenkins client bounds its
 * own (jenkins/transport/limits.ts): an exchange ends on the first of the
 * step's signal, its deadline, and a silence bound of its own: the headers
 * and the whole body within GITHUB_REQUEST_TIMEOUT_MS (twice the 10 s after
 * which GitHub ends a request itself). The body is read here, capped, before
 * Octokit sees it, so a GitHub that never answers, drips or sends too much
 * cannot hold the step. Every failure of a request is decoded once, by
 * `githubFailure`: no answer, stopped, rate-limited, too large, broken off,
 * or GitHub's own HTTP answer.
 */
import { seconds } from '../jenkins/transport/limits.js'
import { formatBytes } from '../util/bytes.js'
import { errorText } from '../util/error-text.js'

/** Time for a GitHub answer, headers and body. */
const GITHUB_REQUEST_TIMEOUT_MS = 20_000
/** The largest answer read: a page of 100 comments of GitHub's 65,536 characters each, with room. */
const GITHUB_MAX_BODY_BYTES = 32 * 1024 * 1024
/** With a signal, the deadline is its backstop only: the signal's "stopped" is the one to report. */
const BACKSTOP_MS = 250

/** Why a request to GitHub got no usable answer. */
export type TransportKind = 'timeout' | 'stopped' | 'rate-limited' | 'too-large' | 'network'

/** A request to GitHub that got no usable answer; `kind` says why. */
export class GithubTransportError extends Error {
  constructor(
    readonly kind: TransportKind,
    message: string
  ) {
    super(message)
    this.name = 'GithubTransportError'
  }
}

/** What went wrong with a request to GitHub: its transport, or GitHub's HTTP answer. */
export type GithubFailure =
  { kind: TransportKind; message: string } | { kind: 'answered'; status: number; message: string }

/**
 * The one decoder of a failed GitHub request (Octokit wraps what fetch
 * throws in a RequestError of status 500, with the error as its cause).
 */
export function githubFailure(error: unknown): GithubFailure {
  const cause = error instanceof Error ? error.cause : undefined
  const transport =
    error instanceof GithubTransportError
      ? error
      : cause instanceof GithubTransportError
        ? cause
        : undefined
  if (transport) return { kind: transport.kind, message: transport.message }
  const status: unknown = error instanceof Error ? Reflect.get(error, 'status') : undefined
  const response: unknown = error instanceof Error ? Reflect.get(error, 'response') : undefined
  if (typeof status === 'number' && response !== undefined) {
    return { kind: 'answered', status, message: errorText(error) }
  }
  return { kind: 'network', message: errorText(error) }
}

/** A failed request as a message's end: ` (HTTP 404): Not Found`, or `: <why>` without an answer; `redact` takes the secrets out. */
export function failureEnd(error: unknown, redact: (text: string) => string): string {
  const failure = githubFailure(error)
  const status = failure.kind === 'answered' ? ` (HTTP ${failure.status})` : ''
  return `${status}: ${redact(errorText(error))}`
}

/** What bounds one request: it ends when `signal` fires, and never outlives `deadline` (epoch ms). */
export interface RequestBounds {
  signal?: AbortSignal
  deadline?: number
}

/** "GET /repos/o/r/pulls/7" and the server's origin, for messages (no query, no credentials). */
export function requestName(
  input: string | URL | Request,
  init?: RequestInit
): { what: string; server: string } {
  const url = new URL(input instanceof Request ? input.url : input)
  const method = init?.method ?? (input instanceof Request ? input.method : 'GET')
  return { what: `${method.toUpperCase()} ${url.pathname}`, server: url.origin }
}

/**
 * `base` (@actions/github's fetch, through the runner's proxy) with every
 * exchange bounded by `bounds` (those of a request that starts now: the
 * step's, then the abort's budget) and the file comment's; the answer comes
 * back read whole.
 */
export function boundedFetch(base: typeof fetch, bounds: () => RequestBounds): typeof fetch {
  return async (input, init) => {
    const { signal, deadline } = bounds()
    const { what, server } = requestName(input, init)
    if (signal?.aborted) {
      throw new GithubTransportError(
        'stopped',
        `Did not send ${what} to GitHub at ${server}: the step was stopped`
      )
    }
    const started = Date.now()
    const elapsed = (): string => seconds(Date.now() - started)
    // The first bound met cuts the exchange; its error is the abort's reason.
    const controller = new AbortController()
    let answered = false
    let received = 0
    const cut = (kind: TransportKind, message: string): void => {
      if (!controller.signal.aborted) controller.abort(new GithubTransportError(kind, message))
    }
    const onStop = (): void =>
      cut(
        'stopped',
        answered
          ? `Stopped waiting for GitHub at ${server}: it had sent ${received} bytes of its answer to ${what} in ${elapsed()}`
          : `Stopped waiting for GitHub at ${server}: no answer to ${what} after ${elapsed()}`
      )
    signal?.addEventListener('abort', onStop, { once: true })
    const toDeadline =
      deadline === undefined ? Infinity : deadline + (signal ? BACKSTOP_MS : 0) - started
    const byDeadline = toDeadline < GITHUB_REQUEST_TIMEOUT_MS
    const when = byDeadline ? 'before the deadline' : `within ${seconds(GITHUB_REQUEST_TIMEOUT_MS)}`
    const timer = setTimeout(
      () =>
        cut(
          'timeout',
          answered
            ? `GitHub at ${server} did not finish sending its answer to ${what} ${when} (${received} bytes received)`
            : `No answer from GitHub at ${server} to ${what} ${when}`
        ),
      Math.max(0, Math.min(GITHUB_REQUEST_TIMEOUT_MS, toDeadline))
    )
    try {
      const response = await base(input, { ...init, signal: controller.signal })
      answered = true
      const tooLarge = (size: string): GithubTransportError =>
        new GithubTransportError(
          'too-large',
          `GitHub at ${server} answered ${what} with ${size}, more than the ${formatBytes(GITHUB_MAX_BODY_BYTES)} this action reads`
        )
      const declared = Number(response.headers.get('content-length'))
      if (response.body && declared > GITHUB_MAX_BODY_BYTES) {
        await response.body.cancel().catch(() => undefined)
        throw tooLarge(`${declared} bytes`)
      }
      // Read here, capped (a throw cancels the stream), before Octokit sees it.
      const chunks: Uint8Array[] = []
      for await (const chunk of response.body ?? []) {
        received += chunk.byteLength
        if (received > GITHUB_MAX_BODY_BYTES) throw tooLarge(`more than ${received} bytes`)
        chunks.push(chunk)
      }
      const empty = !response.body || [101, 204, 205, 304].includes(response.status)
      // The answer again, its body now in memory (a Response has the fields of its init).
      const copy = new Response(empty ? null : Buffer.concat(chunks), response)
      Object.defineProperty(copy, 'url', { value: response.url })
      return copy
    } catch (error) {
      const cutBy: unknown = controller.signal.reason
      if (cutBy instanceof GithubTransportError) throw cutBy
      if (error instanceof GithubTransportError) throw error
      throw new GithubTransportError(
        'network',
        `The connection to GitHub at ${server} failed during ${what}: ${causeText(error)}`
      )
    } finally {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onStop)
    }
  }
}

/** undici says "fetch failed" and puts the reason in `cause`. */
function causeText(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined
  return cause instanceof Error ? `${errorText(error)} (${cause.message})` : errorText(error)
}
