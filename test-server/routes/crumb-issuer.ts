/** `crumbIssuer/api/json` and `/api/xml` with its XPath forms (jenkins-api.md 1). */
import type { Exchange } from '../http/exchange.js'
import { apiHeaders, notFound, sendApiJson, sessionCookie } from './respond.js'

const CRUMB_TEXT_XPATHS = new Set([
  '/*/crumbRequestField/text()',
  '/*/crumb/text()',
  'concat(//crumbRequestField,":",//crumb)',
  "concat(//crumbRequestField,'=',//crumb)"
])

export function crumbIssuer(ex: Exchange, rest: string[]): void {
  // With CSRF protection off there is no crumb issuer: Stapler finds nothing (404).
  if (!ex.ctx.csrf) return notFound(ex)
  if (rest[0] !== 'api' || rest.length !== 2) return notFound(ex)
  // Issuing a crumb calls req.getSession(): the answer sets the session cookie.
  const cookie = sessionCookie(ex)
  const field = ex.ctx.crumbField
  const crumb = ex.ctx.sessions.crumb(ex.identity.name, ex.sessionId ?? '')
  ex.ctx.sessions.issued.push(crumb)
  if (rest[1] === 'json') {
    ex.res.setHeader('Set-Cookie', cookie['Set-Cookie'] ?? [])
    if (!cookie['Set-Cookie']) ex.res.removeHeader('Set-Cookie')
    return sendApiJson(ex, () => ({
      _class: 'hudson.security.csrf.DefaultCrumbIssuer',
      crumb,
      crumbRequestField: field
    }))
  }
  if (rest[1] !== 'xml') return notFound(ex)
  const xpath = ex.params.get('xpath')
  const send = (status: number, type: string, body: string): void => {
    ex.res.writeHead(status, { 'Content-Type': type, ...apiHeaders(ex), ...cookie })
    ex.res.end(body)
  }
  if (xpath === undefined) {
    return send(
      200,
      'application/xml;charset=UTF-8',
      `<defaultCrumbIssuer _class="hudson.security.csrf.DefaultCrumbIssuer"><crumb>${crumb}</crumb><crumbRequestField>${field}</crumbRequestField></defaultCrumbIssuer>`
    )
  }
  if (CRUMB_TEXT_XPATHS.has(xpath)) {
    let text: string
    if (xpath === '/*/crumbRequestField/text()') text = field
    else if (xpath === '/*/crumb/text()') text = crumb
    else if (xpath.includes('":"')) text = `${field}:${crumb}`
    // The '=' form only works when the field starts with '.' or contains '-'.
    else if (field.startsWith('.') || field.includes('-')) text = `${field}=${crumb}`
    else text = ''
    if (text !== '') return send(200, 'text/plain;charset=UTF-8', text)
  }
  if (xpath === '//crumb' || xpath === '/*/crumb') {
    return send(200, 'application/xml;charset=UTF-8', `<crumb>${crumb}</crumb>`)
  }
  if (xpath === '//crumbRequestField' || xpath === '/*/crumbRequestField') {
    return send(
      200,
      'application/xml;charset=UTF-8',
      `<crumbRequestField>${field}</crumbRequestField>`
    )
  }
  if (/text\(\)|^(concat|string|number|count|boolean|name|local-name)\(/.test(xpath)) {
    return ex.jetty(
      403,
      'primitive XPath result sets forbidden; implement jenkins.security.SecureRequester'
    )
  }
  send(404, 'text/plain;charset=UTF-8', `XPath ${xpath} didn’t match`)
}
