/**
 * Text in the job summary: what came from Jenkins or the user made inert
 * (HTML and Markdown), and links only to http(s).
 */

/** An `<a>` to an http(s) URL, else the escaped text alone. */
export function link(text: string, url: string | undefined): string {
  const href = safeUrl(url)
  return href ? `<a href="${escapeAttribute(href)}">${escapeHtml(text)}</a>` : escapeHtml(text)
}

/** Only http(s) links: a URL that came back from Jenkins must not become `javascript:`. */
function safeUrl(url: string | undefined): string | undefined {
  if (!url) return undefined
  try {
    const parsed = new URL(url)
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : undefined
  } catch {
    return undefined
  }
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

function escapeAttribute(text: string): string {
  return text.replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`)
}
