import type { summary as coreSummary } from '@actions/core'
import { BUILD_RESULTS, Output, type BuildResult } from '../util/constants.js'
import { formatDuration } from '../util/duration.js'
import { escapeHtml, link } from '../util/html.js'
import { cut } from '../util/shorten.js'
import { isCount } from '../jenkins/model/counts.js'
import type { Logger } from '../util/logger.js'
import { shortName } from '../util/names.js'
import {
  addBuildSection,
  buildTitle,
  didNotPass,
  failureMessage,
  productProblems,
  resultCell,
  writeSummaryWith,
  type BuildReport
} from '../outcome/report.js'
import { buildEntry, setArtifactsOutput } from '../outcome/build-outputs.js'
import type { StepIO } from '../runner/io.js'
import { addTimeline, type TimelineBuild } from '../outcome/summary-timeline.js'

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
 * The outputs of several builds: `builds` (each entry outcome/build-outputs.ts
 * buildEntry, in the order the items were given), `result` (the worst), the
 * test counts summed over the builds that have a report, and every
 * downloaded artifact. The outputs of one build (number, url, build JSON,
 * stages) are in `builds` instead.
 */
export function setJobsOutputs(
  out: Pick<StepIO, 'setOutput'>,
  items: readonly BuildReport[],
  logger?: Logger
): void {
  out.setOutput(Output.Builds, JSON.stringify(items.map(item => buildEntry(item.outcome))))
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

const TAIL_IN_MESSAGE = 10

/**
 * The step's failure message when some item failed (undefined when none
 * did): one line per failed item, naming it, its result and link, then
 * each build's failure message (outcome/report.ts failureMessage) for
 * those that failed by themselves (not those fail-fast stopped). A missing
 * wanted artifact, or a required values file, fails the step too.
 */
export function jobsFailure(
  items: readonly BuildReport[],
  accept: readonly BuildResult[]
): string | undefined {
  const bad = items.filter(didNotPass)
  const problems = items.flatMap(item => productProblems(item.outcome))
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

function itemLine(item: BuildReport): string {
  const { outcome } = item
  const name = buildTitle(outcome)
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
 * build link, result, duration, failed-test count when known), one stage
 * chart, then each build's section (outcome/report.ts addBuildSection).
 * Everything from Jenkins or the user is escaped. Never throws.
 */
export function writeJobsSummary(
  summary: typeof coreSummary,
  items: readonly BuildReport[],
  logger: Logger
): Promise<void> {
  return writeSummaryWith(summary, logger, s => {
    s.addHeading('Jenkins builds', 2)
    s.addTable([
      [
        { data: 'Job', header: true },
        { data: 'Build', header: true },
        { data: 'Result', header: true },
        { data: 'Duration', header: true },
        { data: 'Failed tests', header: true }
      ],
      ...items.map(item => row(item))
    ])
    addTimeline(s, timelineBuilds(items))
    for (const item of items) addBuildSection(s, item, { item: true })
  })
}

function row(item: BuildReport): string[] {
  const { outcome } = item
  const build = outcome.build
  const number = buildEntry(outcome).number
  const buildCell =
    number !== null
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

/** Each build's stages, for the one chart of several builds: a section each. */
function timelineBuilds(items: readonly BuildReport[]): TimelineBuild[] {
  return items.flatMap(({ outcome }) =>
    outcome.stages
      ? [
          {
            section: { job: outcome.jobName, number: buildEntry(outcome).number ?? undefined },
            stages: outcome.stages
          }
        ]
      : []
  )
}
