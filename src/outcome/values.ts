/**
 * The `values-file` input: one artifact the build archives, read once the
 * build ended into the `values` output (a JSON object). A `.json` file is one
 * JSON object; any other is `KEY=VALUE` lines, `.env` style. Whatever goes
 * wrong (not archived, over 1 MiB, malformed, a key twice) is one warning
 * that says which, and `{}`: the values are the build's extra, never its
 * verdict. The text is Jenkins': it is set and shown exactly, never
 * evaluated, and the summary shows it as text within bounds (report.ts
 * addValues).
 */
import { Interrupted, JenkinsError } from '../jenkins/transport/errors.js'
import { parseJenkinsJson } from '../jenkins/transport/json.js'
import { fullName } from '../jenkins/model/job-path.js'
import { duplicateKey } from '../inputs/parameters.js'
import type { BuildRef, JsonValue } from '../jenkins/model/types.js'
import type { BuildOutputsApi } from '../jenkins/client.js'
import { splitNameValue } from '../util/name-value.js'
import { cut } from '../util/shorten.js'
import { errorText } from '../util/error-text.js'
import type { Logger } from '../util/logger.js'

/** Most bytes of the file read: a larger one is not downloaded. */
const MAX_VALUES_BYTES = 1024 * 1024

/** The values: each key an own property, so that a key `__proto__` is a key like any other. */
type Values = Record<string, JsonValue>

/** The file's values, or what is wrong with it (a phrase: "is not one JSON object", "has the key 'A' twice"). */
type ParsedValues = { values: Values } | { problem: string }

/**
 * Parses the file's bytes by its name: `.json` one JSON object, else KEY=VALUE lines.
 * @internal
 */
export function parseValues(path: string, bytes: Buffer): ParsedValues {
  // A byte-order mark (an editor on Windows) is not part of the first key.
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '')
  return /\.json$/i.test(path) ? parseJsonValues(text) : parseKeyValueLines(text)
}

/**
 * One JSON object, nested values kept; a key twice in any object is refused (JSON.parse would keep the last silently).
 * @internal
 */
export function parseJsonValues(text: string): ParsedValues {
  let parsed: unknown
  try {
    parsed = parseJenkinsJson(text)
  } catch (error) {
    return { problem: `is not one JSON object (${errorText(error)})` }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    const kind = parsed === null ? 'null' : Array.isArray(parsed) ? 'an array' : typeof parsed
    return { problem: `is not one JSON object (it holds ${kind})` }
  }
  // Any depth: parseJenkinsJson has bounded the nesting.
  const twice = duplicateKey(text, Infinity)
  if (twice !== undefined) return { problem: `has the key ${quoteKey(twice.name)} twice` }
  // cast: one JSON object (checked above) parsed from JSON text, so its values are JSON values.
  return { values: parsed as Values }
}

/**
 * `KEY=VALUE` lines: LF or CRLF ends a line (the CR is not the value's),
 * blank lines and lines starting with `#` are skipped, the key is trimmed
 * and the value is everything after the first `=`, exactly: no quotes
 * removed, no escapes read. A line without `=`, an empty key, or a key
 * given twice is refused, naming its line.
 * @internal
 */
export function parseKeyValueLines(text: string): ParsedValues {
  const values = new Map<string, string>()
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.replace(/\r$/, '')
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue
    const pair = splitNameValue(line)
    if ('missing' in pair) {
      return { problem: `has ${pair.missing === '=' ? "no '='" : 'an empty key'} on line ${i + 1}` }
    }
    if (values.has(pair.name)) {
      return { problem: `has the key ${quoteKey(pair.name)} twice (line ${i + 1})` }
    }
    values.set(pair.name, pair.value)
  }
  // Own properties, never the prototype's setter: `__proto__` stays a key.
  return { values: Object.fromEntries(values) }
}

/** A key for a message: JSON-quoted (control characters escaped), at most 60 characters. */
function quoteKey(key: string): string {
  return JSON.stringify(cut(key, 60))
}

/** What reading the file gave: the values (`{}` when it could not be read) and the problem, if any. */
export interface ValuesOutcome {
  values: Values
  /** Why the values are `{}`: a warning, or with `required` the step's failure. */
  problem?: string
  /** `values-file-required`: the problem fails the step (report.ts productProblems) rather than warn. */
  required?: boolean
}

/**
 * Reads `path` among the build's artifacts (one request, at most
 * MAX_VALUES_BYTES of it) and parses it. Never throws but for the step's
 * own cancel: every failure is `{}` and one warning, or with `required`
 * the problem the step fails with once it has reported the build.
 */
export async function readValues(
  api: Pick<BuildOutputsApi, 'readArtifact'>,
  ref: BuildRef,
  path: string,
  logger: Logger,
  { required = false }: { required?: boolean } = {}
): Promise<ValuesOutcome> {
  const what = `values-file '${path}' of build #${ref.number} of ${fullName(ref.job)}`
  const parsed = await api.readArtifact(ref, path, MAX_VALUES_BYTES).then(
    (read): ParsedValues =>
      'tooLarge' in read
        ? { problem: 'is larger than 1 MiB, so it was not read' }
        : parseValues(path, read.bytes),
    (error: unknown) => {
      // The step's own cancel or deadline ends the step, not just the values.
      if (!(error instanceof JenkinsError) || error instanceof Interrupted) throw error
      if (error.kind !== 'not-found') return { problem: `could not be read (${error.message})` }
      return { problem: 'was not archived by the build (404)' }
    }
  )
  if ('values' in parsed) {
    logger.info(`Read ${Object.keys(parsed.values).length} values from the ${what}.`)
    return { values: parsed.values }
  }
  const and = required ? ', and values-file-required is true' : ''
  const message = `The ${what} ${parsed.problem}${and}: the values output is {}.`
  if (!required) logger.warning(message)
  return { values: {}, problem: message, ...(required && { required }) }
}
