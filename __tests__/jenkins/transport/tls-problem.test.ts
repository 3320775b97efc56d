import { describe, expect, it } from 'vitest'
import { networkFailure } from '../../../src/jenkins/transport/network-errors.js'

/** Node 24.21's own texts, as it reports them (captured against a self-signed server and a plain-http port). */
const NODE24_SELF_SIGNED =
  'self-signed certificate; if the root CA is installed locally, try running Node.js with --use-system-ca'
const NODE24_WRONG_VERSION =
  'write EPROTO 40FD0130AA7F0000:error:0A00010B:SSL routines:tls_validate_record_header:wrong version number:../deps/openssl/openssl/ssl/record/methods/tlsany_meth.c:77:\n'

function failure(code: string, message: string, caCert = false): string {
  const error = Object.assign(new Error(message), { code })
  return networkFailure(
    error,
    new URL('https://ci.example.com/jenkins'),
    'https://ci.example.com/jenkins',
    {
      caCert
    }
  ).message
}

describe('what a TLS failure was (tlsProblem, through networkFailure)', () => {
  const problem = (code: string, message: string): string =>
    failure(code, message)
      .replace(/^TLS error talking to Jenkins at \S+: /, '')
      .split('. ')[0] ?? ''

  it('says a known certificate code in its own words, not Node’s', () => {
    expect(problem('DEPTH_ZERO_SELF_SIGNED_CERT', NODE24_SELF_SIGNED)).toBe(
      "Jenkins' certificate is self-signed and not trusted"
    )
    expect(problem('CERT_HAS_EXPIRED', 'certificate has expired')).toBe(
      "Jenkins' certificate has expired"
    )
  })

  it('keeps only the reason of an OpenSSL error line', () => {
    expect(problem('EPROTO', NODE24_WRONG_VERSION)).toBe(
      'the TLS handshake failed (wrong version number)'
    )
  })

  it('drops Node’s hint and everything after the first line of an unknown failure', () => {
    expect(
      problem(
        'ERR_SOMETHING_NEW',
        'some new TLS failure; if the root CA is installed locally, try running Node.js with --use-system-ca\nmore'
      )
    ).toBe('some new TLS failure')
    expect(problem('EPROTO', '\n')).toBe('the TLS handshake failed (EPROTO)')
  })
})

describe('TLS failures as the client reports them', () => {
  it('are one line, with no OpenSSL text and no Node command-line hint', () => {
    const messages = [
      failure('DEPTH_ZERO_SELF_SIGNED_CERT', NODE24_SELF_SIGNED),
      failure(
        'SELF_SIGNED_CERT_IN_CHAIN',
        `self-signed certificate in certificate chain; if the root CA is installed locally, try running Node.js with --use-system-ca`,
        true
      ),
      failure('EPROTO', NODE24_WRONG_VERSION)
    ]
    for (const message of messages) {
      expect(message).not.toMatch(/[\r\n]|use-system-ca|Node\.js|SSL routines|deps\/openssl/)
    }
    expect(messages[0]).toBe(
      "TLS error talking to Jenkins at https://ci.example.com/jenkins: Jenkins' certificate is self-signed and not trusted. If Jenkins uses a private CA, give its certificate in 'ca-cert' (or point NODE_EXTRA_CA_CERTS at its file)."
    )
    expect(messages[1]).toBe(
      "TLS error talking to Jenkins at https://ci.example.com/jenkins: Jenkins' certificate chain ends in a self-signed CA certificate that is not trusted. The certificates in 'ca-cert' do not verify it: give the CA that issued Jenkins' certificate (or the intermediate Jenkins does not send)."
    )
    expect(messages[2]).toBe(
      'TLS error talking to Jenkins at https://ci.example.com/jenkins: the TLS handshake failed (wrong version number). Does ci.example.com speak TLS (https) on that port?'
    )
  })
})
