/**
 * The step's outputs, each written here once for one `job` and `jobs`
 * (setOutputs): buildEntry turns a build's outcome into its output values,
 * the one build's own outputs or each entry of `builds`; what only one
 * build has (its JSON, stages, history) is capped here too.
 */
import type { StepIO } from '../runner/io.js'
import { BUILD_RESULTS, Output, type BuildResult } from '../util/constants.js'
import type { ArtifactsOutcome } from './artifacts.js'
import type { JsonValue } from '../jenkins/model/types.js'
import { parameterValues } from '../jenkins/reads/decode.js'
import { countOf, isCount, shownValue } from '../jenkins/model/counts.js'
import { historyOutput } from './history.js'
import type { Logger } from '../util/logger.js'
import { cappedArray } from './output-cap.js'
import { kib } from '../util/bytes.js'
import { cut } from '../util/shorten.js'
import { STAGES_OUTPUT_MAX_BYTES, stagesOutput } from './stages.js'
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
 * The `build` output: the build JSON, or within the cap, the build without its largest fields.
 * @internal
 */
export interface BuildOutput {
  json: string
  /** Top-level fields left out to fit, largest first; empty when nothing was cut. */
  dropped: string[]
  /** Size of the whole JSON, in bytes. */
  fullBytes: number
}

/**
 * The build JSON within `maxBytes`. When it is too large, whole top-level
 * fields are left out, largest first, until it fits: the output stays valid
 * JSON with Jenkins' own field names, and what is there is complete.
 * @internal
 */
export function buildOutput(
  build: Readonly<Record<string, unknown>>,
  maxBytes = BUILD_OUTPUT_MAX_BYTES
): BuildOutput {
  const json = JSON.stringify(build)
  const fullBytes = Buffer.byteLength(json)
  if (fullBytes <= maxBytes) return { json, dropped: [], fullBytes }
  const kept: Record<string, unknown> = { ...build }
  const dropped: string[] = []
  const largestFirst = Object.entries(build)
    .map(([key, value]) => ({ key, bytes: Buffer.byteLength(JSON.stringify(value) ?? '') }))
    .sort((a, b) => b.bytes - a.bytes)
  let cut = json
  for (const { key } of largestFirst) {
    if (Buffer.byteLength(cut) <= maxBytes) break
    delete kept[key]
    dropped.push(key)
    cut = JSON.stringify(kept)
  }
  return { json: cut, dropped, fullBytes }
}

/** The output values of one build: the step's outputs of one `job`, and one entry of the `builds` output of `jobs`. */
interface BuildEntry {
  job: string
  number: number | null
  url: string | null
  result: BuildResult | null
  duration: number | null
  queueUrl: string | null
  /** What the build said of itself; null before it started. */
  description: string | null
  displayName: string | null
  parameters: Record<string, JsonValue> | null
  /** What its `values-file` held; null without one, or before the build ended. */
  values: Record<string, JsonValue> | null
}

/** What an item's outputs are made of: its build's outcome and its own values. */
export type BuildView = Pick<BuildReport, 'outcome' | 'values'>

/** The build's number once known (from its URL before it is read); null before. */
export function buildNumber(outcome: BuildOutcome): number | null {
  return outcome.build?.number ?? numberOf(outcome.buildUrl) ?? null
}

/**
 * The one function that turns a build's outcome into its output values (null where unknown). duration and result only once the build is over.
 * @internal
 */
export function buildEntry({ outcome, values }: BuildView): BuildEntry {
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
    const written = artifacts.flatMap(a => a.written)
    setArtifactsOutput(out, { written, folder: cut(folders.join(', '), 500) }, logger)
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
  let worst: BuildResult | undefined
  for (const result of results) {
    if (result === null || result === undefined) continue
    if (worst === undefined || BUILD_RESULTS.indexOf(result) > BUILD_RESULTS.indexOf(worst)) {
      worst = result
    }
  }
  return worst
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
    const { json, kept, fullBytes } = stagesOutput(outcome.stages)
    out.setOutput(Output.Stages, json)
    if (kept < outcome.stages.length) {
      logger.warning(
        `The stages output would hold ${kib(fullBytes)} of JSON, over its cap of ${kib(STAGES_OUTPUT_MAX_BYTES)}: it lists the first ${kept} of ${outcome.stages.length} stages. All stages are at ${outcome.buildUrl ?? 'the build URL'}wfapi/describe.`
      )
    }
  }
  if (outcome.history) out.setOutput(Output.History, historyOutput(outcome.history))
  if (entry.values) out.setOutput(Output.Values, JSON.stringify(entry.values))
}

/** The number at the end of a build URL (`…/job/x/12/`), for a build known by its URL before it is read. */
function numberOf(url: string | undefined): number | undefined {
  return countOf(url ? /\/(\d+)\/?$/.exec(url)?.[1] : undefined)
}

/**
 * Cap of the `artifacts` output, in UTF-8 bytes: about 1,000 paths. The
 * files are on disk whatever the output lists.
 * @internal
 */
export const ARTIFACTS_OUTPUT_MAX_BYTES = 64 * 1024

/** The `artifacts` output: the paths written, capped (cappedArray) with a warning. */
function setArtifactsOutput(
  out: Pick<StepIO, 'setOutput'>,
  artifacts: Pick<ArtifactsOutcome, 'written' | 'folder'>,
  logger: Logger
): void {
  const { json, kept, fullBytes } = cappedArray(artifacts.written, ARTIFACTS_OUTPUT_MAX_BYTES)
  out.setOutput(Output.Artifacts, json)
  if (kept < artifacts.written.length) {
    logger.warning(
      `The artifacts output would hold ${kib(fullBytes)} of JSON, over its cap of ${kib(ARTIFACTS_OUTPUT_MAX_BYTES)}: it lists the first ${kept} of ${artifacts.written.length} files. All of them are in ${artifacts.folder}.`
    )
  }
}
