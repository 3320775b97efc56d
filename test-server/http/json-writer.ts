/**
 * JSON as Stapler writes it (jenkins-api.md 5.5): compact without any
 * whitespace, or pretty with 2-space indents and `"key" : value`; surrogate
 * halves (emoji) and control characters escaped as \uXXXX.
 */

function quote(text: string): string {
  return JSON.stringify(text).replace(
    /[\ud800-\udfff\u007f]/g,
    ch => '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0')
  )
}

function write(value: unknown, pretty: boolean, indent: string): string {
  if (value === null || value === undefined) return 'null'
  if (typeof value === 'string') return quote(value)
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null'
  if (typeof value === 'boolean') return String(value)
  const inner = indent + '  '
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]'
    const parts = value.map(v => write(v, pretty, inner))
    return pretty ? `[\n${inner}${parts.join(`,\n${inner}`)}\n${indent}]` : `[${parts.join(',')}]`
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(
    ([, v]) => v !== undefined
  )
  if (entries.length === 0) return '{}'
  const parts = entries.map(
    ([k, v]) => `${quote(k)}${pretty ? ' : ' : ':'}${write(v, pretty, inner)}`
  )
  return pretty ? `{\n${inner}${parts.join(`,\n${inner}`)}\n${indent}}` : `{${parts.join(',')}}`
}

export function toJson(value: unknown, pretty = false): string {
  return write(value, pretty, '')
}
