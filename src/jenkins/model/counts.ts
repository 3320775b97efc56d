import { isRecord } from '../../util/is-record.js'

/**
 * Counts Jenkins sends (build numbers, queue ids, durations, test counts,
 * offsets): whole numbers from 0 to Number.MAX_SAFE_INTEGER. Beyond that a
 * number is no longer exact and prints as `1e+21`, which a shell's `-gt`
 * cannot read and a URL does not address; a broken or hostile server is the
 * only source of such values, so they are ignored where they are read.
 */
export function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
}

/** A build number: a count from 1 (Run.number starts at 1). */
export function isBuildNumber(value: unknown): value is number {
  return isCount(value) && value >= 1
}

/** An estimated duration: a whole number of ms, or -1 when Jenkins has none (Job.getEstimatedDuration). */
export function isEstimate(value: unknown): value is number {
  return Number.isSafeInteger(value)
}

/** A count from a header or a path (digits only), or undefined when it is none or too large. */
export function countOf(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d{1,16}$/.test(text.trim())) return undefined
  const value = Number(text.trim())
  return isCount(value) ? value : undefined
}

/** A value Jenkins sent, for a message: JSON-quoted (control characters escaped) and cut to `chars` characters. */
export function shownValue(value: unknown, chars = 40): string {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > chars ? `${text.slice(0, chars - 1)}…` : text
}

/** A JSON object's fields, or none when it is not an object: a field then reads as undefined. */
export function fields(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {}
}

/** A JSON list, or none. */
export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}

/** The texts of a JSON list; anything else in it is skipped. */
export function texts(value: unknown): string[] {
  return list(value).filter(v => typeof v === 'string')
}

/** A JSON text, or undefined. */
export function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}
