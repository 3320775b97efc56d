/**
 * The stage timeline of the job summary: a Mermaid `gantt` chart of Pipeline
 * stages, one bar per stage that started, one section per build when there
 * are several. Names are Jenkins text inside a diagram, so they are reduced
 * to harmless characters; a stage whose times Mermaid cannot draw gets no
 * bar; the axis reads the clock. Why, from Mermaid's parser:
 * docs/internals.md, "The stage timeline".
 */
import type { summary as coreSummary } from '@actions/core'
import type { PipelineStage } from '../jenkins/reads/stages.js'
import { cut } from '../util/shorten.js'

/**
 * Most bars in one chart: the rest are counted in a line below it.
 * @internal
 */
export const MAX_BARS = 50
/** Characters of a name kept in a bar or section title. */
const TITLE_CHARS = 60

/** One build's stages, for a chart with a section per build (several jobs). */
export interface TimelineBuild {
  /** The section's job and build number; none for a single build's chart. */
  section?: { job: string; number: number | null }
  stages: readonly PipelineStage[]
}

/** Marks a name keeps; anything else (`:` `#` `;` `%` backticks, `<`, `&`, quotes, newlines …) becomes a space. */
const KEPT = /[^\p{L}\p{M}\p{N} \-_.,()/+=@!?'*]/gu
/** Statements of the gantt grammar a line may start with (case-insensitive), and its date token. */
const KEYWORD_START =
  /^(gantt|dateformat|inclusiveenddates|topaxis|axisformat|tickinterval|includes|excludes|todaymarker|weekday|weekend|title|accdescription|acctitle|accdescr|section|click|href|call|\d{4}-\d\d-\d\d)/i

/**
 * A name as it may stand in a task or section title.
 * @internal
 */
export function mermaidText(name: string, max = TITLE_CHARS): string {
  const text = cut(name.replace(KEPT, ' ').replace(/\s+/g, ' ').trim(), max)
  if (text === '') return '(unnamed)'
  return KEYWORD_START.test(text) ? `_${text}` : text
}

/**
 * How a stage shows, by its status (StatusExt): its icon in the stages
 * table (report.ts), and in the chart its task tags (`done`, `crit`,
 * `active`) and the word added to its title.
 */
export const STAGE_LOOK: Record<string, { icon: string; tags: string; word?: string }> = {
  SUCCESS: { icon: '✅', tags: 'done' },
  FAILED: { icon: '❌', tags: 'crit', word: 'failed' },
  UNSTABLE: { icon: '⚠️', tags: 'crit, done', word: 'unstable' },
  ABORTED: { icon: '⛔', tags: 'done', word: 'aborted' },
  // Never in the chart: a stage not executed has no time (barOf).
  NOT_EXECUTED: { icon: '⚪', tags: 'done' },
  IN_PROGRESS: { icon: '⏳', tags: 'active', word: 'running' },
  PAUSED_PENDING_INPUT: { icon: '⏸️', tags: 'active', word: 'waiting for input' }
}

/** The first instant a bar may start: no Jenkins Pipeline ran before 2000, so an earlier clock is broken. */
const FIRST_DRAWN = Date.UTC(2000, 0, 1)
/** The last instant a bar may end: four-digit years (JavaScript's last date is in 275760). */
const LAST_DRAWN = Date.UTC(9999, 11, 31, 23, 59, 59, 999)

/**
 * The bar of a stage that started (a stage not executed has no time), in
 * epoch milliseconds, or undefined when its times are not ones Mermaid can
 * place (see the header).
 */
function barOf(stage: PipelineStage): { start: number; end: number } | undefined {
  if (stage.status === 'NOT_EXECUTED') return undefined
  const start = Math.floor(stage.startTimeMillis)
  const end = start + Math.max(0, Math.floor(stage.durationMillis))
  if (!Number.isFinite(end) || start < FIRST_DRAWN || end > LAST_DRAWN) return undefined
  return { start, end }
}

/** The chart is under this many tick intervals long: at most seven labels. */
const SPANS_PER_AXIS = 6
const SECOND = 1000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

/**
 * Tick intervals (Mermaid's `tickInterval`: d3 time intervals, aligned on
 * the clock's round values) and the d3 time format of their labels, finest
 * first. Seconds show once a tick is under a minute, milliseconds under a
 * second; the day shows once the chart can span more than a day.
 */
const axes = (counts: number[], unit: string, ms: number, format: string) =>
  counts.map(n => ({ ms: n * ms, interval: `${n}${unit}`, format }))
const AXES = [
  ...axes([100, 200, 500], 'millisecond', 1, '%H:%M:%S.%L'),
  ...axes([1, 2, 5, 10, 15, 30], 'second', SECOND, '%H:%M:%S'),
  ...axes([1, 2, 5, 10, 15, 30], 'minute', MINUTE, '%H:%M'),
  ...axes([1, 2, 3], 'hour', HOUR, '%H:%M'),
  ...axes([6, 12], 'hour', HOUR, '%b %-d %H:%M'),
  ...axes([1, 2, 7], 'day', DAY, '%b %-d'),
  ...axes([1, 3, 6], 'month', 30 * DAY, '%b %Y')
]
/** Beyond the last of AXES: a label a year (Mermaid has no coarser interval). */
const YEARLY = { ms: 365 * DAY, interval: '12month', format: '%Y' }

/**
 * The axis of a chart spanning `spanMs`: the finest tick interval that cuts
 * it into fewer than SPANS_PER_AXIS spans, and its label format. A span over
 * three years gets a label a year.
 * @internal
 */
export function axisTicks(spanMs: number): { interval: string; format: string } {
  return AXES.find(a => spanMs < SPANS_PER_AXIS * a.ms) ?? YEARLY
}

/**
 * The gantt chart of the builds' stages (dateFormat x: bars start and end
 * at epoch milliseconds), a fenced ```mermaid block, and how many stages
 * started but got no bar (over MAX_BARS); undefined when no stage started.
 * @internal
 */
export function stageTimeline(builds: readonly TimelineBuild[]) {
  const lines: string[] = []
  let bars = 0
  let leftOut = 0
  let first = Infinity
  let last = -Infinity
  for (const build of builds) {
    const stages = build.stages.flatMap(stage => {
      const bar = barOf(stage)
      return bar ? [{ stage, bar }] : []
    })
    if (stages.length === 0) continue
    const room = Math.max(0, MAX_BARS - bars)
    leftOut += Math.max(0, stages.length - room)
    if (room === 0) continue
    if (build.section) {
      const { job, number } = build.section
      lines.push(`    section ${mermaidText(job, 100)}${number === null ? '' : ` #${number}`}`)
    }
    for (const { stage, bar } of stages.slice(0, room)) {
      // A status a newer plugin may add is Jenkins text too.
      const look = STAGE_LOOK[stage.status] ?? { tags: 'done', word: mermaidText(stage.status, 30) }
      const title = mermaidText(stage.name) + (look.word ? ` (${look.word})` : '')
      lines.push(`    ${title} :${look.tags}, ${bar.start}, ${bar.end}`)
      first = Math.min(first, bar.start)
      last = Math.max(last, bar.end)
      bars++
    }
  }
  if (bars === 0) return undefined
  // Mermaid's axis runs from the first bar's start to the last bar's end.
  const axis = axisTicks(last - first)
  const header = [
    '```mermaid',
    'gantt',
    '    dateFormat x',
    `    axisFormat ${axis.format}`,
    `    tickInterval ${axis.interval}`
  ]
  return { chart: [...header, ...lines, '```'].join('\n'), leftOut }
}

/**
 * Adds the chart to the summary, under a heading, with a line for the
 * stages left out. A blank line before the fence: right after an HTML block
 * (a table) Markdown would not see it.
 */
export function addTimeline(summary: typeof coreSummary, builds: readonly TimelineBuild[]): void {
  const timeline = stageTimeline(builds)
  if (!timeline) return
  summary.addHeading('Stage timeline', 3)
  summary.addRaw(`\n${timeline.chart}\n`, true)
  if (timeline.leftOut > 0) {
    summary.addRaw(
      `<p>… and ${timeline.leftOut} more stage(s), not drawn (at most ${MAX_BARS} bars).</p>`,
      true
    )
  }
}
