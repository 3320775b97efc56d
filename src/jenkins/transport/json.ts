/**
 * JSON from Jenkins, with its nesting bounded before it is parsed: whatever
 * walks a value afterwards recurses, and a build carrying an action nested a
 * million levels deep overflowed the stack. An element of a named list of
 * plugins' data (a build's `actions`) nested too deep is cut out; anything
 * else too deep refuses the answer (JsonTooDeep). Why and how:
 * docs/internals.md, "JSON nesting, bounded".
 */

/** Most levels of `[`/`{` a Jenkins answer may nest. */
export const MAX_JSON_DEPTH = 500

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const COMMA = 0x2c
/** Where the elements of a droppable list sit: the answer's `{` is 1, the list's `[` is 2. */
const LIST_DEPTH = 2

/** A JSON text nested deeper than allowed: at which character it went too deep. */
export class JsonTooDeep extends Error {
  constructor(readonly offset: number) {
    super(`JSON nested more than ${MAX_JSON_DEPTH} levels deep (at character ${offset})`)
    this.name = 'JsonTooDeep'
  }
}

/** An element of a droppable list that was nested too deep, and so left out. */
export interface DroppedPart {
  /** The top-level field holding the list (`actions`). */
  field: string
  /** Its position in the list as sent, 0-based. */
  index: number
  /** Its `_class` when it opens with one (Jenkins writes `_class` first): which plugin's data it was. */
  className?: string
  /** The character where it went too deep. */
  offset: number
}

interface Scan {
  /** Where the text went too deep outside any droppable element, or -1. */
  at: number
  /** Character ranges [from, to) to cut out, in order, with what each was. */
  cuts: { from: number; to: number; part: DroppedPart }[]
}

/**
 * One pass over `text` counting brackets and braces outside strings, with
 * no allocation but for the cuts: strings are skipped with indexOf (they
 * are most of a build's bytes), and a quote counts as a string's end unless
 * an odd run of backslashes precedes it. Inside a droppable list it keeps
 * where the current element began; an element that goes too deep is read
 * to its end (depth only, no stack) and cut with one comma, so the list
 * stays valid JSON. Malformed text gives some result; JSON.parse then says
 * what is wrong with it. A cut element is not checked beyond its brackets.
 */
function scan(text: string, droppable: readonly string[]): Scan {
  const cuts: Scan['cuts'] = []
  let depth = 0
  // The top-level object: is a key expected next, and the last key read.
  let topObject = false
  let expectKey = false
  let key = ''
  // A droppable list being read: where its element began, the comma before
  // it, whether an element was kept, and the current element's fate.
  let inList = false
  let index = 0
  let from = 0
  let comma = -1
  let kept = false
  let deepAt = -1
  const length = text.length
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      const end = stringEnd(text, i + 1)
      if (end < 0) break
      if (expectKey && depth === 1) {
        key = text.slice(i + 1, end)
        expectKey = false
      }
      i = end
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      depth++
      if (depth === 1) {
        topObject = c === OPEN_BRACE
        expectKey = topObject
      } else if (
        depth === LIST_DEPTH &&
        topObject &&
        c === OPEN_BRACKET &&
        droppable.includes(key)
      ) {
        inList = true
        index = 0
        from = i + 1
        comma = -1
        kept = false
        deepAt = -1
      }
      if (depth > MAX_JSON_DEPTH) {
        if (!inList || depth <= LIST_DEPTH) return { at: i, cuts }
        if (deepAt < 0) deepAt = i
      }
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE || c === COMMA) {
      if (inList && depth === LIST_DEPTH) {
        // The end of an element: cut it when it went too deep.
        if (deepAt >= 0) {
          const part: DroppedPart = { field: key, index, offset: deepAt }
          const className = classOf(text, from)
          if (className !== undefined) part.className = className
          // With an element kept before it, the comma before it goes too;
          // else the comma after it, so that no list starts with a comma.
          if (kept) cuts.push({ from: comma, to: i, part })
          else cuts.push({ from, to: c === COMMA ? i + 1 : i, part })
        } else if (!blank(text, from, i)) kept = true
        index++
        from = i + 1
        comma = i
        deepAt = -1
      }
      if (c === COMMA) {
        if (depth === 1) expectKey = topObject
      } else {
        if (depth === LIST_DEPTH) inList = false
        depth--
      }
    }
  }
  return { at: -1, cuts }
}

/** Whether text[from, to) is only JSON whitespace (an empty list's one "element"). */
function blank(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i)
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return false
  }
  return true
}

/** The `_class` an element opens with, if it does (bounded: a look at its first characters). */
function classOf(text: string, from: number): string | undefined {
  const head = /^\s*\{\s*"_class"\s*:\s*"([\w.$]{1,200})"/.exec(text.slice(from, from + 256))
  return head?.[1]
}

/**
 * The character offset where `text` first nests deeper than MAX_JSON_DEPTH
 * brackets and braces outside strings, or -1 (scan: one pass, strings
 * skipped). Malformed text gives some offset or -1.
 */
export function tooDeepAt(text: string): number {
  return scan(text, []).at
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
 * A Jenkins answer read with its nesting bounded: elements of the
 * `droppable` lists nested too deep are left out (and listed in `dropped`);
 * anything else too deep is refused with JsonTooDeep; malformed text is a
 * SyntaxError, as JSON.parse. One scan, one parse.
 */
export function readJenkinsJson(
  text: string,
  { droppable = [] }: { droppable?: readonly string[] } = {}
): { value: unknown; dropped: DroppedPart[] } {
  const { at, cuts } = scan(text, droppable)
  if (at >= 0) throw new JsonTooDeep(at)
  let kept = ''
  let start = 0
  for (const cut of cuts) {
    kept += text.slice(start, cut.from)
    start = cut.to
  }
  kept += text.slice(start)
  const value: unknown = JSON.parse(kept)
  return { value, dropped: cuts.map(cut => cut.part) }
}

/**
 * JSON.parse of a Jenkins answer, refused with JsonTooDeep when nested
 * deeper than MAX_JSON_DEPTH; SyntaxError for malformed text, as JSON.parse.
 */
export function parseJenkinsJson(text: string): unknown {
  return readJenkinsJson(text).value
}
