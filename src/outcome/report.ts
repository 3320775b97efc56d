/**
 * The one writer of the job summary, for one `job` and `jobs` alike: each
 * build's section (addBuildSection) and its parts (failed tests, stages,
 * artifacts, history, values), and the table of several; the outputs are
 * build-outputs.ts's, the failure message failure.ts's, the chart
 * summary-timeline.ts's, the history line history.ts's.
 */
import type { Summary } from '../runner/io.js'
import type { BuildResult } from '../util/constants.js'
import type { ArtifactsOutcome } from './artifacts.js'
import type { Build, BuildParameters } from '../jenkins/model/types.js'
import type { PipelineStage } from '../jenkins/reads/stages.js'
import { formatDuration } from '../util/duration.js'
import { buildNumber } from './build-outputs.js'
import { historyLine, RESULT_ICONS, type HistoryEntry } from './history.js'
import { escapeHtml, htmlText, link } from '../util/html.js'
import { cut } from '../util/shorten.js'
import type { Logger } from '../util/logger.js'
import { shortName } from '../util/names.js'
import { formatBytes } from '../util/bytes.js'
import type { UploadFile } from '../jenkins/transport/multipart.js'
import { sourceLineUrl, type SourceCommit } from './source-link.js'
import { addTimeline, STAGE_LOOK } from './summary-timeline.js'
import type { TestLocation } from './test-locations.js'
import { errorLines, type TestsOutcome } from './test-report.js'
import type { ValuesOutcome } from './values.js'
import { errorText } from '../util/error-text.js'

/** Everything the action learned about the build, for outputs, the job summary and the failure message. */
export interface BuildOutcome {
  /** Full name, e.g. 'team/service/deploy'. */
  jobName: string
  jobUrl: string
  queueUrl?: string
  /** The final (or latest) build, as decoded where it was read (its JSON in `build.json`). */
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

/** What the step reports of one build, for outputs, the summary and the verdict (with `jobs`, one item's). */
export interface BuildReport {
  /** Its build's: items that share one build (folded by Jenkins) share this object. */
  outcome: BuildOutcome
  /** What the item's `values-file` held, once the build ended. */
  values?: ValuesOutcome
  /** Why it could not be followed to its end (cancelled in the queue, refused, gone). */
  error?: string
  /** What the step did to it for fail-fast, when it did (stopped, cancelled in the queue): reported as such, not as a failure of its own. */
  stopped?: string
  /** Why the step stopped following it and left it running (fail-fast, shared with another request): not a failure. */
  left?: string
  /** The console's last lines, for a failed build. */
  tail: string[]
}

const MAX_VALUE_CHARS = 200
const MAX_NOTE_CHARS = 1000
/** Parameter names whose values are never shown. Over-matching (MONKEY) only hides a harmless value. */
const SECRET_NAME = /PASS|PWD|TOKEN|SECRET|KEY|CREDENTIAL|PRIVATE|AUTH/i
const HIDDEN = '***'
/** A file parameter of a build this step did not upload to (`build: last`): Jenkins does not say which file. */
const FILE_UNKNOWN = '(a file)'

/**
 * The job summary: one build's section (addBuildSection); with `several`,
 * one table with a row per item (job, build link, result, duration,
 * failed-test count when known), one stage chart, then each build's
 * section. Everything from Jenkins or the user is escaped. If it cannot be
 * written (no GITHUB_STEP_SUMMARY), warns and returns: never throws.
 */
export async function writeSummary(
  summary: Summary,
  reports: readonly BuildReport[],
  logger: Logger,
  { several }: { several: boolean }
): Promise<void> {
  try {
    if (several) {
      summary.addHeading('Jenkins builds', 2)
      summary.addTable([
        headerRow('Job', 'Build', 'Result', 'Duration', 'Failed tests'),
        ...reports.map(report => row(report))
      ])
      // Each build's stages, a section each.
      const builds = reports.flatMap(({ outcome: o }) =>
        o.stages ? [{ section: { job: o.jobName, number: buildNumber(o) }, stages: o.stages }] : []
      )
      addTimeline(summary, builds)
    }
    for (const report of reports) addBuildSection(summary, report, { alone: !several })
    await summary.write()
  } catch (error) {
    summary.emptyBuffer()
    logger.warning(`Could not write the job summary: ${errorText(error)}`)
  }
}

function row(report: BuildReport): string[] {
  const { outcome } = report
  const build = outcome.build
  const number = buildNumber(outcome)
  const buildCell =
    number !== null
      ? link(`#${number}`, outcome.buildUrl)
      : outcome.queueUrl
        ? link('queued', outcome.queueUrl)
        : '—'
  let result: string
  if (report.error) result = `❌ ${escapeHtml(cut(report.error, 200))}`
  else if (!build && !outcome.buildUrl && outcome.queueUrl) result = '⏳ queued'
  else result = resultCell(outcome)
  const note = report.stopped ?? report.left
  if (note) result += ` — ${escapeHtml(note)}`
  const duration = build ? durationCell(build) : '—'
  const tests = outcome.tests ? String(outcome.tests.counts.failed) : '—'
  return [link(shortName(outcome.jobName), outcome.jobUrl), buildCell, result, duration, tests]
}

/**
 * What the build did not produce that the step was told it must: wanted
 * artifacts that are missing, a values file that could not be read with
 * `values-file-required`. They fail the step even when the build passed.
 */
export function productProblems({ outcome, values }: Pick<BuildReport, 'outcome' | 'values'>) {
  const problem = values?.required ? values.problem : undefined
  return [...(outcome.artifacts?.problems ?? []), ...(problem === undefined ? [] : [problem])]
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
function addBuildSection(
  summary: Summary,
  report: BuildReport,
  { alone }: { alone: boolean }
): void {
  const { outcome } = report
  const full = alone || didNotPass(report)
  const rows = alone ? summaryRows(outcome) : factRows(outcome.build)
  if (!full && rows.length === 0 && !report.values && !outcome.unread) return
  // Below the section's heading, so that the outline, and what a cut summary says it left out, is per build.
  const sub = alone ? 3 : 4
  const notes = [report.error, report.stopped, report.left, outcome.note].filter(n => !!n)
  const addNotes = (): void => {
    if (notes.length > 0) addParagraph(summary, escapeHtml(cut(notes.join(' '), MAX_NOTE_CHARS)))
  }
  if (alone) summary.addHeading(`Jenkins ${link(shortName(outcome.jobName), outcome.jobUrl)}`, 2)
  else {
    summary.addHeading(
      `${link(buildTitle(outcome), outcome.buildUrl ?? outcome.jobUrl)}: ${escapeHtml(outcome.result ?? 'no result')}`,
      3
    )
    addNotes()
  }
  if (rows.length > 0) {
    summary.addTable(rows.map(([key, value]) => [{ data: key, header: true }, value]))
  }
  if (full) {
    const history = outcome.history && historyLine(outcome.history)
    if (history) summary.addRaw(history, true)
    if (outcome.tests) addFailedTests(summary, outcome.tests, sub)
    if (outcome.stages) addStages(summary, outcome.stages, sub)
    // Several builds share one chart (writeSummary).
    if (outcome.stages && alone) addTimeline(summary, [{ stages: outcome.stages }])
    if (outcome.artifacts) addArtifacts(summary, outcome.artifacts, sub)
  }
  if (report.values) addValues(summary, report.values, sub)
  // Parts of the outcome that could not be read: a notice each, the build's result stands.
  for (const note of outcome.unread?.slice(0, MAX_UNREAD) ?? []) {
    addParagraph(summary, `⚠️ ${escapeHtml(cut(note, UNREAD_CHARS))}`)
  }
  if (alone) {
    addParameters(summary, outcome)
    addNotes()
    return
  }
  const tail = report.stopped || !full ? [] : report.tail.slice(-TAIL_IN_SUMMARY)
  if (tail.length > 0) {
    summary.addDetails(
      `Last ${tail.length} console lines`,
      `<pre>${tail.map(line => escapeHtml(cut(line, 500))).join('<br>')}</pre>`
    )
  }
}

/** The job and, once known, the build's number: `deploy #12`. */
export function buildTitle(outcome: BuildOutcome): string {
  const number = buildNumber(outcome)
  const job = shortName(outcome.jobName)
  return number === null ? job : `${job} #${number}`
}

/** The table of one build alone: result, build, what it said of itself, duration, queue, tests. */
function summaryRows(outcome: BuildOutcome): [string, string][] {
  const build = outcome.build
  const rows: [string, string][] = [['Result', resultCell(outcome)]]
  const number = buildNumber(outcome)
  if (number !== null) rows.push(['Build', link(`#${number}`, outcome.buildUrl)])
  if (build) rows.push(...factRows(build), ['Duration', durationCell(build)])
  else if (number === null && outcome.queueUrl) {
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

function durationCell(build: Build): string {
  return build.building ? 'running' : escapeHtml(formatDuration(build.duration))
}

/** Rows for what the build said of itself: its own display name and its description, as inert text. */
function factRows(build: Build | undefined): [string, string][] {
  const rows: [string, string][] = []
  if (!build) return rows
  if (build.displayName !== `#${build.number}`) {
    rows.push(['Display name', escapeHtml(cut(build.displayName, MAX_VALUE_CHARS))])
  }
  // Its text, never its HTML, whatever markup formatter Jenkins has: the output keeps it as stored.
  const description = htmlText(build.description)
  if (description !== '') {
    rows.push(['Description', escapeHtml(cut(description, MAX_NOTE_CHARS))])
  }
  return rows
}

/** The parameters the build ran with (or the user asked for), secrets hidden. */
function addParameters(summary: Summary, outcome: BuildOutcome): void {
  const parameters = parametersOf(outcome)
  if (parameters.length === 0) return
  summary.addHeading('Parameters', 3)
  addNameValues(summary, ['Name', 'Value'], parameters, value =>
    value === HIDDEN ? HIDDEN : textCell(value)
  )
}

/** The result, with its icon and whether `accept` takes it; running or not started when there is none. */
function resultCell(outcome: BuildOutcome): string {
  const build = outcome.build
  const result = outcome.result ?? (build && !build.building ? build.result : null) ?? undefined
  if (!result) {
    if (build?.building || (!build && outcome.buildUrl)) return '⏳ running'
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

/**
 * What the build ran with (its decoded ParametersAction, jenkins/reads; a
 * file parameter shows the file this step uploaded, if it did), else what
 * the user asked for and the files uploaded. Secrets hidden.
 */
function parametersOf({ build, parameters = {}, uploads = [] }: BuildOutcome): [string, string][] {
  const shown = (name: string, text: string, password?: boolean): [string, string] => [
    name,
    password || SECRET_NAME.test(name) ? HIDDEN : text
  ]
  // A file parameter's cell: the file's name and size (`app.zip (293 KiB)`).
  const uploadText = (file: UploadedFile): string => `${file.fileName} (${formatBytes(file.size)})`
  if (build?.parameters) {
    return build.parameters.map(({ name, value, password, file }) => {
      // A file parameter exports its name only (jenkins-api.md 11.3).
      const upload = file === true && value === undefined
      const uploaded = upload ? uploads.find(u => u.name === name) : undefined
      const text = uploaded ? uploadText(uploaded) : upload ? FILE_UNKNOWN : parameterText(value)
      return shown(name, text, password)
    })
  }
  return [
    ...Object.entries(parameters).map(([name, value]) =>
      shown(name, typeof value === 'string' ? value : value.join(', '))
    ),
    ...uploads.map(file => shown(file.name, uploadText(file)))
  ]
}

/** A JSON value as text (a string as it is, null as nothing). */
function parameterText(value: unknown): string {
  return typeof value === 'string' ? value : ((value === null ? '' : JSON.stringify(value)) ?? '')
}

const MAX_STAGE_ROWS = 100
const MAX_NAME_VALUES = 50
const MAX_ARTIFACT_ROWS = 20
const PATH_CHARS = 200
const ERROR_CHARS = 300
const MAX_UNREAD = 3
const UNREAD_CHARS = 600

/** Text in a table's cell: at most `max` characters, inert; an empty one stays a cell. */
function textCell(text: string, max = 200): string {
  return escapeHtml(cut(text, max)) || '&nbsp;'
}

/** A table of names (as code) and their values' cells: at most 50 rows, `… and N more` below it. */
function addNameValues<T>(
  summary: Summary,
  headers: [string, string],
  entries: ReadonlyArray<readonly [string, T]>,
  valueCell: (value: T) => string
): void {
  const shown = entries.slice(0, MAX_NAME_VALUES)
  summary.addTable([
    headerRow(...headers),
    ...shown.map(([name, value]) => [
      `<code>${escapeHtml(cut(name, 100))}</code>`,
      valueCell(value)
    ])
  ])
  addMore(summary, entries.length, shown.length)
}

/** A table's header row. */
function headerRow(...names: string[]): Array<{ data: string; header: true }> {
  return names.map(data => ({ data, header: true }))
}

/** A paragraph of HTML (escaped by the caller). */
function addParagraph(summary: Summary, html: string): void {
  summary.addRaw(`<p>${html}</p>`, true)
}

/** `… and N more` below a list cut to `shown` of `total` (`what`: of what, when it says). */
function addMore(summary: Summary, total: number, shown: number, what = ''): void {
  if (total > shown) addParagraph(summary, `… and ${total - shown} more${what}.`)
}

/**
 * The failed tests: name (linked to its page), class, where it failed in the
 * repository (when a trace names a workspace file: `path:line`, linked to
 * that line at the commit under test on a runner), first line of the error.
 * `level`: of its heading, below the build's.
 */
function addFailedTests(summary: Summary, tests: TestsOutcome, level: number): void {
  if (tests.counts.failed === 0) return
  summary.addHeading('Failed tests', level)
  if (tests.failed.length > 0) {
    const located = tests.located ?? new Map()
    // A File column only when a test has one: most reports name no workspace file.
    const withFile = tests.failed.some(test => located.has(test))
    summary.addTable([
      headerRow('Test', 'Class', ...(withFile ? ['File'] : []), 'Error'),
      ...tests.failed.map(test => [
        link(shortName(test.name), test.url),
        `<code>${escapeHtml(shortName(test.className))}</code>`,
        ...(withFile ? [fileCell(located.get(test), tests.commit)] : []),
        textCell(errorLines(test)[0] ?? '', ERROR_CHARS)
      ])
    ])
  }
  const shown = tests.failed.length
  const { failed, total } = tests.counts
  const notes: string[] = []
  if (shown === 0 && tests.casesRead === 0) {
    notes.push(`${failed} failed tests; the report could not be read here.`)
  } else if (shown < failed) {
    notes.push(`${shown} of ${failed} failed tests shown.`)
    if (tests.partial) {
      notes.push(
        `The report is too large to read whole: these come from its first ${tests.casesRead} of ${total} tests.`
      )
    }
  }
  const all = `All results: ${link('test report', tests.reportUrl)}.`
  addParagraph(summary, [...notes.map(escapeHtml), all].join(' '))
}

/** The Pipeline's stages: name, status, duration. */
function addStages(summary: Summary, stages: readonly PipelineStage[], level: number): void {
  if (stages.length === 0) return
  summary.addHeading('Stages', level)
  const shown = stages.slice(0, MAX_STAGE_ROWS)
  summary.addTable([
    headerRow('Stage', 'Status', 'Duration'),
    ...shown.map(stage => [
      escapeHtml(shortName(stage.name)),
      `${STAGE_LOOK[stage.status]?.icon ?? ''} ${escapeHtml(stage.status)}`.trim(),
      stage.status === 'NOT_EXECUTED' ? '&nbsp;' : escapeHtml(formatDuration(stage.durationMillis))
    ])
  ])
  addMore(summary, stages.length, shown.length, ' stages')
}

/** The downloaded artifacts and where they are; refused paths named. */
function addArtifacts(summary: Summary, artifacts: ArtifactsOutcome, level: number): void {
  if (artifacts.written.length === 0 && artifacts.refused.length === 0) return
  summary.addHeading('Artifacts', level)
  if (artifacts.written.length > 0) {
    addParagraph(
      summary,
      `${artifacts.written.length} file(s), ${escapeHtml(formatBytes(artifacts.bytes))}, in <code>${escapeHtml(artifacts.folder)}</code>:`
    )
    const shown = artifacts.written.slice(0, MAX_ARTIFACT_ROWS)
    summary.addList(shown.map(path => `<code>${escapeHtml(cut(path, PATH_CHARS))}</code>`))
    addMore(summary, artifacts.written.length, shown.length)
  }
  for (const refused of artifacts.refused.slice(0, MAX_ARTIFACT_ROWS)) {
    addParagraph(
      summary,
      `⚠️ Refused <code>${escapeHtml(cut(JSON.stringify(refused.path), PATH_CHARS))}</code>: it ${escapeHtml(refused.reason)}.`
    )
  }
}

/** `path:line` in code, linked to that line of the commit when there is one. */
function fileCell(where: TestLocation | undefined, commit: SourceCommit | undefined): string {
  if (!where) return '&nbsp;'
  const text = `${cut(where.file, PATH_CHARS)}:${where.line}`
  return `<code>${link(text, commit ? sourceLineUrl(commit, where) : undefined)}</code>`
}

/** The summary's values (addNameValues: at most 50 keys, each value cut to 200 characters), as text. */
function addValues(summary: Summary, outcome: ValuesOutcome, level: number): void {
  summary.addHeading('Values', level)
  const entries = Object.entries(outcome.values)
  if (entries.length === 0) {
    addParagraph(summary, escapeHtml(cut(outcome.problem ?? 'None.', 1000)))
    return
  }
  addNameValues(summary, ['Key', 'Value'], entries, value =>
    textCell(typeof value === 'string' ? value : JSON.stringify(value))
  )
}
