/**
 * Pieces of Jenkins JSON that several reads export the same way: an item's
 * names from its URL, and the parameters and causes of an `actions` array.
 * Decoded here, for the reads and the trigger's reconciliation alike.
 */
import type { ExportedParameter } from '../model/types.js'

/** Decoded item names from a job URL (`…/job/a/job/b%20c/` → ['a', 'b c']); undefined if not a job URL. */
export function jobNamesFromUrl(url: string): string[] | undefined {
  let path: string
  try {
    path = new URL(url, 'http://placeholder/').pathname
  } catch {
    return undefined
  }
  const segments = path.split('/').filter(s => s !== '')
  const names: string[] = []
  // The context path comes first; item names follow each 'job' marker.
  const start = segments.indexOf('job')
  if (start < 0) return undefined
  for (let i = start; i < segments.length; i += 2) {
    if (segments[i] !== 'job' || segments[i + 1] === undefined) return undefined
    try {
      names.push(decodeURIComponent(segments[i + 1] as string))
    } catch {
      return undefined
    }
  }
  return names
}

/** Parameters from an exported `actions` array (the ParametersAction's list). */
export function parametersOf(actions: unknown): ExportedParameter[] {
  const list: ExportedParameter[] = []
  if (!Array.isArray(actions)) return list
  for (const action of actions) {
    const parameters = (action as { parameters?: unknown } | null)?.parameters
    if (!Array.isArray(parameters)) continue
    for (const raw of parameters) {
      const p = raw as { name?: unknown; value?: unknown } | null
      if (typeof p?.name !== 'string') continue
      list.push('value' in p ? { name: p.name, value: p.value } : { name: p.name })
    }
  }
  return list
}

/** userId of every cause that has one, from an exported `actions` array; undefined when none. */
export function userIdsOf(actions: unknown): Array<string | null> | undefined {
  if (!Array.isArray(actions)) return undefined
  const ids: Array<string | null> = []
  for (const action of actions) {
    const causes = (action as { causes?: unknown } | null)?.causes
    if (!Array.isArray(causes)) continue
    for (const raw of causes) {
      const cause = raw as { userId?: unknown } | null
      if (
        cause &&
        'userId' in cause &&
        (typeof cause.userId === 'string' || cause.userId === null)
      ) {
        ids.push(cause.userId)
      }
    }
  }
  return ids.length > 0 ? ids : undefined
}

/** `_class` of every cause, from an exported `actions` array (the CauseAction's list). */
export function causeClassesOf(actions: unknown): string[] {
  const classes: string[] = []
  if (!Array.isArray(actions)) return classes
  for (const action of actions) {
    const causes = (action as { causes?: unknown } | null)?.causes
    if (!Array.isArray(causes)) continue
    for (const cause of causes) {
      const name = (cause as { _class?: unknown } | null)?._class
      if (typeof name === 'string') classes.push(name)
    }
  }
  return classes
}
