/**
 * The usable start of a JSON text that was cut off (a page of a test report
 * read up to its byte limit): everything up to the last element of an array
 * that arrived whole, with the open arrays and objects closed. The bytes
 * already read are used instead of being thrown away and read again.
 */
export interface JsonPrefix {
  /** The parsed start: arrays hold only their whole elements. */
  value: unknown
  /**
   * Where the cut was: the keys of the objects open there, outermost first
   * (`['suites', 'cases']`: inside the cases of the last suite kept).
   */
  openKeys: string[]
}

/**
 * Nesting this deep is no page of a report (it has at most eight levels): the scan
 * gives up rather than spend time on a hostile one.
 */
const MAX_DEPTH = 32

interface Frame {
  kind: '{' | '['
  /** In an object: the key whose value is being read. */
  key?: string
}

/**
 * The start of `text` that is whole, or undefined when not even one array
 * element is. Only a cut after a whole element is used: an object cut in the
 * middle would look like a whole one that lacks fields.
 */
export function parseJsonPrefix(text: string): JsonPrefix | undefined {
  const stack: Frame[] = []
  let inString = false
  let escaped = false
  let stringStart = -1
  let expectKey = false
  // The last cut after a whole array element: where, and the arrays and objects open there.
  let cut: { at: number; open: Frame[] } | undefined
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i)
    if (inString) {
      if (escaped) escaped = false
      else if (ch === 0x5c) escaped = true
      else if (ch === 0x22) {
        inString = false
        if (expectKey) {
          const top = stack[stack.length - 1]
          if (top) top.key = text.slice(stringStart + 1, i)
          expectKey = false
        }
      }
      continue
    }
    switch (ch) {
      case 0x22: // "
        inString = true
        stringStart = i
        break
      case 0x7b: // {
        if (stack.push({ kind: '{' }) > MAX_DEPTH) return undefined
        expectKey = true
        break
      case 0x5b: // [
        if (stack.push({ kind: '[' }) > MAX_DEPTH) return undefined
        break
      case 0x7d: // }
      case 0x5d: // ]
        stack.pop()
        expectKey = false
        break
      case 0x2c: {
        // ,
        const top = stack[stack.length - 1]
        if (top?.kind === '{') expectKey = true
        else if (top?.kind === '[') cut = { at: i, open: stack.map(frame => ({ ...frame })) }
        break
      }
    }
  }
  if (!cut) return undefined
  const closers = cut.open.map(f => (f.kind === '{' ? '}' : ']')).reverse()
  const openKeys = cut.open.flatMap(f => (f.kind === '{' && f.key !== undefined ? [f.key] : []))
  try {
    return { value: JSON.parse(text.slice(0, cut.at) + closers.join('')), openKeys }
  } catch {
    return undefined
  }
}
