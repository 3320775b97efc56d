import type { summary as coreSummary } from '@actions/core'
import type { StepIO } from '../runner/io.js'
import { plainConsoleLine } from '../util/console-line.js'
import { Output, type BuildResult } from '../util/constants.js'
import type { ArtifactsOutcome } from './artifacts.js'
import type { Build, BuildParameters, JsonValue, PipelineStage } from '../jenkins/model/types.js'
import { parameterValues } from '../jenkins/reads/decode.js'
import { formatDuration } from '../util/duration.js'
import { addHistory, historyOutput, type HistoryEntry } from './history.js'
import { escapeHtml, link } from '../util/html.js'
import { cut } from '../util/shorten.js'
import { countOf, shownValue } from '../jenkins/model/counts.js'
import type { Logger } from '../util/logger.js'
import { shortName } from '../util/names.js'
import { cappedArray } from './output-cap.js'
import { formatBytes, kib } from '../util/bytes.js'
import type { UploadFile } from '../jenkins/transport/multipart.js'
import { STAGES_OUTPUT_MAX_BYTES, stagesOutput } from './stages.js'
import { addArtifacts, addFailedTests, addStages, addUnread } from './summary-sections.js'
import { addTimeline } from './summary-timeline.js'
import type { TestsOutcome } from './test-report.js'
import { addValues, type ValuesOutcome } from './values.js'
import { errorText } from '../util/error-text.js'

/** Everything the action learned about the build, for outputs, the job summary and the failure message. */
export interface BuildOutcome {
  /** Full name, e.g. 'team/service/deploy'. */
  jobName: string
  jobUrl: string
  queueUrl?: string
  /** The final (or latest) build JSON. */
  build?: Build
  /** The build's URL rebased onto the configured base. */
  buildUrl?: string
  /** The parameters the user asked for; the build's own ParametersAction wins in the summary. */
  parameters?: BuildParameters
  /** The files uploaded to file parameters (`files`): Jenkins exports only a file parameter's name, the summary shows these. */
  uploads?: readonly UploadedFile[]
  /** From queue entry to start. */
  queueWaitMs?: number
  /** The build's test report (JUnit plugin): counts and the failed tests found. */
  tests?: TestsOutcome
  /** A Pipeline's stages; [] when Jenkins has no Stage View plugin. */
  stages?: PipelineStage[]
  /** The job's last finished builds before this one, newest first (from the job read). */
  history?: HistoryEntry[]
  /** The stage the build's result came from, for the failure message. */
  failedStage?: string
  /** What the `values-file` held, once the build ended. */
  values?: ValuesOutcome
  /** What the `artifacts` input downloaded. */
  artifacts?: ArtifactsOutcome
  /** Parts of the outcome (test report, stages, artifacts list) that could not be read, and why: notices, never the verdict. */
  unread?: string[]
  result?: BuildResult
  /** Whether the result is one of the `accept` input's. */
  accepted?: boolean
  /** The `accept` input, when the failure message should name it. */
  accept?: readonly BuildResult[]
  /** e.g. 'Did not wait for the build to finish (wait: started)'. */
  note?: string
}

/** A file uploaded to a file parameter, as the summary names it. */
type UploadedFile = Pick<UploadFile, 'name' | 'fileName' | 'size'>

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
  const sizes = Object.entries(build)
    .map(([key, value]) => ({ key, bytes: Buffer.byteLength(JSON.stringify(value) ?? '') }))
    .sort((a, b) => b.bytes - a.bytes)
  const kept: Record<string, unknown> = { ...build }
  const dropped: string[] = []
  let bytes = fullBytes
  for (const { key, bytes: size } of sizes) {
    if (bytes <= maxBytes) break
    delete kept[key]
    dropped.push(key)
    // "key":value plus a comma; re-measured below where it matters.
    bytes -= size + Buffer.byteLength(JSON.stringify(key)) + 2
  }
  let cut = JSON.stringify(kept)
  while (Buffer.byteLength(cut) > maxBytes && Object.keys(kept).length > 0) {
    const next = sizes.find(s => s.key in kept)
    if (!next) break
    delete kept[next.key]
    dropped.push(next.key)
    cut = JSON.stringify(kept)
  }
  return { json: cut, dropped, fullBytes }
}

/** What the step reports of one build, for outputs, the summary and the verdict (with `jobs`, one item's). */
export interface BuildReport {
  outcome: BuildOutcome
  /** Why it could not be followed to its end (cancelled in the queue, refused, gone). */
  error?: string
  /** What the step did to it for fail-fast, when it did (stopped, cancelled in the queue): reported as such, not as a failure of its own. */
  stopped?: string
  /** Why the step stopped following it and left it running (fail-fast, shared with another request): not a failure. */
  left?: string
  /** The console's last lines, for a failed build. */
  tail: string[]
}

/** The output values of one build: the step's outputs of one `job`, and one entry of the `builds` output of `jobs`. */
export interface BuildEntry {
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

/** The one function that turns a build's outcome into its output values (null where unknown). duration and result only once the build is over. */
export function buildEntry(outcome: BuildOutcome): BuildEntry {
  const build = outcome.build
  const ended = build !== undefined && !build.building
  return {
    job: outcome.jobName,
    number: build?.number ?? numberOf(outcome.buildUrl) ?? null,
    url: outcome.buildUrl ?? null,
    result: outcome.result ?? (ended ? build.result : null),
    // Jenkins reports duration 0 while a build runs (jenkins-api.md 5.2).
    duration: ended ? (build.duration ?? null) : null,
    queueUrl: outcome.queueUrl ?? null,
    description: build?.description ?? null,
    displayName: build?.displayName ?? null,
    parameters: build ? parameterValues(build.parameters) : null,
    values: outcome.values?.values ?? null
  }
}

/**
 * Sets every output of one build (buildEntry, and what only one build has:
 * its JSON, job URL, tests, stages, history, artifacts). A `build` output
 * over its cap is cut (buildOutput) with a warning that says what was left
 * out and where the whole is.
 */
export function setBuildOutputs(
  out: Pick<StepIO, 'setOutput'>,
  outcome: BuildOutcome,
  logger?: Logger
): void {
  const build = outcome.build
  const entry = buildEntry(outcome)
  if (entry.result) out.setOutput(Output.Result, entry.result)
  if (entry.number !== null) out.setOutput(Output.BuildNumber, String(entry.number))
  if (entry.url) out.setOutput(Output.BuildUrl, entry.url)
  if (entry.duration !== null) out.setOutput(Output.Duration, String(entry.duration))
  else if (build && !build.building) {
    logger?.warning(
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
      logger?.warning(
        `The build output holds ${kib(fullBytes)} of JSON, over its cap of ${kib(BUILD_OUTPUT_MAX_BYTES)}: it leaves out ${dropped.join(', ')}. The whole build is at ${outcome.buildUrl ?? 'the build URL'}api/json.`
      )
    }
  }
  out.setOutput(Output.JobUrl, outcome.jobUrl)
  if (outcome.tests) {
    out.setOutput(Output.TestsTotal, String(outcome.tests.counts.total))
    out.setOutput(Output.TestsFailed, String(outcome.tests.counts.failed))
    out.setOutput(Output.TestsSkipped, String(outcome.tests.counts.skipped))
  }
  if (outcome.stages) {
    const { json, kept, fullBytes } = stagesOutput(outcome.stages)
    out.setOutput(Output.Stages, json)
    if (kept < outcome.stages.length) {
      logger?.warning(
        `The stages output would hold ${kib(fullBytes)} of JSON, over its cap of ${kib(STAGES_OUTPUT_MAX_BYTES)}: it lists the first ${kept} of ${outcome.stages.length} stages. All stages are at ${outcome.buildUrl ?? 'the build URL'}wfapi/describe.`
      )
    }
  }
  if (outcome.history) out.setOutput(Output.History, historyOutput(outcome.history))
  if (outcome.artifacts) setArtifactsOutput(out, outcome.artifacts, logger)
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
export function setArtifactsOutput(
  out: Pick<StepIO, 'setOutput'>,
  artifacts: Pick<ArtifactsOutcome, 'written' | 'folder'>,
  logger?: Logger
): void {
  const { json, kept, fullBytes } = cappedArray(artifacts.written, ARTIFACTS_OUTPUT_MAX_BYTES)
  out.setOutput(Output.Artifacts, json)
  if (kept < artifacts.written.length) {
    logger?.warning(
      `The artifacts output would hold ${kib(fullBytes)} of JSON, over its cap of ${kib(ARTIFACTS_OUTPUT_MAX_BYTES)}: it lists the first ${kept} of ${artifacts.written.length} files. All of them are in ${artifacts.folder}.`
    )
  }
}

/** The symbol shown before a result (summary, pull request comment). */
export const RESULT_ICONS: Record<BuildResult, string> = {
  SUCCESS: '✅',
  UNSTABLE: '⚠️',
  FAILURE: '❌',
  ABORTED: '⛔',
  NOT_BUILT: '⚪'
}

const MAX_PARAMETERS = 50
const MAX_VALUE_CHARS = 200
const MAX_NOTE_CHARS = 1000
/** Parameter names whose values are never shown. Over-matching (MONKEY) only hides a harmless value. */
const SECRET_NAME = /PASS|PWD|TOKEN|SECRET|KEY|CREDENTIAL|PRIVATE|AUTH/i
const HIDDEN = '***'
/** A file parameter of a build this step did not upload to (`build: last`): Jenkins does not say which file. */
const FILE_UNKNOWN = '(a file)'

type Summary = typeof coreSummary

/**
 * Writes the job summary (`fill`), or if it cannot be written (no
 * GITHUB_STEP_SUMMARY), warns and returns: never throws.
 */
export async function writeSummaryWith(
  summary: Summary,
  logger: Logger,
  fill: (summary: Summary) => void
): Promise<void> {
  try {
    fill(summary)
    await summary.write()
  } catch (error) {
    summary.emptyBuffer()
    logger.warning(`Could not write the job summary: ${errorText(error)}`)
  }
}

/** The job summary of one `job`: its build's section (addBuildSection). Never throws. */
export function writeSummary(
  summary: Summary,
  outcome: BuildOutcome,
  logger: Logger
): Promise<void> {
  return writeSummaryWith(summary, logger, s => addBuildSection(s, { outcome, tail: [] }))
}

/** Whether a build counts against the step: not accepted, never followed to a result, or stopped by fail-fast. */
export function didNotPass(report: BuildReport): boolean {
  return (
    report.outcome.accepted === false || report.error !== undefined || report.stopped !== undefined
  )
}

const TAIL_IN_SUMMARY = 20

/**
 * The one writer of a build's section of the job summary. Alone (one
 * `job`, the whole summary): the job, a table (result, build, display name,
 * description, duration, queue wait, tests), its products, the parameters
 * (secret-looking ones hidden) and the note. As an item of `jobs` (below
 * the table that has its result and duration): the build, what the step
 * did to it, what it said of itself and its values; the products and last
 * console lines too when it did not pass; nothing when there is nothing
 * to say of a build that passed. Everything from Jenkins or the user is
 * escaped: plain text, never HTML.
 */
export function addBuildSection(
  summary: Summary,
  report: BuildReport,
  options: { item?: boolean } = {}
): void {
  const { outcome } = report
  const alone = options.item !== true
  const full = alone || didNotPass(report)
  const rows = alone ? summaryRows(outcome) : factRows(outcome.build)
  if (!full && rows.length === 0 && !outcome.values && !outcome.unread) return
  // Below the section's heading, so that the outline, and what a cut summary says it left out, is per build.
  const sub = alone ? 3 : 4
  if (alone) summary.addHeading(`Jenkins ${link(shortName(outcome.jobName), outcome.jobUrl)}`, 2)
  else {
    const number = buildEntry(outcome).number
    const job = shortName(outcome.jobName)
    const title = number === null ? job : `${job} #${number}`
    summary.addHeading(
      `${link(title, outcome.buildUrl ?? outcome.jobUrl)}: ${escapeHtml(outcome.result ?? 'no result')}`,
      3
    )
    const notes = [report.error, report.stopped, report.left, outcome.note].filter(
      (n): n is string => !!n
    )
    if (notes.length > 0) {
      summary.addRaw(`<p>${escapeHtml(cut(notes.join(' '), MAX_NOTE_CHARS))}</p>`, true)
    }
  }
  if (rows.length > 0) {
    summary.addTable(rows.map(([key, value]) => [{ data: key, header: true }, value]))
  }
  if (full) {
    if (outcome.history) addHistory(summary, outcome.history)
    if (outcome.tests) addFailedTests(summary, outcome.tests, sub)
    if (outcome.stages) addStages(summary, outcome.stages, sub)
    // Several builds share one chart (multi/report.ts).
    if (outcome.stages && alone) addTimeline(summary, [{ stages: outcome.stages }])
    if (outcome.artifacts) addArtifacts(summary, outcome.artifacts, sub)
  }
  if (outcome.values) addValues(summary, outcome.values, sub)
  if (outcome.unread) addUnread(summary, outcome.unread)
  if (alone) {
    addParameters(summary, outcome)
    if (outcome.note) {
      summary.addRaw(`<p>${escapeHtml(cut(outcome.note, MAX_NOTE_CHARS))}</p>`, true)
    }
    return
  }
  const tail = report.stopped || !full ? [] : report.tail.slice(-TAIL_IN_SUMMARY)
  if (tail.length > 0) {
    summary.addRaw(
      `<details><summary>Last ${tail.length} console lines</summary><pre>${tail.map(line => escapeHtml(cut(line, 500))).join('<br>')}</pre></details>`,
      true
    )
  }
}

/** The table of one build alone: result, build, what it said of itself, duration, queue, tests. */
function summaryRows(outcome: BuildOutcome): [string, string][] {
  const build = outcome.build
  const rows: [string, string][] = [['Result', resultCell(outcome)]]
  if (build) {
    rows.push(['Build', link(`#${build.number}`, outcome.buildUrl)])
    rows.push(...factRows(build))
    rows.push(['Duration', build.building ? 'running' : escapeHtml(formatDuration(build.duration))])
  } else if (outcome.queueUrl) {
    rows.push(['Queue item', link(outcome.queueUrl, outcome.queueUrl)])
  }
  if (outcome.queueWaitMs !== undefined) {
    rows.push(['Queue wait', escapeHtml(formatDuration(outcome.queueWaitMs))])
  }
  if (outcome.tests) {
    const { total, failed, skipped } = outcome.tests.counts
    rows.push(['Tests', `${total} total / ${failed} failed / ${skipped} skipped`])
  }
  return rows
}

/** Rows for what the build said of itself: its own display name and its description, as inert text. */
function factRows(build: Build | undefined): [string, string][] {
  const rows: [string, string][] = []
  if (!build) return rows
  if (build.displayName !== `#${build.number}`) {
    rows.push(['Display name', escapeHtml(cut(build.displayName, MAX_VALUE_CHARS))])
  }
  // Shown as text, never as HTML, whatever markup formatter Jenkins has.
  if (build.description !== '') {
    rows.push(['Description', escapeHtml(cut(build.description, MAX_NOTE_CHARS))])
  }
  return rows
}

/** The parameters the build ran with (or the user asked for), at most 50, secrets hidden. */
function addParameters(summary: Summary, outcome: BuildOutcome): void {
  const parameters = parametersOf(outcome)
  if (parameters.length === 0) return
  summary.addHeading('Parameters', 3)
  const shown = parameters.slice(0, MAX_PARAMETERS)
  summary.addTable([
    [
      { data: 'Name', header: true },
      { data: 'Value', header: true }
    ],
    ...shown.map(p => [
      `<code>${escapeHtml(cut(p.name, 100))}</code>`,
      p.value === HIDDEN ? HIDDEN : escapeHtml(cut(p.value, MAX_VALUE_CHARS)) || '&nbsp;'
    ])
  ])
  if (parameters.length > shown.length) {
    summary.addRaw(`<p>… and ${parameters.length - shown.length} more.</p>`, true)
  }
}

/** The result, with its icon and whether `accept` takes it; running or not started when there is none. */
export function resultCell(outcome: BuildOutcome): string {
  const build = outcome.build
  const result = outcome.result ?? (build && !build.building ? build.result : null) ?? undefined
  if (!result) {
    if (build?.building) return '⏳ running'
    return build ? 'no result' : '⏳ not started'
  }
  const icon = RESULT_ICONS[result] ?? ''
  const verdict =
    outcome.accepted === false
      ? ' (not accepted)'
      : outcome.accepted && result !== 'SUCCESS'
        ? ' (accepted)'
        : ''
  return `${icon} ${escapeHtml(result)}${verdict}`
}

interface ShownParameter {
  name: string
  value: string
}

/**
 * What the build ran with (its ParametersAction), else what the user asked
 * for and the files uploaded. Secrets hidden.
 */
function parametersOf(outcome: BuildOutcome): ShownParameter[] {
  const uploads = outcome.uploads ?? []
  const fromBuild = buildParameters(outcome.build, uploads)
  if (fromBuild) return fromBuild
  const asked = Object.entries(outcome.parameters ?? {}).map(([name, value]) => ({
    name,
    value: SECRET_NAME.test(name)
      ? HIDDEN
      : typeof value === 'string'
        ? value
        : (value as readonly string[]).join(', ')
  }))
  const files = uploads.map(file => ({
    name: file.name,
    value: SECRET_NAME.test(file.name) ? HIDDEN : uploadText(file)
  }))
  return [...asked, ...files]
}

/** A file parameter's cell: the file's name and size (`app.zip (293 KiB)`). */
function uploadText(file: UploadedFile): string {
  return `${file.fileName} (${formatBytes(file.size)})`
}

/** The build's decoded ParametersAction (jenkins/reads), for the table; a file parameter shows the file this step uploaded, if it did. */
function buildParameters(
  build: Build | undefined,
  uploads: readonly UploadedFile[]
): ShownParameter[] | undefined {
  return build?.parameters?.map(({ name, value, password, file }) => {
    // A file parameter exports its name only (jenkins-api.md 11.3).
    const upload = file === true && value === undefined
    const uploaded = upload ? uploads.find(u => u.name === name) : undefined
    const text = uploaded ? uploadText(uploaded) : upload ? FILE_UNKNOWN : parameterText(value)
    return { name, value: password || SECRET_NAME.test(name) ? HIDDEN : text }
  })
}

function parameterText(value: unknown): string {
  if (value === undefined || value === null) return ''
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return JSON.stringify(value) ?? ''
}

const TAIL_LINES = 30
const TAIL_BYTES = 4 * 1024

/**
 * The failure annotation: what finished how, where, and the console's last
 * lines (at most 30 lines / 4 KiB), so the cause shows without opening the log.
 */
export function failureMessage(outcome: BuildOutcome, tail: string[]): string {
  const build = outcome.build
  const result = outcome.result ?? build?.result ?? undefined
  let head: string
  if (!build) {
    head = `Jenkins job ${shortName(outcome.jobName)} did not start a build`
  } else if (build.building && !outcome.result) {
    head = `Jenkins build ${shortName(outcome.jobName)} #${build.number} did not finish`
  } else {
    head = `Jenkins build ${shortName(outcome.jobName)} #${build.number} finished ${result ?? 'without a result'}`
    if (outcome.failedStage) head += ` in stage '${shortName(outcome.failedStage)}'`
  }
  if (outcome.accept && outcome.accept.length > 0)
    head += ` (accepted: ${outcome.accept.join(', ')})`
  const url = outcome.buildUrl ?? (build ? undefined : outcome.queueUrl)
  if (url) head += ` — ${url}`
  const lines = [head]
  if (outcome.note) lines.push(outcome.note)
  const last = lastLines(tail)
  if (last.length > 0) lines.push(`Last ${last.length} console lines:`, ...last)
  return lines.join('\n')
}

function lastLines(tail: string[]): string[] {
  const kept: string[] = []
  let bytes = 0
  for (let i = tail.length - 1; i >= 0 && kept.length < TAIL_LINES; i--) {
    let line = plainConsoleLine(tail[i] ?? '')
    if (kept.length === 0 && line.trim() === '') continue
    const size = Buffer.byteLength(line) + 1
    if (bytes + size > TAIL_BYTES) {
      if (kept.length > 0) break
      line =
        '…' +
        Buffer.from(line)
          .subarray(-(TAIL_BYTES - 8))
          .toString('utf8')
          .replace(/^\uFFFD+/, '')
    }
    bytes += Buffer.byteLength(line) + 1
    kept.unshift(line)
  }
  return kept
}
