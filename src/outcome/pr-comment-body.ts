/**
 * The text of the pull request comment (`pr-comment`): one line per build
 * (queued, running, or its result with duration, link and test counts), the
 * failed stage and up to 10 failed tests of each, and a link to the
 * workflow run whose summary has the rest. Pure: pr-comment.ts writes it.
 *
 * Everything that comes from Jenkins (job, test and stage names, errors) is
 * in a code span on one line (codeSpan, below, says why escapes are not
 * enough); links go only to the configured Jenkins and to the workflow run.
 * The body stays within GitHub's 65,536 characters by listing fewer failed
 * tests, then fewer builds.
 */
import { createHash } from 'node:crypto'
import { formatDuration } from '../util/duration.js'
import { httpHref } from '../util/http-url.js'
import { NAME_CHARS } from '../util/names.js'
import { buildNumber } from './build-outputs.js'
import { RESULT_ICONS } from './history.js'
import type { BuildReport } from './report.js'

/**
 * GitHub refuses a longer comment body (422).
 * @internal
 */
export const MAX_COMMENT_CHARS = 65_536
/** Failed tests listed per build at most. */
const MAX_COMMENT_TESTS = 10
const ERROR_CHARS = 300

/** One build of the comment, as the step knows it now (its console's last lines are not the comment's). */
export type CommentBuild = Omit<BuildReport, 'tail'>

export interface CommentInput {
  /** The report's name: the `status-context`, or for `jobs` the step's. */
  name: string
  builds: readonly CommentBuild[]
  /** The workflow run, whose summary has the rest. */
  runUrl?: string
  /** Links go only under this base (the `url` input): nothing from Jenkins picks a link. */
  jenkinsUrl: string
}

/**
 * The hidden first line that finds the comment again on a later run: one per
 * report name, hashed so that no name can end the HTML comment.
 */
export function commentMarker(name: string): string {
  const id = createHash('sha256').update(name).digest('hex').slice(0, 16)
  return `<!-- jenkins-build-action report ${id} -->`
}

/** The comment's Markdown, at most MAX_COMMENT_CHARS characters. */
export function renderComment(input: CommentInput): string {
  const link = (text: string, url: string | undefined): string => {
    const target = url?.startsWith(`${input.jenkinsUrl}/`) ? linkTarget(url) : undefined
    return target ? `[${text}](${target})` : text
  }
  const head = `${commentMarker(input.name)}\n### Jenkins: ${codeSpan(input.name, NAME_CHARS)}\n\n`
  const run = linkTarget(input.runUrl)
  const foot = run
    ? `\nThe [workflow run](${run}) has the console, the summary and the rest.\n`
    : ''
  const room = MAX_COMMENT_CHARS - head.length - foot.length
  const block = (build: CommentBuild, tests: number): string =>
    buildLines(build, tests, link).join('\n') + '\n'
  // Each try renders builds only until the room is spent: a step with
  // thousands of builds costs what fits in the comment, not what it has.
  for (const tests of [MAX_COMMENT_TESTS, 3, 0]) {
    const blocks = fitting(input.builds, room, build => block(build, tests))
    if (blocks.length === input.builds.length) return head + blocks.join('') + foot
  }
  // Thousands of builds: as many as fit, and how many more there are.
  const more = (n: number): string => `- and ${n} more builds: see the workflow run.\n`
  const shown = fitting(input.builds, room - more(input.builds.length).length, build =>
    block(build, 0)
  )
  return head + shown.join('') + more(input.builds.length - shown.length) + foot
}

/** The blocks of the first builds whose total length is within `room`: rendering stops at the first that is not. */
function fitting(
  builds: readonly CommentBuild[],
  room: number,
  render: (build: CommentBuild) => string
): string[] {
  const blocks: string[] = []
  let used = 0
  for (const build of builds) {
    const text = render(build)
    used += text.length
    if (used > room) break
    blocks.push(text)
  }
  return blocks
}

type Link = (text: string, url: string | undefined) => string

function buildLines(build: CommentBuild, tests: number, link: Link): string[] {
  const { outcome } = build
  const job = link(codeSpan(outcome.jobName, NAME_CHARS), outcome.jobUrl)
  const number = buildNumber(outcome)
  const ref = number === null ? '' : ` ${link(`#${number}`, outcome.buildUrl)}`
  const head = `- ${stateOf(build, link)} ${job}${ref}`
  const lines = [head + detailsOf(build)]
  if (outcome.failedStage)
    lines.push(`  - Failed stage: ${codeSpan(outcome.failedStage, NAME_CHARS)}`)
  const failed = outcome.tests?.failed ?? []
  const listed = failed.slice(0, tests)
  if (listed.length > 0) {
    const of = outcome.tests?.counts.failed ?? failed.length
    lines.push(`  - Failed tests (${listed.length === of ? of : `${listed.length} of ${of}`}):`)
    for (const test of listed) {
      const where = outcome.tests?.located?.get(test)
      const at = where ? ` at ${codeSpan(`${where.file}:${where.line}`, NAME_CHARS)}` : ''
      const error = firstLine(test.errorDetails ?? '')
      const name = test.className ? `${test.className}.${test.name}` : test.name
      lines.push(
        `    - ${codeSpan(name, NAME_CHARS)}${at}${error ? `: ${codeSpan(error, ERROR_CHARS)}` : ''}`
      )
    }
  }
  return lines
}

/** The symbol and state word(s). */
function stateOf(build: CommentBuild, link: Link): string {
  const { outcome } = build
  if (build.stopped) return `⛔ stopped (${codeSpan(build.stopped, ERROR_CHARS)})`
  if (build.left) return `↪️ left running (${codeSpan(build.left, ERROR_CHARS)})`
  if (outcome.result) {
    const accepted = outcome.accepted && outcome.result !== 'SUCCESS' ? ' (accepted)' : ''
    return `${RESULT_ICONS[outcome.result]} **${outcome.result}**${accepted}`
  }
  if (build.error) return `❌ **failed**: ${codeSpan(firstLine(build.error), ERROR_CHARS)}`
  if (outcome.buildUrl) return outcome.note ? '▶️ **started**' : '🔄 **running**'
  if (outcome.queueUrl) return `⏳ **${link('queued', outcome.queueUrl)}**`
  return '⏳ **waiting**'
}

/** Duration and test counts of a finished build. */
function detailsOf(build: CommentBuild): string {
  const { outcome } = build
  const parts: string[] = []
  if (outcome.result && outcome.build) parts.push(formatDuration(outcome.build.duration))
  const counts = outcome.tests?.counts
  if (counts) {
    parts.push(`tests: ${counts.total} total, ${counts.failed} failed, ${counts.skipped} skipped`)
  }
  return parts.length > 0 ? ` · ${parts.join(' · ')}` : ''
}

/** The first line that is not blank, trimmed (\S and trim() know the same spaces). */
function firstLine(text: string): string {
  return /\S[^\r\n\u2028\u2029]*/.exec(text)?.[0].trimEnd() ?? ''
}

/**
 * Text from Jenkins in the comment's GitHub-flavoured Markdown, made
 * inert. Escapes do not do it there: GitHub forms @-mentions, issue
 * references and autolinks after entity and backslash escapes are decoded
 * (`&#64;team` still pings the team), and raw HTML passes its filter in
 * part. Inside a code span nothing is parsed: no HTML, no mention, no link,
 * no emphasis. So every piece of untrusted text goes in one code span on
 * one line.
 */

// C0 and C1 controls, and the bidirectional overrides that make a name read
// otherwise than it is written.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g
/** Every line break and space GitHub or a browser may honour (JavaScript's \s has U+2028, U+2029, NBSP). */
const SPACES = /\s+/g

/**
 * `text` as one inline code span of at most `max` characters (code points):
 * line breaks and controls become spaces (a line break would end the list
 * item, a blank line the paragraph), and the fence is one backtick longer
 * than the longest run inside, so no backtick in the text can close it.
 * @internal
 */
export function codeSpan(text: string, max: number): string {
  // Enough of a long text for `max` code points once its spaces are folded.
  const head = text.length > max * 4 ? text.slice(0, max * 4) : text
  const flat = head.replace(CONTROL, ' ').replace(SPACES, ' ').trim()
  const chars = Array.from(flat)
  const cut = chars.slice(0, max - 1).join('')
  const shown = chars.length <= max ? flat : `${cut.trimEnd()}…`
  if (shown === '') return '(empty)'
  const longest = Math.max(0, ...Array.from(shown.matchAll(/`+/g), run => run[0].length))
  const fence = '`'.repeat(longest + 1)
  // A span that starts or ends with a backtick needs a space inside its
  // fence (CommonMark strips one on each side when both are there).
  const pad = shown.startsWith('`') || shown.endsWith('`') ? ' ' : ''
  return fence + pad + shown + pad + fence
}

/**
 * A Markdown link destination for an http(s) URL, or undefined: `(`, `)`,
 * `<`, `>` and spaces percent-encoded, so the URL cannot end the link early.
 */
function linkTarget(url: string | undefined): string | undefined {
  return httpHref(url)?.replace(
    /[()<>\s]/g,
    c => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`
  )
}
