import { readFileSync } from 'node:fs'
import tls from 'node:tls'

/** tls.getCACertificates exists since Node 22.15 / 23.5 (runners have 24); @types/node 20 does not know it. */
type CaSource = { getCACertificates?: (type: 'default') => string[] }

/**
 * A secure context trusting what Node trusts by default plus `extra` (the
 * `ca-cert` input), for one client's connections only: nothing process-wide
 * changes. A TLS client given `ca` trusts those certificates alone, so the
 * defaults are added back: tls.getCACertificates('default') where Node has
 * it (bundled roots, NODE_EXTRA_CA_CERTS, and the system store when Node is
 * told to use it), else tls.rootCertificates and the NODE_EXTRA_CA_CERTS file.
 */
export function trustWith(extra: readonly string[]): tls.SecureContext {
  return tls.createSecureContext({ ca: [...defaultCertificates(), ...extra] })
}

function defaultCertificates(): string[] {
  const fromNode = (tls as unknown as CaSource).getCACertificates?.('default')
  if (fromNode) return fromNode
  const certificates = [...tls.rootCertificates]
  const file = process.env.NODE_EXTRA_CA_CERTS
  if (file) {
    try {
      certificates.push(readFileSync(file, 'utf8'))
    } catch {
      // Node itself warned at start-up that it could not read the file.
    }
  }
  return certificates
}
