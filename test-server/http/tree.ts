/**
 * Stapler's `tree` query parameter (jenkins-api.md 5.5), applied to plain JS
 * objects: `a,b[c,d[e]]{N,M}`, `*` for any property, unknown names skipped,
 * `_class` always kept.
 */

interface TreeTerm {
  /** Sub-tree; an empty tree keeps only `_class` of an object value. */
  tree: Tree
  /** Slice of a list value: [from, to). */
  range?: { from: number; to: number }
}

export type Tree = Map<string, TreeTerm>

export class TreeSyntaxError extends Error {
  constructor(expr: string) {
    super(`Malformed tree expression: ${expr}`)
    this.name = 'TreeSyntaxError'
  }
}

export function parseTree(expr: string): Tree {
  let pos = 0
  const fail = (): never => {
    throw new TreeSyntaxError(expr)
  }

  const readName = (): string => {
    const start = pos
    while (pos < expr.length && !'[]{},'.includes(expr.charAt(pos))) pos++
    const name = expr.slice(start, pos).trim()
    if (name === '') fail()
    return name
  }

  const readNumber = (): number | undefined => {
    const match = /^\s*(\d+)\s*/.exec(expr.slice(pos))
    if (!match) return undefined
    pos += match[0].length
    return Number(match[1])
  }

  const readRange = (): { from: number; to: number } => {
    pos++ // '{'
    const from = readNumber()
    let to: number | undefined
    if (expr.charAt(pos) === ',') {
      pos++
      to = readNumber()
      if (from === undefined && to === undefined) fail()
    } else {
      // `{N}` is the single element N.
      if (from === undefined) fail()
      to = (from ?? 0) + 1
    }
    if (expr.charAt(pos) !== '}') fail()
    pos++
    return { from: from ?? 0, to: to ?? Number.MAX_SAFE_INTEGER }
  }

  const readList = (): Tree => {
    const tree: Tree = new Map()
    for (;;) {
      const name = readName()
      let sub: Tree = new Map()
      if (expr.charAt(pos) === '[') {
        pos++
        sub = readList()
        if (expr.charAt(pos) !== ']') fail()
        pos++
      }
      const term: TreeTerm = { tree: sub }
      if (expr.charAt(pos) === '{') term.range = readRange()
      tree.set(name, term)
      if (expr.charAt(pos) !== ',') return tree
      pos++
    }
  }

  const tree = readList()
  if (pos !== expr.length) fail()
  return tree
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Keeps what `tree` names; objects keep their `_class`. */
export function pruneTree(value: unknown, tree: Tree): unknown {
  if (Array.isArray(value)) return value.map(element => pruneTree(element, tree))
  if (!isPlainObject(value)) return value
  const out: Record<string, unknown> = {}
  if ('_class' in value) out._class = value._class
  for (const [key, property] of Object.entries(value)) {
    if (key === '_class') continue
    const term = tree.get(key) ?? tree.get('*')
    if (!term) continue
    let selected = property
    if (Array.isArray(selected) && term.range) {
      selected = selected.slice(term.range.from, term.range.to)
    }
    out[key] = pruneTree(selected, term.tree)
  }
  return out
}

/** How deep `tree` nests, so the caller can build objects at least that deep. */
export function treeDepth(tree: Tree): number {
  let max = 0
  for (const term of tree.values()) max = Math.max(max, 1 + treeDepth(term.tree))
  return max
}
