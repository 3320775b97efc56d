/**
 * What a TLS failure was, in words a workflow author can act on. Node's own
 * text is not shown as it comes: for a handshake failure it is OpenSSL's
 * error line (`write EPROTO 40FD…:error:0A00010B:SSL routines:…:wrong
 * version number:../deps/openssl/…:77:` and a line break), and since Node 23
 * a certificate failure ends with `try running Node.js with
 * --use-system-ca`, a flag a step's user cannot pass.
 */

/** OpenSSL's verify codes as Node names them, said for Jenkins' certificate. */
export const CERTIFICATE_PROBLEMS: Readonly<Record<string, string>> = {
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
export function tlsProblem(code: string | undefined, text: string): string {
  const known = code === undefined ? undefined : CERTIFICATE_PROBLEMS[code]
  if (known) return known
  const openssl = /error:[0-9A-Fa-f]+:[^:]*:[^:]*:([^:\r\n]+)/.exec(text)?.[1]?.trim()
  if (openssl) return `the TLS handshake failed (${openssl})`
  const line = (text.split(/[\r\n]/).find(part => part.trim() !== '') ?? '')
    .replace(NODE_HINT, '')
    .trim()
  return line === '' ? `the TLS handshake failed${code ? ` (${code})` : ''}` : line
}
