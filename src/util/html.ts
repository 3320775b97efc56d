/**
 * Text in the job summary: what came from Jenkins or the user made inert
 * (HTML and Markdown), links only to http(s), and the text of Jenkins' HTML
 * (a description) rather than its markup.
 */
import { decodeHTML } from 'entities'
import { httpHref } from './http-url.js'

/** An `<a>` to an http(s) URL, else the escaped text alone. */
export function link(text: string, url: string | undefined): string {
  // Only http(s) links (a URL that came back from Jenkins must not become `javascript:`),
  // escaped for the attribute.
  const href = httpHref(url)?.replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`)
  return href ? `<a href="${href}">${escapeHtml(text)}</a>` : escapeHtml(text)
}

/**
 * Makes text inert in the summary: HTML special characters and the characters
 * Markdown acts on become entities, line breaks become <br> (a blank line
 * would end the HTML block and let Markdown through), and other control
 * characters go.
 */
export function escapeHtml(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '')
      .replace(/[&<>"'`*_[\]\\|~#]/g, c => `&#${c.charCodeAt(0)};`)
      .replace(/\r\n|\r|\n/g, '<br>')
      .replace(/\t/g, ' ')
  )
}

/** Most characters of HTML read for its text: far more than any summary shows of it. */
const MAX_HTML_CHARS = 16_384

/** An attribute list: a quoted value may hold `>`; an unquoted one stops at `<` (so a stray `<` costs one scan). */
const ATTRIBUTES = `(?:"[^"]{0,1000}"|'[^']{0,1000}'|[^'"<>]){0,1000}`
/** Comments, and the elements whose content is not text. */
const NOT_TEXT = new RegExp(
  `<!--[\\s\\S]*?(?:-->|$)|<(script|style|template|noscript)\\b${ATTRIBUTES}>[\\s\\S]*?(?:</\\1\\s*>|$)`,
  'gi'
)
/** Tags that end a line: `<br>`, a list item's or a row's start, a block's start and end (paragraphs, headings). */
const LINE_BREAK = new RegExp(
  `<(?:br|hr|li|tr|dt|dd)\\b${ATTRIBUTES}>|</?(?:p|div|h[1-6]|ul|ol|dl|table|pre|blockquote)\\b${ATTRIBUTES}>`,
  'gi'
)
/** Any other tag, a doctype or a processing instruction. */
const MARKUP = new RegExp(`</?[a-z][\\w:-]{0,100}${ATTRIBUTES}>|<[!?][^<>]{0,1000}>`, 'gi')

/**
 * The text of HTML as a reader sees it: tags removed (line-ending ones as
 * line breaks), character references decoded (entities: the decoder of
 * htmlparser2 and cheerio), blank lines folded. For a Jenkins description,
 * which a markup formatter may render as HTML: the summary shows its text,
 * escaped again (escapeHtml), never its markup. Text without markup comes
 * back as it is, trimmed.
 */
export function htmlText(html: string): string {
  const text = html
    .slice(0, MAX_HTML_CHARS)
    .replace(NOT_TEXT, '')
    .replace(LINE_BREAK, '\n')
    .replace(MARKUP, '')
  return decodeHTML(text)
    .split(/\r\n|\r|\n/)
    .map(line => line.replace(/[ \t\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
}
