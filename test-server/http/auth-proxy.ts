/**
 * An authenticating proxy in front of Jenkins (Cloudflare Access with a
 * service token, an IAP, oauth2-proxy): it lets a request through only with
 * the headers it was configured to require, and answers everything else
 * itself with its sign-in page. Jenkins never sees a refused request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { escapeHtml } from './pages.js'
import type { ServerOptions } from '../types.js'

/** The proxy's own sign-in page (outside Jenkins' context path, like /oauth2/sign_in). */
const SIGN_IN_PATH = '/.auth-proxy/sign_in'

export type AuthProxySpec = NonNullable<ServerOptions['authProxy']>

/** Whether the request carries every required header with its exact value. */
function passes(spec: AuthProxySpec, req: IncomingMessage): boolean {
  return Object.entries(spec.headers).every(([name, value]) => {
    const sent = req.headers[name.toLowerCase()]
    return (Array.isArray(sent) ? sent[0] : sent) === value
  })
}

/**
 * Answers a request the proxy handles itself: its sign-in page, or a refusal
 * (302 to the sign-in page, or the page itself with `status`). Returns false
 * when the request may go on to Jenkins.
 */
export function answerByProxy(
  spec: AuthProxySpec,
  req: IncomingMessage,
  res: ServerResponse,
  rawPath: string,
  tls: boolean
): boolean {
  if (rawPath === SIGN_IN_PATH) {
    req.resume()
    sendSignIn(res, 200, req.url ?? '')
    return true
  }
  if (passes(spec, req)) return false
  req.resume()
  const status = spec.status ?? 302
  if (status === 302) {
    const origin = `${tls ? 'https' : 'http'}://${req.headers.host ?? '127.0.0.1'}`
    res.writeHead(302, {
      Location: `${origin}${SIGN_IN_PATH}?rd=${encodeURIComponent(req.url ?? '/')}`,
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Length': '0'
    })
    res.end()
    return true
  }
  sendSignIn(res, status, req.url ?? '')
  return true
}

function sendSignIn(res: ServerResponse, status: number, url: string): void {
  res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache' })
  res.end(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Sign In</title></head>
<body><h1>Sign in to continue</h1>
<form method="GET" action="${SIGN_IN_PATH}"><input type="hidden" name="rd" value="${escapeHtml(url)}">
<button type="submit">Sign in with your identity provider</button></form></body></html>
`)
}
