/**
 * A stand-in for the GitHub REST API over real HTTP, with state (model.ts),
 * a route table (routes.ts) and fault modes aimed at routes (faults.ts):
 * what the end-to-end tests and the bench point GITHUB_API_URL at. Every
 * answer carries GitHub's rate-limit headers, so that a client tells a
 * refusal from a rate limit by them as it must on GitHub.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { readBody } from '../http/http-util.js'
import {
  drip,
  GithubFaults,
  huge,
  rateLimitAnswer,
  type GithubFault,
  type GithubFaultHandle,
  type GithubRequest
} from './faults.js'
import { GithubModel, type GithubComment, type GithubIdentity } from './model.js'
import { NOT_ACCESSIBLE, ROUTES, type Answer, type GithubRoute } from './routes.js'

export interface GithubOptions {
  /** Tokens and who each acts as; an unlisted `ghs_…` token is GITHUB_TOKEN (github-actions[bot]), any other gets 401. */
  tokens?: Record<string, GithubIdentity>
  /** Whether a token may edit a comment someone else wrote (default true: GitHub lets write access do it). */
  editOthers?: boolean
}

export interface GithubStandIn {
  url: string
  /** Every request, in the order they came. */
  requests: GithubRequest[]
  model: GithubModel
  /** The model's comments by pull request number (oldest first). */
  comments: Map<number, GithubComment[]>
  /** The model's pull request heads by number. */
  heads: Map<number, string>
  /** Aims a fault at routes (see faults.ts). */
  aim(fault: GithubFault): GithubFaultHandle
  /** Adds a route to the table (a test file's own call), before the built-in ones. */
  route(route: GithubRoute): void
  close(): Promise<void>
}

/** GitHub's primary limit for an installation (docs.github.com, Rate limits for the REST API). */
const LIMIT = 5000

/** Starts the stand-in on a free loopback port. */
export async function startGithub(options: GithubOptions = {}): Promise<GithubStandIn> {
  const model = new GithubModel(options.tokens)
  const faults = new GithubFaults()
  const routes: GithubRoute[] = [...ROUTES]
  const requests: GithubRequest[] = []
  let used = 0
  let url = ''
  const server = http.createServer((req, res) => {
    void serve(req, res).catch(() => res.destroy())
  })

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = (await readBody(req)).toString('utf8')
    const target = new URL(req.url ?? '/', url)
    const method = req.method ?? 'GET'
    const identity = model.identity(tokenOf(req.headers.authorization))
    let route: GithubRoute | undefined
    let params: Record<string, string> = {}
    for (const candidate of routes) {
      const match = candidate.method === method ? candidate.path.exec(target.pathname) : null
      if (match) {
        route = candidate
        params = { ...match.groups }
        break
      }
    }
    const request: GithubRequest = {
      method,
      url: req.url ?? '/',
      route: route?.name,
      params,
      headers: req.headers,
      body,
      login: identity?.login
    }
    requests.push(request)
    const effect = faults.take(request)
    if (effect?.type === 'stall') return
    const nowSec = Math.floor(Date.now() / 1000)
    res.setHeader('content-type', 'application/json; charset=utf-8')
    res.setHeader('x-github-media-type', 'github.v3; format=json')
    res.setHeader('x-github-request-id', `0000:${requests.length}`)
    res.setHeader('x-ratelimit-limit', String(LIMIT))
    res.setHeader('x-ratelimit-remaining', String(Math.max(0, LIMIT - ++used)))
    res.setHeader('x-ratelimit-used', String(used))
    res.setHeader('x-ratelimit-reset', String(nowSec + 3600))
    res.setHeader('x-ratelimit-resource', 'core')
    if (effect?.type === 'huge') return huge(res, effect.bytes, effect.declared ?? false)
    let answer: Answer
    if (effect?.type === 'rate-limit') answer = rateLimitAnswer(effect, nowSec)
    else if (effect?.type === 'refuse') {
      answer = { status: effect.status, body: { message: effect.message ?? NOT_ACCESSIBLE } }
    } else if (!route) {
      answer = {
        status: 404,
        body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' }
      }
    } else {
      let parsed: unknown
      try {
        parsed = body ? JSON.parse(body) : undefined
      } catch {
        answer = { status: 400, body: { message: 'Problems parsing JSON' } }
        return send(res, answer)
      }
      answer = route.answer({
        params,
        query: target.searchParams,
        body: parsed,
        identity,
        model,
        url,
        editOthers: options.editOthers ?? true
      })
    }
    if (effect?.type === 'drip') {
      for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value)
      res.statusCode = answer.status
      return drip(res, Buffer.from(JSON.stringify(answer.body ?? '')), effect.bytesPerSecond ?? 1)
    }
    send(res, answer)
  }

  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url,
    requests,
    model,
    comments: model.comments,
    heads: model.heads,
    aim: fault => faults.aim(fault),
    route: extra => void routes.unshift(extra),
    close: () =>
      new Promise<void>(resolve => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

function send(res: ServerResponse, answer: Answer): void {
  for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value)
  if (answer.body === undefined) {
    res.removeHeader('content-type')
    res.writeHead(answer.status)
    res.end()
    return
  }
  const text = JSON.stringify(answer.body)
  res.writeHead(answer.status, { 'content-length': Buffer.byteLength(text) })
  res.end(text)
}

/** The token of `Authorization: token X` or `Bearer X`. */
function tokenOf(header: string | undefined): string | undefined {
  const match = /^(?:token|bearer)\s+(\S+)$/i.exec(header?.trim() ?? '')
  return match?.[1]
}
