/**
 * Text from Jenkins in GitHub-flavoured Markdown (a pull request comment),
 * made inert. Escapes do not do it there: GitHub forms @-mentions, issue
 * references and autolinks after entity and backslash escapes are decoded
 * (`&#64;team` still pings the team), and raw HTML passes its filter in
 * part. Inside a code span nothing is parsed: no HTML, no mention, no link,
 * no emphasis. So every piece of untrusted text goes in one code span on
 * one line.
 */

import { httpHref } from './http-url.js'

// C0 and C1 controls, and the bidirectional overrides that make a name read
// otherwise than it is written.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g
/** Every line break and space GitHub or a browser may honour (JavaScript's \s has U+2028, U+2029, NBSP). */
const SPACES = /\s+/g

/**
 * `text` as one inline code span of at most `max` characters (code points):
 * line breaks and controls become spaces (a line break would end the list
 * item, a blank line the paragraph), and the fence is one backtick longer
 * than the longest run inside, so no backtick in the text can close it.
 */
export function codeSpan(text: string, max: number): string {
  // Enough of a long text for `max` code points once its spaces are folded.
  const head = text.length > max * 4 ? text.slice(0, max * 4) : text
  const flat = head.replace(CONTROL, ' ').replace(SPACES, ' ').trim()
  const chars = Array.from(flat)
  const shown =
    chars.length <= max
      ? flat
      : chars
          .slice(0, max - 1)
          .join('')
          .trimEnd() + '…'
  if (shown === '') return '(empty)'
  const longest = Math.max(0, ...Array.from(shown.matchAll(/`+/g), run => run[0].length))
  const fence = '`'.repeat(longest + 1)
  // A span that starts or ends with a backtick needs a space inside its
  // fence (CommonMark strips one on each side when both are there).
  const pad = shown.startsWith('`') || shown.endsWith('`') ? ' ' : ''
  return fence + pad + shown + pad + fence
}

/**
 * A Markdown link destination for an http(s) URL, or undefined: `(`, `)`,
 * `<`, `>` and spaces percent-encoded, so the URL cannot end the link early.
 */
export function linkTarget(url: string | undefined): string | undefined {
  return httpHref(url)?.replace(
    /[()<>\s]/g,
    c => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`
  )
}
