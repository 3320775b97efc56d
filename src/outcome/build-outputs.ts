/**
 * The step's outputs, each written here once for one `job` and `jobs`
 * (setOutputs): buildEntry turns a build's outcome into its output values,
 * the one build's own outputs or each entry of `builds`; what only one
 * build has (its JSON, stages, history) is capped here too.
 */
import type { StepIO } from '../runner/io.js'
import { BUILD_RESULTS, Output, type BuildResult } from '../util/constants.js'
import { parameterValues } from '../jenkins/reads/decode.js'
import { countOf, isCount, shownValue } from '../jenkins/model/counts.js'
import type { Logger } from '../util/logger.js'
import { kib } from '../util/bytes.js'
import { cut } from '../util/shorten.js'
import type { BuildOutcome, BuildReport } from './report.js'

/**
 * Cap of the `build` output, in UTF-8 bytes (action.yml, README). GitHub
 * allows 1 MB of job outputs per job, counted as UTF-16 (two bytes a
 * character for JSON's ASCII): 256 KiB of JSON is half of that, so the
 * output can still be passed on as a job output beside the others. Build
 * JSON is a few KB; what exceeds this is long change logs or many actions.
 * @internal
 */
export const BUILD_OUTPUT_MAX_BYTES = 256 * 1024

/**
 * The `build` output: the build JSON within BUILD_OUTPUT_MAX_BYTES. When it is too
 * large, whole top-level fields are left out (`dropped`), largest first,
 * until it fits: the output stays valid JSON with Jenkins' own field names,
 * and what is there is complete. `fullBytes`: the whole JSON's size.
 * @internal
 */
export function buildOutput(build: Readonly<Record<string, unknown>>) {
  const json = JSON.stringify(build)
  const fullBytes = Buffer.byteLength(json)
  if (fullBytes <= BUILD_OUTPUT_MAX_BYTES) return { json, dropped: [], fullBytes }
  const kept: Record<string, unknown> = { ...build }
  const dropped: string[] = []
  const largestFirst = Object.entries(build)
    .map(([key, value]) => ({ key, bytes: Buffer.byteLength(JSON.stringify(value) ?? '') }))
    .sort((a, b) => b.bytes - a.bytes)
  let cut = json
  for (const { key } of largestFirst) {
    if (Buffer.byteLength(cut) <= BUILD_OUTPUT_MAX_BYTES) break
    delete kept[key]
    dropped.push(key)
    cut = JSON.stringify(kept)
  }
  return { json: cut, dropped, fullBytes }
}

/** What an item's outputs are made of: its build's outcome and its own values. */
export type BuildView = Pick<BuildReport, 'outcome' | 'values'>

/** The build's number once known (from the end of its URL, `…/job/x/12/`, before it is read); null before. */
export function buildNumber({ build, buildUrl }: BuildOutcome): number | null {
  return build?.number ?? countOf(buildUrl ? /\/(\d+)\/?$/.exec(buildUrl)?.[1] : undefined) ?? null
}

/**
 * The one function that turns a build's outcome into its output values
 * (null where unknown): the step's outputs of one `job`, and one entry of
 * the `builds` output of `jobs`. duration and result only once the build is
 * over; what it said of itself only once it started; `values` what its
 * `values-file` held, once it ended.
 * @internal
 */
export function buildEntry({ outcome, values }: BuildView) {
  const build = outcome.build
  const ended = build !== undefined && !build.building
  return {
    job: outcome.jobName,
    number: buildNumber(outcome),
    url: outcome.buildUrl ?? null,
    result: outcome.result ?? (ended ? build.result : null),
    // Jenkins reports duration 0 while a build runs (jenkins-api.md 5.2).
    duration: ended ? (build.duration ?? null) : null,
    queueUrl: outcome.queueUrl ?? null,
    description: build?.description ?? null,
    displayName: build?.displayName ?? null,
    parameters: build ? parameterValues(build.parameters) : null,
    values: values?.values ?? null
  }
}

/**
 * The step's outputs from its items' reports (one `job`: one report):
 * `result` the worst, `tests-*` the counts summed over the builds that have
 * a report, `artifacts` every file downloaded; with `several`, `builds`
 * (each buildEntry, in the order given), else the one build's own outputs.
 */
export function setOutputs(
  out: Pick<StepIO, 'setOutput'>,
  reports: readonly BuildView[],
  logger: Logger,
  { several }: { several: boolean }
): void {
  const entries = reports.map(buildEntry)
  const worst = worstResult(entries.map(entry => entry.result))
  if (worst) out.setOutput(Output.Result, worst)
  const tests = reports.flatMap(({ outcome }) => (outcome.tests ? [outcome.tests.counts] : []))
  for (const [key, name] of TEST_COUNTS) {
    if (tests.length === 0) break
    // Counts each within the safe range can sum past it: such a sum is not set.
    const total = tests.reduce((n, counts) => n + counts[key], 0)
    if (isCount(total)) out.setOutput(name, String(total))
    else
      logger.warning(`The ${name} output is not set: the sum of the builds' counts is too large.`)
  }
  const artifacts = reports.flatMap(({ outcome }) => outcome.artifacts ?? [])
  if (artifacts.length > 0) {
    const folders = [...new Set(artifacts.map(a => a.folder))]
    setCappedArray(out, logger, {
      name: Output.Artifacts,
      entries: artifacts.flatMap(a => a.written),
      what: 'files',
      whole: `All of them are in ${cut(folders.join(', '), 500)}.`
    })
  }
  const [one] = reports
  if (several) out.setOutput(Output.Builds, JSON.stringify(entries))
  else if (one) setOneBuildOutputs(out, one, logger)
}

const TEST_COUNTS = [
  ['total', Output.TestsTotal],
  ['failed', Output.TestsFailed],
  ['skipped', Output.TestsSkipped]
] as const

/**
 * The worst of the results by Jenkins' order (Result.ordinal: SUCCESS < UNSTABLE < FAILURE < NOT_BUILT < ABORTED).
 * @internal
 */
export function worstResult(
  results: ReadonlyArray<BuildResult | null | undefined>
): BuildResult | undefined {
  return BUILD_RESULTS.findLast(result => results.includes(result))
}

/**
 * What only one build has: its number, URL, duration, JSON, job URL,
 * stages, history and values. A `build` output over its cap is cut
 * (buildOutput) with a warning that says what was left out and where the whole is.
 */
function setOneBuildOutputs(out: Pick<StepIO, 'setOutput'>, one: BuildView, logger: Logger): void {
  const { outcome } = one
  const build = outcome.build
  const entry = buildEntry(one)
  if (entry.number !== null) out.setOutput(Output.BuildNumber, String(entry.number))
  if (entry.url) out.setOutput(Output.BuildUrl, entry.url)
  if (entry.duration !== null) out.setOutput(Output.Duration, String(entry.duration))
  else if (build && !build.building) {
    logger.warning(
      `Ignored the duration Jenkins gave build #${build.number} (${shownValue(build.json.duration)}): not a whole number of milliseconds. The duration output is not set.`
    )
  }
  if (entry.queueUrl) out.setOutput(Output.QueueUrl, entry.queueUrl)
  if (build) {
    // Jenkins' text, set exactly as it is: an output is never a command.
    out.setOutput(Output.Description, build.description)
    out.setOutput(Output.DisplayName, build.displayName)
    out.setOutput(Output.BuildParameters, JSON.stringify(entry.parameters))
    const { json, dropped, fullBytes } = buildOutput(build.json)
    out.setOutput(Output.Build, json)
    if (dropped.length > 0) {
      logger.warning(
        `The build output holds ${kib(fullBytes)} of JSON, over its cap of ${kib(BUILD_OUTPUT_MAX_BYTES)}: it leaves out ${dropped.join(', ')}. The whole build is at ${outcome.buildUrl ?? 'the build URL'}api/json.`
      )
    }
  }
  out.setOutput(Output.JobUrl, outcome.jobUrl)
  if (outcome.stages) {
    setCappedArray(out, logger, {
      name: Output.Stages,
      entries: outcome.stages.map(({ name, status, durationMillis }) => ({
        name,
        status,
        durationMillis
      })),
      what: 'stages',
      whole: `All stages are at ${outcome.buildUrl ?? 'the build URL'}wfapi/describe.`
    })
  }
  if (outcome.history) out.setOutput(Output.History, JSON.stringify(outcome.history))
  if (entry.values) out.setOutput(Output.Values, JSON.stringify(entry.values))
}

/**
 * Cap of each of the `artifacts` and `stages` outputs, in UTF-8 bytes
 * (action.yml, README): about 1,000 paths (the files are on disk whatever
 * the output lists), or some 900 stages of usual names (about 70 bytes
 * each). With `build` (256 KiB) they stay well within GitHub's 1 MB for all
 * of a job's outputs, counted as UTF-16.
 * @internal
 */
export const ARRAY_OUTPUT_MAX_BYTES = 64 * 1024

/** A JSON array output within ARRAY_OUTPUT_MAX_BYTES (cappedArray); when cut, a warning says how many `what` it lists and where all are (`whole`). */
function setCappedArray(
  out: Pick<StepIO, 'setOutput'>,
  logger: Logger,
  options: {
    name: Output
    entries: readonly unknown[]
    what: string
    whole: string
  }
): void {
  const { name, entries } = options
  const { json, kept, fullBytes } = cappedArray(entries, ARRAY_OUTPUT_MAX_BYTES)
  out.setOutput(name, json)
  if (kept < entries.length) {
    logger.warning(
      `The ${name} output would hold ${kib(fullBytes)} of JSON, over its cap of ${kib(ARRAY_OUTPUT_MAX_BYTES)}: it lists the first ${kept} of ${entries.length} ${options.what}. ${options.whole}`
    )
  }
}

/**
 * `entries` as a JSON array of at most `maxBytes` UTF-8 bytes: the first
 * entries that fit, each whole, so that it stays valid JSON; `kept` of
 * them, and the size of the whole array as JSON (`fullBytes`). GitHub
 * allows 1 MB for all of a job's outputs together (counted as UTF-16): a
 * list Jenkins makes long (stages, archived files) must not take it all.
 * @internal
 */
export function cappedArray(entries: readonly unknown[], maxBytes: number) {
  const texts = entries.map(entry => JSON.stringify(entry) ?? 'null')
  let fullBytes = 2
  let bytes = 2
  let kept = 0
  texts.forEach((text, i) => {
    const size = Buffer.byteLength(text) + (i > 0 ? 1 : 0)
    fullBytes += size
    if (kept === i && bytes + size <= maxBytes) {
      bytes += size
      kept++
    }
  })
  return { json: `[${texts.slice(0, kept).join(',')}]`, kept, fullBytes }
}
