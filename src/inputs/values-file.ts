/**
 * The `values-file` input (and a `jobs` item's `"values-file"`): a path among
 * the build's artifacts, as the `artifacts` output lists them. Checked as
 * Jenkins writes artifact paths (src/util/artifact-paths.ts), on Jenkins'
 * side of the path only: it names a URL below `artifact/`, never a file of
 * the runner, so Windows' file-name rules do not apply.
 */
import { artifactSegments } from '../util/artifact-paths.js'
import { InputError } from '../util/input-error.js'
import { clip } from '../util/shorten.js'

/** The artifact path, or undefined when the input is empty; `where` names the input in the error (`Input 'values-file'`). */
export function parseValuesFile(value: string, where: string): string | undefined {
  const path = value.trim()
  if (path === '') return undefined
  const segments = artifactSegments(path, 'linux')
  if (!Array.isArray(segments)) {
    throw new InputError(
      `${where} ('${clip(path)}') ${segments.reason}: expected the path of an artifact the build archives, relative to its artifacts, such as values.json or out/build.env.`
    )
  }
  return path
}
