/**
 * Requests that got no HTTP answer: what Node reported (a refused or reset
 * connection, a name that does not resolve, a TLS failure), mapped to a
 * message a user can act on and to whether the request may be sent again.
 */
import { JenkinsError } from './errors.js'
import { errorCode, errorText } from '../../util/error-text.js'

/** A request that got no HTTP answer. */
export class NetworkFailure extends Error {
  override readonly name = 'NetworkFailure'
  /** Worth another try (for a request that may safely repeat). */
  declare readonly transient: boolean
  /** Provably never reached Jenkins, so even a trigger may be sent again. */
  declare readonly notSent: boolean
  /** Failed while connecting (refused, unreachable, name lookup): no server was reached at all. */
  declare readonly connect: boolean

  constructor(
    readonly error: JenkinsError,
    /** Short reason for logs, e.g. 'ECONNRESET'. */
    readonly reason: string,
    flags: { transient: boolean; notSent?: boolean; connect?: boolean }
  ) {
    super(error.message)
    Object.assign(this, { notSent: false, connect: false, ...flags })
  }
}

/** What to do about a TLS failure: the fix depends on what failed. */
function tlsHint(code: string | undefined, url: URL, trust: { caCert: boolean }): string {
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return `Jenkins' certificate is not for ${url.hostname}: use in 'url' a host name the certificate names.`
  }
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') {
    return "Jenkins' certificate is outside its validity period: it needs renewing (or the runner's clock is off)."
  }
  // Every other certificate problem is one a trusted CA would fix.
  if (
    code !== undefined &&
    (!Object.hasOwn(CERTIFICATE_PROBLEMS, code) || code === 'CERT_SIGNATURE_FAILURE')
  ) {
    return `Does ${url.host} speak TLS (https) on that port?`
  }
  return trust.caCert
    ? "The certificates in 'ca-cert' do not verify it: give the CA that issued Jenkins' certificate (or the intermediate Jenkins does not send)."
    : "If Jenkins uses a private CA, give its certificate in 'ca-cert' (or point NODE_EXTRA_CA_CERTS at its file)."
}

/**
 * Maps a Node/http-client error to a NetworkFailure a user can act on. It
 * names the configured Jenkins URL (`server`), and the host and port where
 * that is what failed.
 */
export function networkFailure(
  error: unknown,
  url: URL,
  server: string,
  trust: { caCert: boolean }
): NetworkFailure {
  const code = errorCode(error)
  const text = errorText(error)
  const where = `${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`
  const known: Record<string, string> = {
    ECONNREFUSED: `Could not connect to Jenkins at ${server}: ${where} refused the connection`,
    ENOTFOUND: `Could not resolve ${url.hostname}, the host of Jenkins at ${server}: check the 'url' input`,
    EAI_AGAIN: `Could not resolve ${url.hostname}, the host of Jenkins at ${server} (temporary DNS failure)`,
    ECONNRESET: `The connection to Jenkins at ${server} was reset`,
    EPIPE: `The connection to Jenkins at ${server} was closed while sending (EPIPE)`,
    ETIMEDOUT: `The connection to Jenkins at ${server} timed out (${where})`,
    EHOSTUNREACH: `Could not connect to Jenkins at ${server}: ${where} is unreachable (EHOSTUNREACH)`,
    ENETUNREACH: `Could not connect to Jenkins at ${server}: ${where} is unreachable (ENETUNREACH)`
  }
  let message = code !== undefined && Object.hasOwn(known, code) ? known[code] : undefined
  // Every one of those is worth another try but a name that does not exist.
  let transient = message !== undefined && code !== 'ENOTFOUND'
  if (message === undefined && text.includes('socket hang up')) {
    message = `The connection to Jenkins at ${server} was closed without an answer (socket hang up)`
    transient = true
  } else if (
    message === undefined &&
    // The certificate failures, and a server that does not speak TLS there.
    (code === 'EPROTO' ||
      code === 'ERR_SSL_WRONG_VERSION_NUMBER' ||
      (code !== undefined && Object.hasOwn(CERTIFICATE_PROBLEMS, code)) ||
      /certificate|ssl|tls/i.test(text))
  ) {
    message = `TLS error talking to Jenkins at ${server}: ${tlsProblem(code, text)}. ${tlsHint(code, url, trust)}`
  }
  message ??= `Request to Jenkins at ${server} failed: ${code ? `${code} ` : ''}${text}`
  const kind = code === 'ETIMEDOUT' ? 'timeout' : 'network'
  return new NetworkFailure(new JenkinsError(kind, message), code ?? text, {
    transient,
    // Refused at connect: the request certainly never left.
    notSent: code === 'ECONNREFUSED',
    connect: /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH)$/.test(code ?? '')
  })
}

/*
 * What a TLS failure was, in words a workflow author can act on. Node's own
 * text is not shown as it comes: for a handshake failure it is OpenSSL's
 * error line (`write EPROTO 40FD…:error:0A00010B:SSL routines:…:wrong
 * version number:../deps/openssl/…:77:` and a line break), and since Node 23
 * a certificate failure ends with `try running Node.js with
 * --use-system-ca`, a flag a step's user cannot pass.
 */

/** OpenSSL's verify codes as Node names them, said for Jenkins' certificate. */
const CERTIFICATE_PROBLEMS: Readonly<Record<string, string>> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: "Jenkins' certificate is self-signed and not trusted",
  SELF_SIGNED_CERT_IN_CHAIN:
    "Jenkins' certificate chain ends in a self-signed CA certificate that is not trusted",
  UNABLE_TO_GET_ISSUER_CERT: "the CA that issued Jenkins' certificate is not trusted",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "the CA that issued Jenkins' certificate is not trusted",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    "Jenkins' certificate could not be verified: its issuer is not trusted, or Jenkins does not send the intermediate certificate",
  CERT_UNTRUSTED: "Jenkins' certificate is not trusted",
  CERT_HAS_EXPIRED: "Jenkins' certificate has expired",
  CERT_NOT_YET_VALID: "Jenkins' certificate is not valid yet",
  CERT_SIGNATURE_FAILURE: "the signature of Jenkins' certificate does not verify",
  ERR_TLS_CERT_ALTNAME_INVALID: "Jenkins' certificate names other hosts"
}

/** Node's hint for its own command line, after the reason: "; if the root CA is installed locally, try running Node.js with --use-system-ca". */
const NODE_HINT = /;\s*if the root CA is installed locally.*$/is

/**
 * One line saying what failed: ours for a known certificate code, else the
 * reason OpenSSL gave (its `error:…:reason:` field), else the first line of
 * Node's text without Node's hint.
 */
function tlsProblem(code: string | undefined, text: string): string {
  const known = code === undefined ? undefined : CERTIFICATE_PROBLEMS[code]
  if (known) return known
  const openssl = /error:[0-9A-Fa-f]+:[^:]*:[^:]*:([^:\r\n]+)/.exec(text)?.[1]?.trim()
  if (openssl) return `the TLS handshake failed (${openssl})`
  const line = (text.split(/[\r\n]/).find(part => part.trim() !== '') ?? '')
    .replace(NODE_HINT, '')
    .trim()
  return line === '' ? `the TLS handshake failed${code ? ` (${code})` : ''}` : line
}
