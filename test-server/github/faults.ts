/**
 * Fault modes of the GitHub stand-in, aimed at routes by name (and a
 * request picked by `match`): a GitHub that never sends its headers, drips
 * its body, sends too much, answers with its rate-limit signs (the headers
 * and messages of docs.github.com "Rate limits for the REST API"), or
 * refuses. Each can be watched (`hit`), so that a test acts while its
 * request is being spoiled instead of sleeping.
 */
import type { ServerResponse } from 'node:http'
import type { Answer } from './routes.js'

/** What a fault does to a request. */
export type GithubFaultEffect =
  /** The request is read, never answered: no headers, ever. The route does not act. */
  | { type: 'stall' }
  /** The route acts; its answer's headers go at once, its body `bytesPerSecond` bytes a second (default 1). */
  | { type: 'drip'; bytesPerSecond?: number }
  /** A 200 answer of `bytes` bytes of JSON (sent fast; with Content-Length when `declared`). The route does not act. */
  | { type: 'huge'; bytes: number; declared?: boolean }
  /**
   * GitHub's rate limit instead of an answer (the route does not act):
   * `primary` with `x-ratelimit-remaining: 0` and `x-ratelimit-reset` in
   * `resetInSec` (default 60); `secondary` with its message, and
   * `retry-after` when given. Status 403 unless told 429.
   */
  | {
      type: 'rate-limit'
      limit: 'primary' | 'secondary'
      status?: 403 | 429
      retryAfterSec?: number
      resetInSec?: number
    }
  /** GitHub refuses (the route does not act): `status` with `message` (default: not accessible by integration). */
  | { type: 'refuse'; status: number; message?: string }

/** A request as the stand-in recorded it. */
export interface GithubRequest {
  method: string
  /** Path and query, as sent. */
  url: string
  /** The route it matched, if any. */
  route: string | undefined
  /** The route's path parameters. */
  params: Record<string, string>
  headers: Record<string, string | string[] | undefined>
  body: string
  /** Who its token acts as, if known. */
  login: string | undefined
}

export interface GithubFault {
  /** The route(s) it aims at, by name (`comments.create`, …). */
  route: string | readonly string[]
  effect: GithubFaultEffect
  /** Only the requests it picks (default all). */
  match?: (request: GithubRequest) => boolean
  /** How many of the matching requests it spoils (default all). */
  times?: number
}

export interface GithubFaultHandle {
  readonly hits: number
  /** Resolves with the first request hit. */
  hit: Promise<GithubRequest>
  remove(): void
}

interface Aimed {
  fault: GithubFault
  hits: number
  onHit: (request: GithubRequest) => void
}

/** The faults aimed at one stand-in. */
export class GithubFaults {
  private readonly list: Aimed[] = []

  aim(fault: GithubFault): GithubFaultHandle {
    let onHit!: (request: GithubRequest) => void
    const hit = new Promise<GithubRequest>(resolve => (onHit = resolve))
    const aimed: Aimed = { fault, hits: 0, onHit }
    this.list.push(aimed)
    return {
      get hits() {
        return aimed.hits
      },
      hit,
      remove: () => {
        const at = this.list.indexOf(aimed)
        if (at >= 0) this.list.splice(at, 1)
      }
    }
  }

  /** The effect for `request`, if a fault hits it (the first aimed that matches). */
  take(request: GithubRequest): GithubFaultEffect | undefined {
    for (const aimed of this.list) {
      const { fault } = aimed
      const routes = typeof fault.route === 'string' ? [fault.route] : fault.route
      if (!request.route || !routes.includes(request.route)) continue
      if (fault.match && !fault.match(request)) continue
      if (fault.times !== undefined && aimed.hits >= fault.times) continue
      aimed.hits++
      aimed.onHit(request)
      return fault.effect
    }
    return undefined
  }
}

/** GitHub's answer to a request it rate-limits. */
export function rateLimitAnswer(
  effect: Extract<GithubFaultEffect, { type: 'rate-limit' }>,
  nowSec: number
): Answer {
  const status = effect.status ?? 403
  if (effect.limit === 'primary') {
    return {
      status,
      headers: {
        'x-ratelimit-remaining': '0',
        'x-ratelimit-used': '5000',
        'x-ratelimit-reset': String(nowSec + (effect.resetInSec ?? 60)),
        ...(effect.retryAfterSec !== undefined
          ? { 'retry-after': String(effect.retryAfterSec) }
          : {})
      },
      body: {
        message: 'API rate limit exceeded for installation ID 1.',
        documentation_url:
          'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-primary-rate-limits'
      }
    }
  }
  return {
    status,
    headers:
      effect.retryAfterSec !== undefined ? { 'retry-after': String(effect.retryAfterSec) } : {},
    body: {
      message:
        'You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID 0000:0000:0000000:0000000:00000000.',
      documentation_url:
        'https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits'
    }
  }
}

/** Sends `body` (headers already set on `res`) `bytesPerSecond` bytes a second. */
export function drip(res: ServerResponse, body: Buffer, bytesPerSecond: number): void {
  res.flushHeaders()
  const everyMs = Math.max(10, Math.round(1000 / bytesPerSecond))
  const size = Math.max(1, Math.round((bytesPerSecond * everyMs) / 1000))
  let sent = 0
  const timer = setInterval(() => {
    if (sent >= body.length) {
      clearInterval(timer)
      res.end()
      return
    }
    res.write(body.subarray(sent, sent + size))
    sent += size
  }, everyMs)
  res.once('close', () => clearInterval(timer))
}

/** A JSON answer of `bytes` bytes (one long string), written in chunks as the client takes them. */
export function huge(res: ServerResponse, bytes: number, declared: boolean): void {
  const head = '{"message":"'
  const tail = '"}'
  const fill = Math.max(0, bytes - head.length - tail.length)
  res.writeHead(200, declared ? { 'content-length': String(head.length + fill + tail.length) } : {})
  const chunk = Buffer.alloc(64 * 1024, 'x')
  let left = fill
  const more = (): void => {
    if (res.destroyed) return
    while (left > 0) {
      const part = left >= chunk.length ? chunk : chunk.subarray(0, left)
      left -= part.length
      if (!res.write(part)) return void res.once('drain', more)
    }
    res.end(tail)
  }
  res.write(head)
  more()
}
