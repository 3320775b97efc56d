/** One `NAME=value`: the name trimmed, the value as written. */
export interface NameValue {
  name: string
  value: string
}

/**
 * Splits `NAME=value` (a `-p` flag, a line of `parameters`, `files` or a
 * values file) on its first `=`, so the value may hold `=` and may be empty;
 * the name is trimmed and never empty. What is `missing` otherwise, for the
 * caller's message, which must not echo the text: values are often secrets.
 */
export function splitNameValue(text: string): NameValue | { missing: '=' | 'name' } {
  const eq = text.indexOf('=')
  if (eq < 0) return { missing: '=' }
  const name = text.slice(0, eq).trim()
  return name === '' ? { missing: 'name' } : { name, value: text.slice(eq + 1) }
}

/** Values by name, in order: a name given more than once holds the list of its values (a multi-value parameter). */
export function groupByName(pairs: Iterable<NameValue>): Record<string, string | string[]> {
  const values = new Map<string, string[]>()
  for (const { name, value } of pairs) values.set(name, [...(values.get(name) ?? []), value])
  // fromEntries defines own properties: a name `__proto__` stays a name.
  return Object.fromEntries(
    [...values].map(([name, list]) => {
      const [only, ...more] = list
      return [name, only !== undefined && more.length === 0 ? only : list]
    })
  )
}
