import type { summary as coreSummary } from '@actions/core'
import { BUILD_RESULTS, Output, type BuildResult } from '../util/constants.js'
import { formatDuration } from '../util/duration.js'
import { addHistory } from '../outcome/history.js'
import { escapeHtml, link } from '../util/html.js'
import { cut } from '../util/shorten.js'
import { countOf, isCount } from '../jenkins/model/counts.js'
import type { Logger } from '../util/logger.js'
import { shortName } from '../util/names.js'
import {
  failureMessage,
  resultCell,
  setArtifactsOutput,
  type BuildOutcome
} from '../outcome/report.js'
import type { StepIO } from '../runner/io.js'
import { addArtifacts, addFailedTests, addStages, addUnread } from '../outcome/summary-sections.js'
import { addTimeline, type TimelineBuild } from '../outcome/summary-timeline.js'
import { errorText } from '../util/error-text.js'

/** What the step knows of one item of `jobs`, for outputs, the summary and the verdict. */
export interface ItemReport {
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

/**
 * One entry of the `builds` output.
 * @internal
 */
export interface BuildsEntry {
  job: string
  number: number | null
  url: string | null
  result: BuildResult | null
  duration: number | null
  queueUrl: string | null
}

/**
 * The worst of the results by Jenkins' order (Result.ordinal: SUCCESS < UNSTABLE < FAILURE < NOT_BUILT < ABORTED).
 * @internal
 */
export function worstResult(
  results: ReadonlyArray<BuildResult | undefined>
): BuildResult | undefined {
  let worst: BuildResult | undefined
  for (const result of results) {
    if (result === undefined) continue
    if (worst === undefined || BUILD_RESULTS.indexOf(result) > BUILD_RESULTS.indexOf(worst)) {
      worst = result
    }
  }
  return worst
}

/**
 * The `builds` output, in the order the items were given.
 * @internal
 */
export function buildsEntries(items: readonly ItemReport[]): BuildsEntry[] {
  return items.map(({ outcome }) => {
    const build = outcome.build
    const ended = build !== undefined && !build.building
    return {
      job: outcome.jobName,
      number: build?.number ?? numberOf(outcome.buildUrl) ?? null,
      url: outcome.buildUrl ?? null,
      result: outcome.result ?? (ended ? build.result : null),
      duration: ended && isCount(build.duration) ? build.duration : null,
      queueUrl: outcome.queueUrl ?? null
    }
  })
}

/**
 * The outputs of several builds: `builds`, `result` (the worst), the test
 * counts summed over the builds that have a report, and every downloaded
 * artifact. The outputs of one build (number, url, build JSON, stages) are
 * in `builds` instead.
 */
export function setJobsOutputs(
  out: Pick<StepIO, 'setOutput'>,
  items: readonly ItemReport[],
  logger?: Logger
): void {
  out.setOutput(Output.Builds, JSON.stringify(buildsEntries(items)))
  const worst = worstResult(items.map(item => item.outcome.result))
  if (worst) out.setOutput(Output.Result, worst)
  const tests = items.flatMap(item => (item.outcome.tests ? [item.outcome.tests.counts] : []))
  if (tests.length > 0) {
    // Counts each within the safe range can sum past it: such a sum is not set.
    const sum = (key: 'total' | 'failed' | 'skipped', name: Output): void => {
      const total = tests.reduce((n, counts) => n + counts[key], 0)
      if (isCount(total)) out.setOutput(name, String(total))
      else
        logger?.warning(
          `The ${name} output is not set: the sum of the builds' counts is too large.`
        )
    }
    sum('total', Output.TestsTotal)
    sum('failed', Output.TestsFailed)
    sum('skipped', Output.TestsSkipped)
  }
  if (items.some(item => item.outcome.artifacts)) {
    const folders = [...new Set(items.flatMap(item => item.outcome.artifacts?.folder ?? []))]
    setArtifactsOutput(
      out,
      {
        written: items.flatMap(item => item.outcome.artifacts?.written ?? []),
        folder: cut(folders.join(', '), 500)
      },
      logger
    )
  }
}

/** Whether an item counts against the step: not accepted, never followed to a result, or stopped by fail-fast. */
function failed(item: ItemReport): boolean {
  return item.outcome.accepted === false || item.error !== undefined || item.stopped !== undefined
}

const TAIL_IN_MESSAGE = 10
const TAIL_IN_SUMMARY = 20

/**
 * The step's failure message when some item failed (undefined when none
 * did): one line per failed item, naming it, its result and link, then the
 * last console lines of each build that failed by itself (not of those
 * fail-fast stopped). A missing wanted artifact fails the step too.
 */
export function jobsFailure(
  items: readonly ItemReport[],
  accept: readonly BuildResult[]
): string | undefined {
  const bad = items.filter(failed)
  const problems = items.flatMap(item => item.outcome.artifacts?.problems ?? [])
  if (bad.length === 0) return problems.length > 0 ? problems.join('\n') : undefined
  const lines = [
    `${bad.length} of ${items.length} Jenkins builds did not pass (accepted: ${accept.join(', ')}):`
  ]
  for (const item of bad) lines.push(`- ${itemLine(item)}`)
  for (const item of bad) {
    if (item.stopped || item.error || item.tail.length === 0) continue
    lines.push('', failureMessage(item.outcome, item.tail.slice(-TAIL_IN_MESSAGE)))
  }
  return [...lines, ...problems].join('\n')
}

function itemLine(item: ItemReport): string {
  const { outcome } = item
  const number = outcome.build?.number ?? numberOf(outcome.buildUrl)
  const job = shortName(outcome.jobName)
  const name = number === undefined ? job : `${job} #${number}`
  if (item.error) return `${name}: ${item.error.replace(/\.$/, '')}`
  if (item.stopped && !outcome.result) return `${name}: ${item.stopped}`
  const result = outcome.result ?? 'no result'
  const stage = outcome.failedStage ? ` in stage '${shortName(outcome.failedStage)}'` : ''
  const stopped = item.stopped ? ` (${item.stopped})` : ''
  const url = outcome.buildUrl ?? outcome.queueUrl
  return `${name} ${result}${stage}${stopped}${url ? ` — ${url}` : ''}`
}

/**
 * The job summary of several builds: one table with a row per item (job,
 * build link, result, duration, failed-test count when known), then each
 * failed build's details (failed tests, stages, artifacts, last console
 * lines). Everything from Jenkins or the user is escaped. Never throws.
 */
export async function writeJobsSummary(
  summary: typeof coreSummary,
  items: readonly ItemReport[],
  logger: Logger
): Promise<void> {
  try {
    summary.addHeading('Jenkins builds', 2)
    summary.addTable([
      [
        { data: 'Job', header: true },
        { data: 'Build', header: true },
        { data: 'Result', header: true },
        { data: 'Duration', header: true },
        { data: 'Failed tests', header: true }
      ],
      ...items.map(item => row(item))
    ])
    addTimeline(summary, timelineBuilds(items))
    for (const item of items.filter(failed)) details(summary, item)
    // A passing build gets no details; what could not be read of it is still said.
    for (const item of items.filter(i => !failed(i) && i.outcome.unread)) {
      addUnread(summary, item.outcome.unread ?? [])
    }
    await summary.write()
  } catch (error) {
    summary.emptyBuffer()
    logger.warning(`Could not write the job summary: ${errorText(error)}`)
  }
}

function row(item: ItemReport): string[] {
  const { outcome } = item
  const build = outcome.build
  const number = build?.number ?? numberOf(outcome.buildUrl)
  const buildCell =
    number !== undefined
      ? link(`#${number}`, outcome.buildUrl)
      : outcome.queueUrl
        ? link('queued', outcome.queueUrl)
        : '—'
  let result: string
  if (item.error) result = `❌ ${escapeHtml(cut(item.error, 200))}`
  else if (!build && outcome.buildUrl) result = '⏳ running'
  else if (!build && outcome.queueUrl) result = '⏳ queued'
  else result = resultCell(outcome)
  const note = item.stopped ?? item.left
  if (note) result += ` — ${escapeHtml(note)}`
  const duration =
    build && !build.building ? escapeHtml(formatDuration(build.duration)) : build ? 'running' : '—'
  const tests = outcome.tests ? String(outcome.tests.counts.failed) : '—'
  return [link(shortName(outcome.jobName), outcome.jobUrl), buildCell, result, duration, tests]
}

function details(summary: typeof coreSummary, item: ItemReport): void {
  const { outcome } = item
  const number = outcome.build?.number ?? numberOf(outcome.buildUrl)
  const job = shortName(outcome.jobName)
  const title = number === undefined ? job : `${job} #${number}`
  summary.addHeading(
    `${link(title, outcome.buildUrl ?? outcome.jobUrl)}: ${escapeHtml(outcome.result ?? 'no result')}`,
    3
  )
  const notes = [item.error, item.stopped, item.left, outcome.note].filter((n): n is string => !!n)
  if (notes.length > 0) summary.addRaw(`<p>${escapeHtml(cut(notes.join(' '), 1000))}</p>`, true)
  // Below the build's own heading (h3), so that the outline, and what a cut summary says it left out, is per build.
  if (outcome.history) addHistory(summary, outcome.history)
  if (outcome.tests) addFailedTests(summary, outcome.tests, 4)
  if (outcome.stages) addStages(summary, outcome.stages, 4)
  if (outcome.artifacts) addArtifacts(summary, outcome.artifacts, 4)
  if (outcome.unread) addUnread(summary, outcome.unread)
  const tail = item.stopped ? [] : item.tail.slice(-TAIL_IN_SUMMARY)
  if (tail.length > 0) {
    summary.addRaw(
      `<details><summary>Last ${tail.length} console lines</summary><pre>${tail.map(line => escapeHtml(cut(line, 500))).join('<br>')}</pre></details>`,
      true
    )
  }
}

/** Each build's stages, for the one chart of several builds: a section each. */
function timelineBuilds(items: readonly ItemReport[]): TimelineBuild[] {
  return items.flatMap(({ outcome }) =>
    outcome.stages
      ? [
          {
            section: {
              job: outcome.jobName,
              number: outcome.build?.number ?? numberOf(outcome.buildUrl)
            },
            stages: outcome.stages
          }
        ]
      : []
  )
}

/** The number at the end of a build URL (`…/job/x/12/`). */
function numberOf(url: string | undefined): number | undefined {
  return countOf(url ? /\/(\d+)\/?$/.exec(url)?.[1] : undefined)
}
