/**
 * Faults aimed at some requests only (by kind, job, method, and which of the
 * matching requests), and what they do to a request: the hostile or broken
 * Jenkins, or proxy, of issue 9. Each one can be watched (`hit`), so a test
 * acts while its request is being spoiled instead of sleeping.
 */
import { ServerResponse, type IncomingMessage } from 'node:http'
import { reason } from '../http/pages.js'
import type {
  AimedFault,
  AimedFaultHandle,
  FaultEffect,
  RequestKind,
  RequestLogEntry
} from '../types.js'

/** Requests hit by a `reset-upload` fault: how many body bytes Jenkins gets before the reset (uploads.ts). */
export const uploadCuts = new WeakMap<IncomingMessage, number>()

interface Aimed {
  fault: AimedFault
  /** Matching requests seen, hit or not. */
  seen: number
  hits: number
  removed: boolean
  onHit: () => void
}

/** The aimed faults of one server. */
export class AimedFaults {
  private readonly list: Aimed[] = []

  aim(fault: AimedFault): AimedFaultHandle {
    let onHit!: () => void
    const hit = new Promise<void>(resolve => (onHit = resolve))
    const aimed: Aimed = { fault, seen: 0, hits: 0, removed: false, onHit }
    this.list.push(aimed)
    return {
      get hits() {
        return aimed.hits
      },
      hit,
      remove: () => {
        aimed.removed = true
        this.list.splice(this.list.indexOf(aimed), 1)
      }
    }
  }

  /** The effect for a request, if a fault hits it (every fault that matches counts it; the first that hits wins). */
  take(
    kind: RequestKind,
    job: string | undefined,
    method: string,
    query = ''
  ): FaultEffect | undefined {
    let effect: FaultEffect | undefined
    for (const aimed of [...this.list]) {
      const { fault } = aimed
      if (fault.kind !== undefined && fault.kind !== kind) continue
      if (fault.method !== undefined && fault.method !== method) continue
      if (fault.query !== undefined && !decoded(query).includes(fault.query)) continue
      if (fault.job !== undefined && fault.job.toLowerCase() !== job?.toLowerCase()) continue
      aimed.seen++
      const from = fault.from ?? 1
      if (aimed.seen < from) continue
      if (fault.times !== undefined && aimed.seen >= from + fault.times) continue
      if (effect !== undefined) continue
      aimed.hits++
      aimed.onHit()
      effect = fault.effect
    }
    return effect
  }
}

function decoded(query: string): string {
  try {
    return decodeURIComponent(query.replace(/\+/g, ' '))
  } catch {
    return query
  }
}

/**
 * Applies an effect. Returns true when the request was answered here
 * (Jenkins is not asked); false when Jenkins answers and the effect spoils
 * how its answer travels back.
 */
export function applyEffect(
  effect: FaultEffect,
  req: IncomingMessage,
  res: ServerResponse,
  entry: RequestLogEntry
): boolean {
  entry.fault = effect.type
  switch (effect.type) {
    case 'hang':
      req.resume()
      return true
    case 'html-page':
      res.writeHead(200, { 'Content-Type': 'text/html;charset=utf-8' })
      res.end(
        '<!DOCTYPE html><html><head><title>Sign in</title></head><body><form method="post" action="/sso/login"><input name="user"><input name="password" type="password"></form></body></html>\n'
      )
      return true
    case 'invalid-json':
      res.writeHead(200, { 'Content-Type': 'application/json;charset=UTF-8' })
      res.end('{"_class":"hudson.model.FreeStyleBuild","number":')
      return true
    case 'status': {
      const headers: Record<string, string> = { 'Content-Type': 'text/html' }
      if (effect.retryAfterSec !== undefined) headers['Retry-After'] = String(effect.retryAfterSec)
      res.writeHead(effect.status, headers)
      res.end(
        `<html><head><title>${effect.status} ${reason(effect.status)}</title></head><body><h1>${effect.status} ${reason(effect.status)}</h1></body></html>\n`
      )
      return true
    }
    case 'chunked':
      withoutLength(res)
      return false
    case 'reset-upload': {
      const length = Number(req.headers['content-length'] ?? 0)
      uploadCuts.set(
        req,
        'afterBytes' in effect ? effect.afterBytes : Math.max(0, length - effect.beforeEnd)
      )
      return false
    }
    default:
      holdBody(res, entry, body => spoil(effect, res, body))
      return false
  }
}

/**
 * Drops the Content-Length the route sets, before the headers are written,
 * so that Node sends the body chunked as it comes (not held: a large body
 * streams with backpressure).
 */
function withoutLength(res: ServerResponse): void {
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse
  res.writeHead = ((...args: unknown[]) => {
    res.removeHeader('content-length')
    return writeHead(
      ...args.map(arg =>
        arg !== null && typeof arg === 'object' && !Array.isArray(arg)
          ? Object.fromEntries(
              Object.entries(arg).filter(([name]) => name.toLowerCase() !== 'content-length')
            )
          : arg
      )
    )
  }) as typeof res.writeHead
}

/** Keeps what the route writes until it ends, then hands the whole body to `send` (headers not sent yet). */
function holdBody(res: ServerResponse, entry: RequestLogEntry, send: (body: Buffer) => void): void {
  const chunks: Buffer[] = []
  const keep = (chunk: unknown, encoding?: unknown): void => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return
    chunks.push(
      typeof chunk === 'string'
        ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
        : Buffer.from(chunk as Uint8Array)
    )
  }
  res.write = ((chunk: unknown, encoding?: unknown) => {
    keep(chunk, encoding)
    return true
  }) as typeof res.write
  res.end = ((chunk?: unknown, encoding?: unknown) => {
    keep(chunk, encoding)
    entry.status = res.statusCode
    send(Buffer.concat(chunks))
    return res
  }) as typeof res.end
}

/** Sends a held body the way the effect says. */
function spoil(effect: FaultEffect, res: ServerResponse, body: Buffer): void {
  const write = ServerResponse.prototype.write.bind(res) as (chunk: Buffer) => boolean
  const end = ServerResponse.prototype.end.bind(res) as () => void
  // Headers go at once, whatever the body does. (Routes set no Content-Length
  // on bodies: the answer is chunked, so a cut body is not announced.)
  res.flushHeaders()
  switch (effect.type) {
    case 'drip': {
      const everyMs = Math.max(10, Math.round(1000 / effect.bytesPerSecond))
      const size = Math.max(1, Math.round((effect.bytesPerSecond * everyMs) / 1000))
      let sent = 0
      const timer = setInterval(() => {
        if (sent >= body.length) {
          clearInterval(timer)
          end()
          return
        }
        write(body.subarray(sent, sent + size))
        sent += size
      }, everyMs)
      res.once('close', () => clearInterval(timer))
      return
    }
    case 'silence':
      return
    case 'deep-json':
      write(deepened(body, effect.depth, effect.field))
      end()
      return
    case 'half-open':
      write(body.subarray(0, effect.afterBytes ?? Math.floor(body.length / 2)))
      return
    case 'reset': {
      write(body.subarray(0, effect.afterBytes ?? Math.floor(body.length / 2)))
      // Let the part reach the client first, then a RST, as a broken connection looks.
      const timer = setTimeout(() => res.socket?.resetAndDestroy(), 50)
      res.once('close', () => clearTimeout(timer))
      return
    }
  }
}

/**
 * Jenkins' JSON answer with a member nested `depth` levels deep: with no
 * `field`, an action when the answer lists `actions`, else the object's
 * first member; with `field: 'actions'`, always one more action first (the
 * list added when the answer has none, as a proxy that ignores tree= sends
 * the whole build); with any other field, that top-level field's value
 * replaced. Built as one buffer (two bytes a level), not by recursion.
 */
function deepened(body: Buffer, depth: number, field?: string): Buffer {
  const text = body.toString('utf8')
  const deep = `${'['.repeat(depth)}${']'.repeat(depth)}`
  const action = `{"_class":"hudson.model.DeepAction","nested":${deep}}`
  if (field !== undefined) {
    // The test server's own answer is shallow: parse it, mark the place, put the deep text there.
    const marker = '@@deep-json@@'
    const answer = JSON.parse(text) as Record<string, unknown>
    if (field === 'actions') {
      const actions = Array.isArray(answer.actions) ? (answer.actions as unknown[]) : []
      answer.actions = [marker, ...actions]
    } else answer[field] = marker
    return Buffer.from(
      JSON.stringify(answer).replace(`"${marker}"`, field === 'actions' ? action : deep)
    )
  }
  const actions = text.indexOf('"actions":[')
  if (actions >= 0) {
    const at = actions + '"actions":['.length
    const comma = text[at] === ']' ? '' : ','
    return Buffer.from(`${text.slice(0, at)}${action}${comma}${text.slice(at)}`)
  }
  const open = text.indexOf('{')
  if (open < 0) return body
  const comma = /^\s*\}/.test(text.slice(open + 1)) ? '' : ','
  return Buffer.from(`${text.slice(0, open + 1)}"nested":${deep}${comma}${text.slice(open + 1)}`)
}
