import { parse as parseJsonTree, type AnyNode } from '@humanwhocodes/momoa'
import { InputError } from '../util/input-error.js'
import { groupByName, splitNameValue } from '../util/name-value.js'
import { MAX_JSON_DEPTH, tooDeepAt } from '../jenkins/transport/json.js'
import type { BuildParameters } from '../jenkins/model/types.js'
import { isRecord } from '../util/is-record.js'

const FORMS =
  'expected `NAME=value` lines, or a JSON object such as {"NAME": "value", "LIST": ["a", "b"]}'

/**
 * Parses the `parameters` input: a JSON object (the text starts with `{`;
 * numbers and booleans become the strings a form would send, a key given
 * twice is refused), or `NAME=value` lines (split on the first `=`; a name on
 * several lines is a multi-value parameter). Messages never echo a value:
 * values are often secrets. The rules: docs/internals.md, "The parameters input".
 * `where` names the input in messages (an item of `jobs` has its own).
 */
export function parseParameters(text: string, where = "Input 'parameters'"): BuildParameters {
  const trimmed = text.trim()
  if (trimmed === '') return {}
  // `[` too, so that a JSON array gets "must be an object" rather than a
  // confusing complaint about a line without `=`.
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) return parseJson(trimmed, where)
  return groupByName(nameValueLines(text, where, FORMS))
}

/**
 * JSON.parse of an input, refused with a message naming it (`where`), the
 * position and the expected forms. Only the position is kept: newer V8
 * messages quote the input, which may hold secrets.
 */
export function parseJsonInput(text: string, where: string, forms: string): unknown {
  // The duplicate-key check (momoa) and our walks recurse: bound the nesting first.
  const deep = tooDeepAt(text)
  if (deep >= 0) {
    throw new InputError(
      `${where} is JSON nested more than ${MAX_JSON_DEPTH} levels deep (at character ${deep + 1}): ${forms}.`
    )
  }
  try {
    return JSON.parse(text)
  } catch (error) {
    const position = /position (\d+)/.exec(String(error))?.[1]
    const at = position === undefined ? '' : ` (at character ${Number(position) + 1})`
    throw new InputError(`${where} is not valid JSON${at}: ${forms}.`)
  }
}

/**
 * `NAME=value` lines (of `parameters`, of `files`): blank lines skipped,
 * each split by splitNameValue; `line` is 1-based.
 */
export function nameValueLines(text: string, where: string, forms: string) {
  return text.split(/\r?\n/).flatMap((raw, index) => {
    if (raw.trim() === '') return []
    const pair = splitNameValue(raw)
    if ('missing' in pair) {
      const problem = pair.missing === '=' ? "has no '='" : "has an empty NAME before '='"
      throw new InputError(`${where} line ${index + 1} ${problem}: ${forms}.`)
    }
    return [{ ...pair, line: index + 1 }]
  })
}

function parseJson(text: string, where: string): BuildParameters {
  const data = parseJsonInput(text, where, FORMS)
  if (!isRecord(data)) throw new InputError(`${where} is JSON but not an object: ${FORMS}.`)
  // Only the top level: a nested object is refused as a value anyway.
  const twice = duplicateKey(text, 1)
  if (twice) {
    throw new InputError(
      `${where} has the key '${twice.name}' twice (${twice.lines}): a key may appear once; for several values of one parameter give an array, such as {"${twice.name}": ["a", "b"]} (${FORMS}).`
    )
  }
  const entries: Array<[string, string | string[]]> = []
  for (const [name, value] of Object.entries(data)) {
    if (name.trim() === '') {
      throw new InputError(`${where} has an empty parameter name: ${FORMS}.`)
    }
    entries.push([
      name,
      Array.isArray(value)
        ? value.map(item => scalar(where, name, item))
        : scalar(where, name, value)
    ])
  }
  // fromEntries defines own properties, so a parameter named `__proto__`
  // stays a parameter instead of replacing the object's prototype.
  return Object.fromEntries(entries)
}

/** A key given twice in one object of a JSON input. */
export interface DuplicateKey {
  name: string
  /** `line 3`, or `lines 2 and 3`. */
  lines: string
  /** The element of the top-level array it stands in (1-based); undefined for a top-level object. */
  item?: number
}

/**
 * JSON.parse keeps the last of two equal keys and says nothing, and no
 * reviver sees the first: the text is read again as a tree that keeps every
 * member (momoa), with keys decoded, so `"A"` and `"\u0041"` are one key.
 * The first key given twice, looking `depth` objects deep.
 */
export function duplicateKey(text: string, depth: number): DuplicateKey | undefined {
  const visit = (node: AnyNode, left: number, item?: number): DuplicateKey | undefined => {
    if (node.type === 'Array') {
      for (const [i, element] of node.elements.entries()) {
        const found = visit(element.value, left, item ?? i + 1)
        if (found) return found
      }
    } else if (node.type === 'Object' && left > 0) {
      const lines = new Map<string, number>()
      for (const member of node.members) {
        const name = member.name.type === 'String' ? member.name.value : member.name.name
        const line = member.name.loc.start.line
        const first = lines.get(name)
        if (first !== undefined) {
          const where = first === line ? `line ${line}` : `lines ${first} and ${line}`
          return { name, lines: where, ...(item === undefined ? {} : { item }) }
        }
        lines.set(name, line)
        const found = visit(member.value, left - 1, item)
        if (found) return found
      }
    }
    return undefined
  }
  return visit(parseJsonTree(text, { mode: 'json' }).body, depth)
}

function scalar(where: string, name: string, value: unknown): string {
  if (typeof value === 'string') return value
  if (typeof value === 'boolean') return String(value)
  // JSON.parse turns 1e999 into Infinity, which no form field can carry.
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  throw new InputError(
    `${where} value of '${name}' is ${describe(value)}: each value must be a string, number, boolean, or an array of those (${FORMS}).`
  )
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a nested array'
  return typeof value === 'number' ? 'a number out of range' : kindOf(value)
}

/** A JSON value's kind, as a message names it ('an object', 'null'). */
export function kindOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object') return 'an object'
  return `a ${typeof value}`
}
