/** Parameter defaults (ParameterDefinition.getDefaultParameterValue). */
import type { ParameterSpec } from '../types.js'
import type { ParameterValueState } from './state.js'

/** A definition's default: '' for strings, false for booleans, the first choice for choices. */
export function defaultValue(def: ParameterSpec): string | boolean {
  const type = def.type ?? 'string'
  if (type === 'boolean') return def.default === true || String(def.default) === 'true'
  if (type === 'choice') return String(def.default ?? def.choices?.[0] ?? '')
  return String(def.default ?? '')
}

/**
 * Every definition with its default, as ParameterizedJobMixIn.scheduleBuild2
 * fills them in for a build scheduled without a ParametersAction (a branch
 * indexing build, for one).
 */
export function defaultValues(parameters: readonly ParameterSpec[]): ParameterValueState[] {
  // A file parameter has no default (ParameterDefinition.getDefaultParameterValue is null).
  return parameters
    .filter(def => !isFileType(def.type))
    .map(def => ({
      name: def.name,
      type: def.type ?? 'string',
      value: defaultValue(def)
    }))
}

/** Equal parameter sets as ParametersAction.shouldSchedule compares them: the same names and values, in any order. */
export function sameParameters(a: ParameterValueState[], b: ParameterValueState[]): boolean {
  if (a.length !== b.length) return false
  // Two uploads never compare equal: core's FileParameterValue.equals is
  // false unless both have no file (JENKINS-25211 TODO, jenkins-2.568.2), and
  // the plugin's values keep Object.equals ("TODO equals/hashCode"). So a
  // trigger with a file is never folded into a queued item.
  if ([...a, ...b].some(p => p.file !== undefined)) return false
  const key = (list: ParameterValueState[]): string =>
    JSON.stringify(list.map(p => [p.name, p.value]).sort())
  return key(a) === key(b)
}

/** The file parameter types: core's `file`, the file-parameters plugin's `base64File` and `stashedFile`. */
export function isFileType(type: ParameterSpec['type']): boolean {
  return type === 'file' || type === 'base64File' || type === 'stashedFile'
}
