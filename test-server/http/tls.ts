/**
 * A test certificate authority and a server certificate it signed, made with
 * the openssl command line into a folder at run time (no key is ever
 * committed). The CA is what a user would hand the action as `ca-cert`;
 * Node's default trust store knows nothing of it.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export interface TestCertificates {
  /** The CA certificate (PEM). */
  ca: string
  /** Its file, `<dir>/ca.pem` (for ca-cert or NODE_EXTRA_CA_CERTS). */
  caPath: string
  /** The server's key and certificate (PEM), for ServerOptions.tls. */
  key: string
  cert: string
}

/**
 * Makes `ca.pem` (a CA valid for 2 days) and `cert.pem` / `key.pem` (valid
 * for 1 day, for `hosts`: IP addresses and DNS names) in `dir`. EC keys keep
 * it fast on a busy machine.
 */
export function testCertificates(
  dir: string,
  hosts: readonly string[] = ['127.0.0.1', 'localhost'],
  commonName = 'Jenkins test CA'
): TestCertificates {
  mkdirSync(dir, { recursive: true })
  const path = (name: string): string => join(dir, name)
  const openssl = (...args: string[]): void => {
    execFileSync('openssl', args, { stdio: 'ignore' })
  }
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes']
  openssl(
    'req',
    '-x509',
    ...ec,
    '-days',
    '2',
    '-subj',
    `/CN=${commonName}`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
    '-keyout',
    path('ca.key'),
    '-out',
    path('ca.pem')
  )
  const san = hosts.map(h => (/^[\d.]+$|:/.test(h) ? `IP:${h}` : `DNS:${h}`)).join(',')
  writeFileSync(
    path('server.ext'),
    `basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=${san}\n`
  )
  openssl(
    'req',
    ...ec,
    '-subj',
    `/CN=${hosts[0] ?? 'localhost'}`,
    '-keyout',
    path('key.pem'),
    '-out',
    path('server.csr')
  )
  openssl(
    'x509',
    '-req',
    '-in',
    path('server.csr'),
    '-CA',
    path('ca.pem'),
    '-CAkey',
    path('ca.key'),
    '-CAcreateserial',
    '-days',
    '1',
    '-extfile',
    path('server.ext'),
    '-out',
    path('cert.pem')
  )
  return {
    ca: readFileSync(path('ca.pem'), 'utf8'),
    caPath: path('ca.pem'),
    key: readFileSync(path('key.pem'), 'utf8'),
    cert: readFileSync(path('cert.pem'), 'utf8')
  }
}
