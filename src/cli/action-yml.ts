/**
 * The action's inputs as action.yml declares them: the one list the
 * jenkins-build command takes its flags, help and defaults from, and the
 * runner emulation its defaults (an input added to action.yml is a flag
 * with no change here).
 */
import { readFileSync } from 'node:fs'
import { parse } from 'yaml'
import { isRecord } from '../util/is-record.js'

/** One input of action.yml. */
export type ActionInput = ReturnType<typeof readActionInputs>[number]

/**
 * Reads the `inputs:` of an action.yml. The failsafe schema reads every
 * scalar as the string written (`default: 1.10` stays `1.10`), as the
 * runner does: it passes inputs as text.
 */
export function readActionInputs(path: string) {
  const document: unknown = parse(readFileSync(path, 'utf8'), { schema: 'failsafe' })
  const inputs = isRecord(document) ? document.inputs : undefined
  if (!isRecord(inputs)) throw new Error(`${path} has no inputs: block`)
  return Object.entries(inputs).map(([name, spec]) => {
    if (!isRecord(spec)) throw new Error(`${path}: input ${name} is not a mapping`)
    return {
      name,
      description: typeof spec.description === 'string' ? spec.description : '',
      /** The `default:` as the runner passes it; undefined when there is none. */
      default: typeof spec.default === 'string' ? spec.default : undefined,
      required: spec.required === 'true'
    }
  })
}
