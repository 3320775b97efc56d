/**
 * The stage timeline of the job summary: a Mermaid `gantt` chart of Pipeline
 * stages (GitHub renders ```mermaid blocks in job summaries), one bar per
 * stage that started, one section per build when there are several.
 *
 * Stage and job names are Jenkins text inside a diagram: Mermaid's gantt
 * lexer (mermaid-js/mermaid packages/mermaid/src/diagrams/gantt/parser/gantt.jison)
 * ends a task title at `:` or a newline, treats `%%` as a comment or an
 * `%%{init}%%` directive, ends task data at `#` and `;`, and reads a line
 * that starts with a keyword (`click`, `section`, `title`, a date …) as that
 * statement. Names are therefore reduced to letters, digits, spaces and a
 * few harmless marks, and a name that would start with a keyword gets a
 * prefix: no name can end the code block, add a line to the diagram, a link
 * or HTML.
 */
import type { summary as coreSummary } from '@actions/core'
import type { PipelineStage } from '../jenkins/model/types.js'

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
  section?: { job: string; number?: number }
  stages: readonly PipelineStage[]
}

/**
 * The chart and the line that counts the stages left out, both Markdown.
 * @internal
 */
export interface Timeline {
  /** A fenced ```mermaid block. */
  chart: string
  /** Stages that started but got no bar (over MAX_BARS). */
  leftOut: number
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
  let text = name.replace(KEPT, ' ').replace(/\s+/g, ' ').trim()
  if ([...text].length > max) text = `${[...text].slice(0, max - 1).join('')}…`
  if (text === '') return '(unnamed)'
  return KEYWORD_START.test(text) ? `_${text}` : text
}

/** Task tags (`done`, `crit`, `active`) and the word added to the title, by StatusExt. */
const LOOK: Record<string, { tags: string; word?: string }> = {
  SUCCESS: { tags: 'done' },
  FAILED: { tags: 'crit', word: 'failed' },
  UNSTABLE: { tags: 'crit, done', word: 'unstable' },
  ABORTED: { tags: 'done', word: 'aborted' },
  IN_PROGRESS: { tags: 'active', word: 'running' },
  PAUSED_PENDING_INPUT: { tags: 'active', word: 'waiting for input' }
}

/** Whether a stage gets a bar: it started (a stage not executed has no time). */
function drawn(stage: PipelineStage): boolean {
  return stage.status !== 'NOT_EXECUTED' && stage.startTimeMillis > 0
}

/**
 * The gantt chart of the builds' stages (dateFormat x: bars start and end
 * at epoch milliseconds); undefined when no stage started.
 * @internal
 */
export function stageTimeline(
  builds: readonly TimelineBuild[],
  maxBars = MAX_BARS
): Timeline | undefined {
  const lines = ['```mermaid', 'gantt', '    dateFormat x', '    axisFormat %H:%M:%S']
  let bars = 0
  let leftOut = 0
  for (const build of builds) {
    const stages = build.stages.filter(drawn)
    if (stages.length === 0) continue
    const room = Math.max(0, maxBars - bars)
    leftOut += Math.max(0, stages.length - room)
    if (room === 0) continue
    if (build.section) {
      const { job, number } = build.section
      lines.push(`    section ${mermaidText(job, 100)}${number === undefined ? '' : ` #${number}`}`)
    }
    for (const stage of stages.slice(0, room)) {
      // A status a newer plugin may add is Jenkins text too.
      const look = LOOK[stage.status] ?? { tags: 'done', word: mermaidText(stage.status, 30) }
      const title = mermaidText(stage.name) + (look.word ? ` (${look.word})` : '')
      const start = Math.floor(stage.startTimeMillis)
      const end = start + Math.max(0, Math.floor(stage.durationMillis))
      lines.push(`    ${title} :${look.tags}, ${start}, ${end}`)
      bars++
    }
  }
  if (bars === 0) return undefined
  lines.push('```')
  return { chart: lines.join('\n'), leftOut }
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
