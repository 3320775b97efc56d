/**
 * The step's failure message, written once for one `job` and `jobs`: a
 * build's own (failureMessage: what finished how, where, its console's
 * last lines), and with several builds one line per build that did not
 * pass before the messages of those that failed by themselves.
 */
import type { BuildResult } from '../util/constants.js'
import { plainConsoleLine } from '../util/console-line.js'
import { shortName } from '../util/names.js'
import {
  buildTitle,
  didNotPass,
  productProblems,
  type BuildOutcome,
  type BuildReport
} from './report.js'

const TAIL_LINES = 30
const TAIL_BYTES = 4 * 1024

/**
 * The failure annotation: what finished how, where, and the console's last
 * lines (at most 30 lines / 4 KiB), so the cause shows without opening the log.
 */
export function failureMessage(outcome: BuildOutcome, tail: string[]): string {
  const build = outcome.build
  const result = outcome.result ?? build?.result ?? 'without a result'
  const name = shortName(outcome.jobName)
  const head = !build
    ? `Jenkins job ${name} did not start a build`
    : build.building && !outcome.result
      ? `Jenkins build ${name} #${build.number} did not finish`
      : `Jenkins build ${name} #${build.number} finished ${result}${inStage(outcome)}`
  const accepted = outcome.accept?.length ? ` (accepted: ${outcome.accept.join(', ')})` : ''
  const url = outcome.buildUrl ?? (build ? undefined : outcome.queueUrl)
  const lines = [`${head}${accepted}${url ? ` — ${url}` : ''}`]
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
      const end = Buffer.from(line).subarray(-(TAIL_BYTES - 8))
      line = `…${end.toString('utf8').replace(/^\uFFFD+/, '')}`
    }
    bytes += Buffer.byteLength(line) + 1
    kept.unshift(line)
  }
  return kept
}

const TAIL_IN_MESSAGE = 10

/**
 * The step's failure when some item failed (undefined when none
 * did): one line per failed item, naming it, its result and link, then
 * each build's failure message (failureMessage) for
 * those that failed by themselves (not those fail-fast stopped). A missing
 * wanted artifact, or a required values file, fails the step too.
 */
export function buildsFailure(
  items: readonly BuildReport[],
  accept: readonly BuildResult[]
): Error | undefined {
  const bad = items.filter(didNotPass)
  const problems = items.flatMap(productProblems)
  if (bad.length === 0) return problems.length > 0 ? new Error(problems.join('\n')) : undefined
  const lines = [
    `${bad.length} of ${items.length} Jenkins builds did not pass (accepted: ${accept.join(', ')}):`
  ]
  for (const item of bad) lines.push(`- ${itemLine(item)}`)
  for (const item of bad) {
    if (item.stopped || item.error || item.tail.length === 0) continue
    lines.push('', failureMessage(item.outcome, item.tail.slice(-TAIL_IN_MESSAGE)))
  }
  return new Error([...lines, ...problems].join('\n'))
}

function itemLine(item: BuildReport): string {
  const { outcome } = item
  const name = buildTitle(outcome)
  if (item.error) return `${name}: ${item.error.replace(/\.$/, '')}`
  if (item.stopped && !outcome.result) return `${name}: ${item.stopped}`
  const result = outcome.result ?? 'no result'
  const stopped = item.stopped ? ` (${item.stopped})` : ''
  const url = outcome.buildUrl ?? outcome.queueUrl
  return `${name} ${result}${inStage(outcome)}${stopped}${url ? ` — ${url}` : ''}`
}

/** Where the result came from, after it: ` in stage 'Deploy'` (none when not known). */
function inStage({ failedStage }: BuildOutcome): string {
  return failedStage ? ` in stage '${shortName(failedStage)}'` : ''
}
