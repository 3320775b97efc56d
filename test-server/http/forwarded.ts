/**
 * What Jetty's ForwardedRequestCustomizer makes of a request's forwarding
 * headers (jetty-core/jetty-server/.../ForwardedRequestCustomizer.java,
 * installed with its defaults by Winstone's ServerConnectorBuilder): the
 * scheme, host and port absolute redirects are built from, and the remote
 * address Jenkins sees (jenkins-api.md 0, 3.1).
 *
 * - Headers are read in the order they arrived; each value sets the scheme,
 *   host or port only over a source of lower priority (Source: X-Proxied-Https
 *   < X-Forwarded-Proto < X-Forwarded-Server < X-Forwarded-Port <
 *   X-Forwarded-For < X-Forwarded-Host < Forwarded). Of a list, the leftmost
 *   value counts.
 * - `Forwarded: host=` sets the port too, to none when it names none, so it
 *   wins over X-Forwarded-Port; `X-Forwarded-Host` without a port leaves an
 *   X-Forwarded-Port alone.
 * - `for=` / X-Forwarded-For become the remote address.
 * - The Location is `scheme://host[:port]`, the port left out when it is the
 *   scheme's default (URIUtil.appendSchemeHostPort).
 */
import type { IncomingMessage } from 'node:http'

/** Lowest first: a later source only overrides an earlier one of lower priority. */
const PRIORITY = {
  unset: 0,
  proxiedHttps: 1,
  xForwardedProto: 2,
  xForwardedServer: 3,
  xForwardedPort: 4,
  xForwardedFor: 5,
  xForwardedHost: 6,
  forwarded: 7
} as const
type Source = keyof typeof PRIORITY

const UNSET = -1
const IMPLIED = 0

/** A malformed forwarding header: Jetty answers 400. */
export class BadForwardedHeader extends Error {}

class HostPort {
  host: string | undefined
  hostSource: Source = 'unset'
  port = UNSET
  portSource: Source = 'unset'

  setHost(host: string, source: Source): void {
    if (PRIORITY[source] > PRIORITY[this.hostSource]) {
      this.host = host
      this.hostSource = source
    }
  }

  setPort(port: number, source: Source): void {
    if (PRIORITY[source] > PRIORITY[this.portSource]) {
      this.port = port
      this.portSource = source
    }
  }

  /** MutableHostPort.setHostPort(HostPort, Source): no port given means "implied", with no priority. */
  setFromHeader(value: string, source: Source): void {
    const { host, port } = parseHostPort(value)
    this.setHost(host, source)
    if (port > 0) this.setPort(port, source)
    else if (this.port === UNSET) this.port = IMPLIED
  }
}

export interface ForwardedView {
  scheme: string
  host: string
  /** 0 when none is to be written. */
  port: number
  /** What ServletRequest.getRemoteAddr answers. */
  remoteAddr: string
}

/** The request as Jenkins sees it behind its ForwardedRequestCustomizer. */
export function forwardedView(req: IncomingMessage, tls: boolean): ForwardedView {
  let proto: { value: string; source: Source } | undefined
  const setProto = (value: string, source: Source): void => {
    if (!proto || PRIORITY[source] > PRIORITY[proto.source]) proto = { value, source }
  }
  let authority: HostPort | undefined
  const auth = (): HostPort => (authority ??= new HostPort())
  let forwardedFor: HostPort | undefined
  const forOf = (): HostPort => (forwardedFor ??= new HostPort())

  const raw = req.rawHeaders
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] ?? '').toLowerCase()
    const value = raw[i + 1] ?? ''
    switch (name) {
      case 'forwarded':
        for (const element of splitList(value)) {
          for (const [param, paramValue] of forwardedParams(element)) {
            if (param === 'proto') setProto(paramValue, 'forwarded')
            if (paramValue.startsWith('_') || paramValue === 'unknown') continue
            if (param === 'host') {
              const hp = parseHostPort(paramValue)
              auth().setHost(hp.host, 'forwarded')
              auth().setPort(hp.port, 'forwarded')
            } else if (param === 'for') {
              const hp = parseHostPort(paramValue)
              forOf().setHost(hp.host, 'forwarded')
              forOf().setPort(hp.port, 'forwarded')
            }
          }
        }
        break
      case 'x-forwarded-host':
        auth().setFromHeader(leftMost(value), 'xForwardedHost')
        break
      case 'x-forwarded-server':
        auth().setFromHeader(leftMost(value), 'xForwardedServer')
        break
      case 'x-forwarded-for':
        forOf().setFromHeader(leftMost(value), 'xForwardedFor')
        break
      case 'x-forwarded-port':
        auth().setPort(parsePort(leftMost(value)), 'xForwardedPort')
        break
      case 'x-forwarded-proto':
        setProto(leftMost(value), 'xForwardedProto')
        break
      case 'x-proxied-https': {
        const on = /^(on|true)$/i.test(value)
        if (!on && !/^(off|false)$/i.test(value)) {
          throw new BadForwardedHeader(`Invalid value for ${raw[i]}`)
        }
        setProto(on ? 'https' : 'http', 'proxiedHttps')
        auth().setPort(on ? 443 : IMPLIED, 'proxiedHttps')
        break
      }
    }
  }

  const scheme = proto?.value ?? (tls ? 'https' : 'http')
  const request = parseHostPort(req.headers.host ?? '127.0.0.1')
  let host = request.host
  let port = request.port
  if (authority) {
    host = authority.host ?? host
    let forwardedPort = authority.port === UNSET ? port : authority.port
    // "Don't change port if port == IMPLIED" (the secure scheme's default).
    if (request.port === 0 && forwardedPort > 0 && forwardedPort === 443) forwardedPort = 0
    port = forwardedPort
  }
  const defaultPort = scheme === 'https' ? 443 : scheme === 'http' ? 80 : -1
  const remote = forwardedFor?.host ?? req.socket.remoteAddress ?? '127.0.0.1'
  return {
    scheme,
    host,
    port: port > 0 && port !== defaultPort ? port : 0,
    remoteAddr: remote.replace(/^\[(.*)\]$/, '$1')
  }
}

/** `scheme://host[:port]` as Jenkins writes it into an absolute Location. */
export function origin(view: ForwardedView): string {
  const host = view.host.includes(':') && !view.host.startsWith('[') ? `[${view.host}]` : view.host
  return `${view.scheme}://${host}${view.port > 0 ? `:${view.port}` : ''}`
}

function leftMost(value: string): string {
  return (value.split(',')[0] ?? '').trim()
}

/** HostPort: `host`, `host:port`, `[v6]` or `[v6]:port`; a missing port is 0. */
function parseHostPort(value: string): { host: string; port: number } {
  const text = value.trim()
  const v6 = /^(\[[^\]]*\])(?::(.*))?$/.exec(text)
  if (v6) return { host: v6[1] ?? '', port: v6[2] === undefined ? 0 : parsePort(v6[2]) }
  const colon = text.lastIndexOf(':')
  // A bare IPv6 address has several colons and no port.
  if (colon < 0 || text.indexOf(':') !== colon) return { host: text, port: 0 }
  return { host: text.slice(0, colon), port: parsePort(text.slice(colon + 1)) }
}

/** HostPort.parsePort: 0..65535, else a bad message. */
function parsePort(value: string): number {
  const text = value.trim()
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535) {
    throw new BadForwardedHeader(`Bad port: ${text}`)
  }
  return Number(text)
}

/** A list header split on commas outside quotes (QuotedCSV). */
function splitList(value: string): string[] {
  const parts: string[] = []
  let current = ''
  let quoted = false
  for (const ch of value) {
    if (ch === '"') quoted = !quoted
    if (ch === ',' && !quoted) {
      parts.push(current)
      current = ''
    } else current += ch
  }
  parts.push(current)
  return parts.map(p => p.trim()).filter(p => p !== '')
}

/** `for=1.2.3.4;proto=https;host="a:8443"` → pairs, names lower-cased, quotes removed. */
function forwardedParams(element: string): Array<[string, string]> {
  const pairs: Array<[string, string]> = []
  for (const part of element.split(';')) {
    const eq = part.indexOf('=')
    if (eq <= 0) continue
    const name = part.slice(0, eq).trim().toLowerCase()
    const value = part
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
    pairs.push([name, value])
  }
  return pairs
}
