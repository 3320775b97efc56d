import type { summary as coreSummary } from '@actions/core'
import { Output, type BuildResult } from './constants.js'
import type { Build, BuildParameters } from './jenkins/types.js'
import { cut, escapeHtml, link } from './html.js'
import type { Logger } from './logger.js'

export { escapeHtml } from './html.js'

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
  /** From queue entry to start. */
  queueWaitMs?: number
  tests?: { total: number; failed: number; skipped: number }
  result?: BuildResult
  /** Whether the result is one of the `accept` input's. */
  accepted?: boolean
  /** The `accept` input, when the failure message should name it. */
  accept?: readonly BuildResult[]
  /** e.g. 'Did not wait for the build to finish (wait: started)'. */
  note?: string
}

/** Where outputs go: core.setOutput in main. */
export interface OutputSink {
  setOutput(name: string, value: string): void
}

/** Sets every output the outcome knows. duration and result only once the build is over. */
export function setBuildOutputs(out: OutputSink, outcome: BuildOutcome): void {
  const build = outcome.build
  const finished = build !== undefined && !build.building
  const result = outcome.result ?? (finished ? (build.result ?? undefined) : undefined)
  if (result) out.setOutput(Output.Result, result)
  if (build) out.setOutput(Output.BuildNumber, String(build.number))
  if (outcome.buildUrl) out.setOutput(Output.BuildUrl, outcome.buildUrl)
  // Jenkins reports duration 0 while a build runs (jenkins-api.md 5.2).
  if (finished) out.setOutput(Output.Duration, String(build.duration))
  if (outcome.queueUrl) out.setOutput(Output.QueueUrl, outcome.queueUrl)
  if (build) out.setOutput(Output.Build, JSON.stringify(build))
  out.setOutput(Output.JobUrl, outcome.jobUrl)
}

/**
 * Test counts from the build's actions: hudson.tasks.junit.TestResultAction,
 * the aggregated actions (matrix, maven, downstream aggregation) or any action
 * with failCount/totalCount. When several are present the largest is taken:
 * an aggregate includes its parts, and adding them up would count twice.
 */
export function testCounts(build: Build): BuildOutcome['tests'] | undefined {
  let best: BuildOutcome['tests'] | undefined
  for (const action of build.actions ?? []) {
    if (typeof action !== 'object' || action === null) continue
    const { failCount, totalCount, skipCount } = action as Record<string, unknown>
    if (!isCount(failCount) || !isCount(totalCount)) continue
    const counts = {
      total: totalCount,
      failed: failCount,
      skipped: isCount(skipCount) ? skipCount : 0
    }
    if (!best || counts.total > best.total) best = counts
  }
  return best
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0
}

/** '850 ms', '1.5 s', '42 s', '1 min 3 s', '2 h 5 min'. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return 'unknown'
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 10_000) return `${Math.floor(ms / 100) / 10} s`
  if (ms < 60_000) return `${Math.floor(ms / 1000)} s`
  const totalSeconds = Math.round(ms / 1000)
  const hours = Math.floor(totalSeconds / 3600)
  const minutes = Math.floor((totalSeconds % 3600) / 60)
  const seconds = totalSeconds % 60
  const parts: string[] = []
  if (hours > 0) parts.push(`${hours} h`)
  if (minutes > 0) parts.push(`${minutes} min`)
  // Seconds are noise next to hours.
  if (seconds > 0 && hours === 0) parts.push(`${seconds} s`)
  return parts.join(' ')
}

const RESULT_ICONS: Record<BuildResult, string> = {
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

/**
 * Writes a short job summary: the job, a table (result, build, duration,
 * queue wait, tests), the parameters (secret-looking ones hidden) and the
 * note. Everything from Jenkins or the user is escaped. If the summary cannot
 * be written (no GITHUB_STEP_SUMMARY), warns and returns: never throws.
 */
export async function writeSummary(
  summary: typeof coreSummary,
  outcome: BuildOutcome,
  logger: Logger
): Promise<void> {
  try {
    const build = outcome.build
    summary.addHeading(`Jenkins ${link(outcome.jobName, outcome.jobUrl)}`, 2)

    const rows: [string, string][] = [['Result', resultCell(outcome)]]
    if (build) {
      rows.push(['Build', link(`#${build.number}`, outcome.buildUrl)])
      rows.push([
        'Duration',
        build.building ? 'running' : escapeHtml(formatDuration(build.duration))
      ])
    } else if (outcome.queueUrl) {
      rows.push(['Queue item', link(outcome.queueUrl, outcome.queueUrl)])
    }
    if (outcome.queueWaitMs !== undefined) {
      rows.push(['Queue wait', escapeHtml(formatDuration(outcome.queueWaitMs))])
    }
    if (outcome.tests) {
      const { total, failed, skipped } = outcome.tests
      rows.push(['Tests', `${total} total / ${failed} failed / ${skipped} skipped`])
    }
    summary.addTable(rows.map(([key, value]) => [{ data: key, header: true }, value]))

    const parameters = parametersOf(outcome)
    if (parameters.length > 0) {
      summary.addHeading('Parameters', 3)
      const shown = parameters.slice(0, MAX_PARAMETERS)
      const table = [
        [
          { data: 'Name', header: true },
          { data: 'Value', header: true }
        ],
        ...shown.map(p => [
          `<code>${escapeHtml(cut(p.name, 100))}</code>`,
          p.value === HIDDEN ? HIDDEN : escapeHtml(cut(p.value, MAX_VALUE_CHARS)) || '&nbsp;'
        ])
      ]
      summary.addTable(table)
      if (parameters.length > shown.length) {
        summary.addRaw(`<p>… and ${parameters.length - shown.length} more.</p>`, true)
      }
    }
    if (outcome.note)
      summary.addRaw(`<p>${escapeHtml(cut(outcome.note, MAX_NOTE_CHARS))}</p>`, true)
    await summary.write()
  } catch (error) {
    summary.emptyBuffer()
    logger.warning(
      `Could not write the job summary: ${error instanceof Error ? error.message : String(error)}`
    )
  }
}

function resultCell(outcome: BuildOutcome): string {
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

/** What the build ran with (its ParametersAction), else what the user asked for. Secrets hidden. */
function parametersOf(outcome: BuildOutcome): ShownParameter[] {
  const fromBuild = buildParameters(outcome.build)
  if (fromBuild) return fromBuild
  return Object.entries(outcome.parameters ?? {}).map(([name, value]) => ({
    name,
    value: SECRET_NAME.test(name)
      ? HIDDEN
      : typeof value === 'string'
        ? value
        : (value as readonly string[]).join(', ')
  }))
}

function buildParameters(build: Build | undefined): ShownParameter[] | undefined {
  for (const action of build?.actions ?? []) {
    if (typeof action !== 'object' || action === null) continue
    const { _class, parameters } = action as { _class?: unknown; parameters?: unknown }
    if (_class !== 'hudson.model.ParametersAction' || !Array.isArray(parameters)) continue
    const shown: ShownParameter[] = []
    for (const p of parameters as unknown[]) {
      if (typeof p !== 'object' || p === null) continue
      const {
        name,
        value,
        _class: kind
      } = p as { name?: unknown; value?: unknown; _class?: unknown }
      if (typeof name !== 'string') continue
      // PasswordParameterValue exports no value at all (jenkins-api.md 5.3).
      const secret = SECRET_NAME.test(name) || /Password/i.test(String(kind ?? ''))
      shown.push({ name, value: secret ? HIDDEN : parameterText(value) })
    }
    return shown
  }
  return undefined
}

function parameterText(value: unknown): string {
  if (value === undefined || value === null) return ''
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return JSON.stringify(value) ?? ''
}

const TAIL_LINES = 30
const TAIL_BYTES = 4 * 1024
// CSI and other ESC sequences: colours mean nothing in an annotation.
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])/g

/**
 * The failure annotation: what finished how, where, and the console's last
 * lines (at most 30 lines / 4 KiB), so the cause shows without opening the log.
 */
export function failureMessage(outcome: BuildOutcome, tail: string[]): string {
  const build = outcome.build
  const result = outcome.result ?? build?.result ?? undefined
  let head: string
  if (!build) {
    head = `Jenkins job ${outcome.jobName} did not start a build`
  } else if (build.building && !outcome.result) {
    head = `Jenkins build ${outcome.jobName} #${build.number} did not finish`
  } else {
    head = `Jenkins build ${outcome.jobName} #${build.number} finished ${result ?? 'without a result'}`
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
    // eslint-disable-next-line no-control-regex
    let line = (tail[i] ?? '').replace(ANSI, '').replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '')
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
