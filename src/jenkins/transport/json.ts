/**
 * JSON from Jenkins, with its nesting bounded before it is parsed. V8's
 * JSON.parse takes any depth, but whatever walks the value afterwards
 * (JSON.stringify for the `build` output, structured clones) recurses, and a
 * build carrying an action nested a million levels deep (2 MB) overflowed
 * the stack and failed a passing build. No Jenkins answer we ask for comes
 * near this bound: a job tree of LIST_DEPTH folders is about 20 levels.
 */

/** Most levels of `[`/`{` a Jenkins answer may nest. */
export const MAX_JSON_DEPTH = 500

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d

/** A JSON text nested deeper than allowed: at which character it went too deep. */
export class JsonTooDeep extends Error {
  constructor(
    readonly limit: number,
    readonly offset: number
  ) {
    super(`JSON nested more than ${limit} levels deep (at character ${offset})`)
    this.name = 'JsonTooDeep'
  }
}

/**
 * The character offset where `text` first nests deeper than `limit`
 * brackets and braces outside strings, or -1. One pass, no allocation:
 * strings are skipped with indexOf (they are most of a build's bytes), and a
 * quote counts as a string's end unless an odd run of backslashes precedes
 * it. Malformed text gives some offset or -1; JSON.parse then says what is
 * wrong with it.
 */
export function tooDeepAt(text: string, limit: number = MAX_JSON_DEPTH): number {
  let depth = 0
  const length = text.length
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      i = stringEnd(text, i + 1)
      if (i < 0) return -1
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > limit) return i
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      depth--
    }
  }
  return -1
}

/** The index of the quote that ends the string whose content starts at `from`, or -1. */
function stringEnd(text: string, from: number): number {
  let at = from
  for (;;) {
    const quote = text.indexOf('"', at)
    if (quote < 0) return -1
    let backslashes = 0
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++
    if (backslashes % 2 === 0) return quote
    at = quote + 1
  }
}

/**
 * JSON.parse of a Jenkins answer, refused with JsonTooDeep when nested
 * deeper than `limit`; SyntaxError for malformed text, as JSON.parse.
 */
export function parseJenkinsJson(text: string, limit: number = MAX_JSON_DEPTH): unknown {
  const at = tooDeepAt(text, limit)
  if (at >= 0) throw new JsonTooDeep(limit, at)
  return JSON.parse(text) as unknown
}
