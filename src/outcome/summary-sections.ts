import type { summary as coreSummary } from '@actions/core'
import type { ArtifactsOutcome } from './artifacts.js'
import { formatBytes } from '../util/bytes.js'
import { formatDuration } from '../util/duration.js'
import { escapeHtml, link } from '../util/html.js'
import { cut } from '../util/shorten.js'
import type { PipelineStage } from '../jenkins/model/types.js'
import type { BuildResult } from '../util/constants.js'
import { shortName } from '../util/names.js'
import { sourceLineUrl, type SourceCommit } from './source-link.js'
import type { TestLocation } from './test-locations.js'
import type { TestsOutcome } from './test-report.js'

type Summary = typeof coreSummary

/** The symbol shown before a result (summary, history, pull request comment). */
export const RESULT_ICONS: Record<BuildResult, string> = {
  SUCCESS: '✅',
  UNSTABLE: '⚠️',
  FAILURE: '❌',
  ABORTED: '⛔',
  NOT_BUILT: '⚪'
}

const STAGE_ICONS: Record<string, string> = {
  SUCCESS: '✅',
  FAILED: '❌',
  UNSTABLE: '⚠️',
  ABORTED: '⛔',
  NOT_EXECUTED: '⚪',
  IN_PROGRESS: '⏳',
  PAUSED_PENDING_INPUT: '⏸️'
}
const MAX_STAGE_ROWS = 100
const MAX_NAME_VALUES = 50
const MAX_ARTIFACT_ROWS = 20
const PATH_CHARS = 200
const ERROR_CHARS = 300
const MAX_UNREAD = 3
const UNREAD_CHARS = 600

/** Text in a table's cell: at most `max` characters, inert; an empty one stays a cell. */
export function textCell(text: string, max = 200): string {
  return escapeHtml(cut(text, max)) || '&nbsp;'
}

/** A table of names (as code) and their values' cells: at most 50 rows, `… and N more` below it. */
export function addNameValues<T>(
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
export function headerRow(...names: string[]): Array<{ data: string; header: true }> {
  return names.map(data => ({ data, header: true }))
}

/** `… and N more` below a list cut to `shown` of `total` (`what`: of what, when it says). */
function addMore(summary: Summary, total: number, shown: number, what = ''): void {
  if (total > shown) summary.addRaw(`<p>… and ${total - shown} more${what}.</p>`, true)
}

/**
 * The failed tests: name (linked to its page), class, where it failed in the
 * repository (when a trace names a workspace file: `path:line`, linked to
 * that line at the commit under test on a runner), first line of the error.
 * `level`: of its heading, below the build's.
 */
export function addFailedTests(summary: Summary, tests: TestsOutcome, level = 3): void {
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
        textCell(firstLine(test.errorDetails), ERROR_CHARS)
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
  summary.addRaw(`<p>${[...notes.map(escapeHtml), all].join(' ')}</p>`, true)
}

/** The Pipeline's stages: name, status, duration. */
export function addStages(summary: Summary, stages: readonly PipelineStage[], level = 3): void {
  if (stages.length === 0) return
  summary.addHeading('Stages', level)
  const shown = stages.slice(0, MAX_STAGE_ROWS)
  summary.addTable([
    headerRow('Stage', 'Status', 'Duration'),
    ...shown.map(stage => [
      escapeHtml(shortName(stage.name)),
      `${STAGE_ICONS[stage.status] ?? ''} ${escapeHtml(stage.status)}`.trim(),
      stage.status === 'NOT_EXECUTED' ? '&nbsp;' : escapeHtml(formatDuration(stage.durationMillis))
    ])
  ])
  addMore(summary, stages.length, shown.length, ' stages')
}

/** The downloaded artifacts and where they are; refused paths named. */
export function addArtifacts(summary: Summary, artifacts: ArtifactsOutcome, level = 3): void {
  if (artifacts.written.length === 0 && artifacts.refused.length === 0) return
  summary.addHeading('Artifacts', level)
  if (artifacts.written.length > 0) {
    summary.addRaw(
      `<p>${artifacts.written.length} file(s), ${escapeHtml(formatBytes(artifacts.bytes))}, in <code>${escapeHtml(artifacts.folder)}</code>:</p>`,
      true
    )
    const shown = artifacts.written.slice(0, MAX_ARTIFACT_ROWS)
    summary.addRaw(
      `<ul>${shown.map(path => `<li><code>${escapeHtml(cut(path, PATH_CHARS))}</code></li>`).join('')}</ul>`,
      true
    )
    addMore(summary, artifacts.written.length, shown.length)
  }
  for (const refused of artifacts.refused.slice(0, MAX_ARTIFACT_ROWS)) {
    summary.addRaw(
      `<p>⚠️ Refused <code>${escapeHtml(cut(JSON.stringify(refused.path), PATH_CHARS))}</code>: it ${escapeHtml(refused.reason)}.</p>`,
      true
    )
  }
}

/** Parts of the outcome that could not be read: a notice each, the build's result stands. */
export function addUnread(summary: Summary, unread: readonly string[]): void {
  for (const note of unread.slice(0, MAX_UNREAD)) {
    summary.addRaw(`<p>⚠️ ${escapeHtml(cut(note, UNREAD_CHARS))}</p>`, true)
  }
}

/** `path:line` in code, linked to that line of the commit when there is one. */
function fileCell(where: TestLocation | undefined, commit: SourceCommit | undefined): string {
  if (!where) return '&nbsp;'
  const text = `${cut(where.file, PATH_CHARS)}:${where.line}`
  return `<code>${link(text, commit ? sourceLineUrl(commit, where) : undefined)}</code>`
}

function firstLine(text: string | undefined): string {
  return (text ?? '').trim().split(/\r\n|\r|\n/)[0] ?? ''
}
