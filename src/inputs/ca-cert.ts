import { X509Certificate } from 'node:crypto'
import { InputError } from '../util/input-error.js'

const EXPECTED =
  'expected the PEM text of one or more CA certificates (-----BEGIN CERTIFICATE----- … -----END CERTIFICATE-----), e.g. `ca-cert: ${{ secrets.JENKINS_CA }}`'

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END ([A-Z0-9 ]+)-----/g

/**
 * Parses the `ca-cert` input into PEM certificates, each one checked by
 * Node's X509 parser, so that a broken one is an input error before any
 * request. Text between blocks (a bundle's `# Subject:` comments) is
 * ignored; a private key is refused outright.
 */
export function parseCaCert(text: string): string[] {
  const value = text.trim()
  if (value === '') return []
  const certificates: string[] = []
  let index = 0
  for (const match of value.matchAll(BLOCK)) {
    index++
    const [block, label = '', , endLabel = ''] = match
    if (/PRIVATE KEY/.test(label) || /PRIVATE KEY/.test(endLabel)) {
      throw new InputError(
        `Input 'ca-cert' holds a private key (block ${index}): it takes CA certificates only, which are public. Remove the key, and treat it as leaked if it was a real one.`
      )
    }
    if (label !== 'CERTIFICATE' || endLabel !== 'CERTIFICATE') {
      throw new InputError(
        `Input 'ca-cert' block ${index} is a ${label === endLabel ? label : `${label}/${endLabel}`} block: ${EXPECTED}.`
      )
    }
    try {
      // Throws on bad base64 or DER; the message never holds the input.
      void new X509Certificate(block)
    } catch {
      throw new InputError(
        `Input 'ca-cert' certificate ${index} is not a valid certificate (damaged base64 or DER): ${EXPECTED}.`
      )
    }
    certificates.push(`${block}\n`)
  }
  const begins = value.match(/-----BEGIN /g)?.length ?? 0
  if (begins > index) {
    throw new InputError(
      `Input 'ca-cert' has a BEGIN line without its END line (block ${index + 1}; cut short when copied?): ${EXPECTED}.`
    )
  }
  if (certificates.length === 0) {
    const path = !/\s/.test(value) && /[/\\]|\.(pem|crt|cer)$/i.test(value)
    throw new InputError(
      `Input 'ca-cert' holds no PEM certificate${path ? ' (it looks like a file path: give the certificate text itself, or point NODE_EXTRA_CA_CERTS at the file)' : ''}: ${EXPECTED}.`
    )
  }
  return certificates
}
