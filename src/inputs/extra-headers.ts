import { InputError } from '../util/input-error.js'
import { headerValueSecrets } from '../jenkins/transport/http.js'

const FORMS =
  'expected `Name: value` lines, e.g. `CF-Access-Client-Id: ${{ secrets.CF_ID }}` (one header per line)'

/** RFC 9110 5.1: a field name is a token. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/**
 * Headers the action must own: framing and connection headers would corrupt
 * the exchange, Host would send the request to another virtual host than
 * `url` names, Cookie would clobber the Jenkins session the crumb is bound
 * to, and Proxy-* belong to the forward proxy (HTTPS_PROXY), not to Jenkins.
 */
const REFUSED = new Map<string, string>([
  ['host', "it would address another server than 'url'"],
  ['cookie', 'the action keeps the Jenkins session cookie itself (the crumb is bound to it)'],
  ['content-type', 'the action sets it for the forms it posts'],
  ['proxy-authorization', 'it belongs to a forward proxy: put its credentials in HTTPS_PROXY']
])
for (const name of ['connection', 'keep-alive', 'upgrade', 'te', 'proxy-connection']) {
  REFUSED.set(name, 'the HTTP client manages connections')
}
for (const name of ['content-length', 'transfer-encoding', 'trailer', 'expect']) {
  REFUSED.set(name, 'the action frames its own requests')
}

/**
 * The value of every `Name: value` line, before any validation, so that
 * they can be masked before a message could show one. A `Scheme credentials`
 * value (Bearer, Basic) yields the credentials alone too.
 */
export function headerSecrets(text: string): string[] {
  return text.split(/\r?\n/).flatMap(line => {
    const value = line.includes(':') ? line.slice(line.indexOf(':') + 1).trim() : ''
    return value === '' ? [] : headerValueSecrets(value)
  })
}

/**
 * Parses the `headers` input: `Name: value` lines (blank lines skipped),
 * split on the first `:`, both sides trimmed. Names must be HTTP tokens and
 * appear once; values printable ASCII (no CR, LF or other control
 * characters, which could smuggle a second header). Messages name the line
 * and the header, never a value.
 */
export function parseExtraHeaders(text: string, options: { credentials: boolean }) {
  /** For the Jenkins origin: a validated name and value each. */
  const headers: Array<readonly [name: string, value: string]> = []
  const seen = new Map<string, number>()
  const lines = text.split(/\r?\n/)
  lines.forEach((line, index) => {
    const n = index + 1
    if (line.trim() === '') return
    const colon = line.indexOf(':')
    if (colon < 0) throw new InputError(`Input 'headers' line ${n} has no ':': ${FORMS}.`)
    const name = line.slice(0, colon).trim()
    const value = line.slice(colon + 1).trim()
    if (!TOKEN.test(name)) {
      throw new InputError(
        `Input 'headers' line ${n} has an invalid header name (letters, digits and !#$%&'*+.^_\`|~- only): ${FORMS}.`
      )
    }
    const key = name.toLowerCase()
    const refused = REFUSED.get(key)
    if (refused) {
      throw new InputError(`Input 'headers' line ${n} sets ${name}, which is refused: ${refused}.`)
    }
    if (key === 'authorization' && options.credentials) {
      throw new InputError(
        `Input 'headers' line ${n} sets Authorization, but 'user' and 'token' already send one: leave 'user' and 'token' empty to send your own, or drop the header.`
      )
    }
    if (value === '')
      throw new InputError(`Input 'headers' line ${n} (${name}) has an empty value: ${FORMS}.`)
    if (!/^[\x20-\x7e\t]+$/.test(value)) {
      throw new InputError(
        `Input 'headers' line ${n} (${name}) has a value with a line break, a control character or a non-ASCII character: header values must be printable ASCII.`
      )
    }
    const earlier = seen.get(key)
    if (earlier !== undefined) {
      throw new InputError(
        `Input 'headers' sets ${name} twice (lines ${earlier} and ${n}): give each header once.`
      )
    }
    seen.set(key, n)
    headers.push([name, value])
  })
  return headers
}
