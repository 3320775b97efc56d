/**
 * A Jenkins description in the job summary: its text, never its markup
 * (tags removed, character references decoded, then escaped as text), and
 * links only to http(s).
 */
import { describe, expect, it } from 'vitest'
import { decodeHTML } from 'entities'
import { escapeHtml, htmlText, link } from '../../src/util/html.js'

describe('htmlText', () => {
  it('the text of HTML: tags gone, references decoded, line-ending tags as line breaks', () => {
    expect(htmlText('<b>1.4.2</b>')).toBe('1.4.2')
    expect(htmlText('Built <a href="https://ci/x>y" title=\'t\'>here</a> &amp; tested')).toBe(
      'Built here & tested'
    )
    expect(htmlText('<p>One</p><p>Two<br/>three</p><ul><li>a</li><li>b</li></ul>')).toBe(
      'One\n\nTwo\nthree\n\na\nb'
    )
    expect(htmlText('caf&eacute; &#8212; &#x2713; &nbsp;ok')).toBe('café — ✓ ok')
  })

  it('script, style and comments say nothing; a doctype neither', () => {
    expect(
      htmlText('<!DOCTYPE html><style>b{}</style>A<script>alert(1)</script>B<!-- <br> C -->D')
    ).toBe('ABD')
    // Unterminated: the rest is not text.
    expect(htmlText('A<script>alert(1)')).toBe('A')
    expect(htmlText('A<!-- never closed <b>x</b>')).toBe('A')
  })

  it('text without markup stays as written, `<` and `>` included; an escaped tag is text', () => {
    expect(htmlText('a < b and c > d\nsecond line')).toBe('a < b and c > d\nsecond line')
    expect(htmlText('&lt;b&gt;literal&lt;/b&gt;')).toBe('<b>literal</b>')
    expect(htmlText('&#60;b&#62;1.4.2&#60;/b&#62;')).toBe('<b>1.4.2</b>')
    expect(htmlText('plain\n\n\n\nend  ')).toBe('plain\n\nend')
  })

  it('then escaped, it is inert in the summary: no tag, no workflow command can come of it', () => {
    const shown = escapeHtml(htmlText('<img src=x onerror=alert(1)><b>::error::x</b>'))
    expect(shown).toBe('::error::x')
    expect(escapeHtml(htmlText('&lt;img src=x onerror=alert(1)&gt;'))).toBe(
      '&#60;img src=x onerror=alert(1)&#62;'
    )
  })

  it('hostile markup: thousands of unclosed tags, long attributes, a huge description: bounded, text kept', () => {
    expect(htmlText('<a'.repeat(5000))).toBe('<a'.repeat(5000).slice(0, 16_384))
    expect(htmlText(`<a title="${'x'.repeat(50_000)}">t</a>`)).not.toContain('<b')
    expect(htmlText('<b>y</b>'.repeat(100_000)).length).toBeLessThanOrEqual(16_384)
  })
})

describe('decodeHTML (entities), as htmlText and the trigger read references', () => {
  it('named, decimal and hexadecimal references, as a browser decodes them in text', () => {
    expect(decodeHTML('&lt;&#60;&#x3C;&amp;&quot;&apos;&hellip;&amp')).toBe('<<<&"\'…&')
    expect(decodeHTML('&unknown; &#xZZ;')).toBe('&unknown; &#xZZ;')
  })
})

describe('link', () => {
  it('an http(s) URL is a link; anything else is its text alone', () => {
    expect(link('x', 'https://ci/a?b=1&c="2"')).toBe(
      '<a href="https://ci/a?b=1&#38;c=%222%22">x</a>'
    )
    expect(link('x', 'javascript:alert(1)')).toBe('x')
  })
})
