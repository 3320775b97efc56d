import { InputError } from './input-error.js'

/** `value` as an absolute http(s) URL; else an error in which `where` names the input and value. */
export function parseHttpUrl(value: string, where: string, expected: string): URL {
  if (!URL.canParse(value)) throw new InputError(`${where} is not an absolute URL: ${expected}.`)
  const url = new URL(value)
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InputError(
      `${where} must use http or https, not '${url.protocol.slice(0, -1)}': ${expected}.`
    )
  }
  return url
}

/** `url` as the href of an http(s) URL; undefined for none, or any other scheme (`javascript:`). */
export function httpHref(url: string | undefined): string | undefined {
  const parsed = url && URL.canParse(url) ? new URL(url) : undefined
  return parsed?.protocol === 'http:' || parsed?.protocol === 'https:' ? parsed.href : undefined
}

/**
 * Whether the path of the URL `value` has a '.' or '..' segment (also as
 * %2e): the URL parser resolves them silently, and a URL Jenkins wrote never
 * holds them, so an input that does is refused rather than guessed.
 */
export function hasDotSegment(value: string): boolean {
  const path = value.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '').replace(/[?#].*$/s, '')
  return path.split('/').some(segment => /^(\.|%2e){1,2}$/i.test(segment))
}
