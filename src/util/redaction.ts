/**
 * The one redaction: a list of secrets, and text with every occurrence of
 * each, in every form a text may carry it, replaced by `***` (overlapping
 * and touching ones by one). The step's list (step/step-io.ts) takes every
 * text the step writes, the Jenkins client's its own messages
 * (jenkins/transport/requester.ts), and jenkins-build's stands for the
 * runner's masker (cli/main.ts). Why each form and each rule:
 * docs/secrets.md.
 */
import { escapeHtml } from './html.js'
import type { Logger } from './logger.js'

/**
 * How a list redacts. `text`: what the step and the client write: values
 * of 4 characters or more (shorter ones would blank ordinary words), also
 * as the summary escapes them, each run of 8 letters and digits or more of
 * them (what a test URL, a chart label or a code span keeps of a secret
 * whose punctuation it replaced), user:password in URLs, and a part of a
 * secret that a cut left next to its ellipsis. `runner`: exactly what the runner's
 * SecretMasker masks, every value in its forms (jenkins-build shows the log
 * as the runner would).
 */
export type RedactionMode = 'text' | 'runner'

/** Fewer characters than this are not a secret in `text` mode, whole or as the part left at a cut. */
const MIN_CHARS = 4
/** A secret's runs of 8 letters and digits or more: secret on their own in `text` mode. */
const RUNS = /[\p{L}\p{N}]{8,}/gu
/** What a cut leaves (util/shorten.ts, outcome/pr-comment-body.ts, the console's tail). */
const ELLIPSIS = '…'

/** A list of secrets, and the redaction of text by it. */
export class Redaction {
  /** Every form of every secret, once. */
  private readonly forms = new Set<string>()

  constructor(private readonly mode: RedactionMode = 'text') {}

  /** Adds a secret: the value and each of its trimmed lines, in every form (AddMaskCommandExtension). */
  add(value: string): void {
    if (value.trim() === '') return
    this.addForms(value)
    for (const line of value.split(/[\r\n]/)) {
      const trimmed = line.trim()
      if (trimmed !== '' && trimmed !== value) this.addForms(trimmed)
    }
  }

  /** `text` with every secret replaced by `***`. */
  redact(text: string): string {
    let result = text
    // Only where a URL could carry user:password: replace() copies the whole text.
    if (this.mode === 'text' && result.includes('@')) {
      result = result.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, '$1***@')
    }
    if (this.forms.size === 0) return result
    const ranges: Array<[number, number]> = []
    for (const form of this.forms) {
      for (let at = result.indexOf(form); at >= 0; at = result.indexOf(form, at + 1)) {
        ranges.push([at, at + form.length])
      }
    }
    if (this.mode === 'text') ranges.push(...cutParts(result, this.forms))
    if (ranges.length === 0) return result
    // Each character a secret covers is marked; each run of marks becomes one `***`.
    const secret = new Uint8Array(result.length)
    for (const [start, end] of ranges) secret.fill(1, start, end)
    let out = ''
    for (let at = 0, end = 0; at < result.length; at = end) {
      end = secret.indexOf(secret[at] ? 0 : 1, at)
      if (end < 0) end = result.length
      out += secret[at] ? '***' : result.slice(at, end)
    }
    return out
  }

  private addForms(value: string): void {
    if (this.mode === 'text' && value.length < MIN_CHARS) return
    const forms =
      this.mode === 'runner'
        ? runnerForms(value)
        : [
            ...runnerForms(value),
            encodeURIComponent(value),
            escapeHtml(value),
            ...(value.match(RUNS) ?? [])
          ]
    const min = this.mode === 'text' ? MIN_CHARS : 1
    for (const form of forms) {
      if (form.length >= min) this.forms.add(form)
    }
  }
}

/** `logger` with every line redacted first. */
export function redactingLogger(logger: Logger, redact: (text: string) => string): Logger {
  return {
    debug: message => logger.debug(redact(message)),
    info: message => logger.info(redact(message)),
    warning: message => logger.warning(redact(message))
  }
}

/**
 * The forms the runner masks a value in (actions/runner HostContext.cs
 * registers ValueEncoders.cs): base64 (also from the 2nd and 3rd byte, for
 * a secret inside a longer base64 text such as `user:token`), `"` escaped
 * for a command line, `'` doubled for an expression, JSON string escape,
 * Uri.EscapeDataString, XML escape, and a value stripped of its double
 * quotes. The two PowerShell encoders are left out: they find pieces of a
 * secret that PowerShell printed between colour codes.
 */
function runnerForms(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8')
  const shifted = (shift: number): string =>
    (bytes.length > shift ? bytes.subarray(shift) : bytes).toString('base64')
  const json = JSON.stringify(value).slice(1, -1)
  const quoted = value.length > 8 && value.startsWith('"') && value.endsWith('"')
  return [
    value,
    shifted(0),
    shifted(1),
    shifted(2),
    value.replace(/"/g, '\\"'),
    value.replace(/'/g, "''"),
    json,
    // Uri.EscapeDataString leaves only RFC 3986's unreserved characters.
    encodeURIComponent(value).replace(
      /[!'()*]/g,
      c => `%${c.charCodeAt(0).toString(16).toUpperCase()}`
    ),
    value
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;'),
    quoted ? value.slice(1, -1) : ''
  ].filter(form => form !== '')
}

/**
 * The parts of secrets that a cut left next to an ellipsis: the start of a
 * form just before one (`cut`, a code span), the end of one just after
 * (the console's tail), each MIN_CHARS long or more.
 */
function cutParts(text: string, forms: ReadonlySet<string>): Array<[number, number]> {
  const ranges: Array<[number, number]> = []
  for (let at = text.indexOf(ELLIPSIS); at >= 0; at = text.indexOf(ELLIPSIS, at + 1)) {
    const after = at + ELLIPSIS.length
    for (const form of forms) {
      const head = longestPart(text, at, form, 'head')
      if (head > 0) ranges.push([at - head, at])
      const tail = longestPart(text, after, form, 'tail')
      if (tail > 0) ranges.push([after, after + tail])
    }
  }
  return ranges
}

/**
 * The most characters (at least MIN_CHARS, fewer than the form's) of `form`
 * found in `text` next to `at`: its start ending there (`head`), or its end
 * starting there (`tail`); 0 if none. The outer character is compared
 * before a slice is made.
 */
function longestPart(text: string, at: number, form: string, side: 'head' | 'tail'): number {
  const head = side === 'head'
  const edge = form.charCodeAt(head ? 0 : form.length - 1)
  for (let n = Math.min(form.length - 1, head ? at : text.length - at); n >= MIN_CHARS; n--) {
    const start = head ? at - n : at
    if (text.charCodeAt(head ? start : start + n - 1) !== edge) continue
    if (text.startsWith(head ? form.slice(0, n) : form.slice(form.length - n), start)) return n
  }
  return 0
}
