/**
 * What a finished run says, read from its RunRecord alone (pure, so that the
 * figures built on runs can be unit-tested with made-up records): whether it
 * ended as it should, why not, and when it printed a text.
 */
import { cut } from '../../src/util/shorten.js'
import type { RunRecord } from './runs.js'

/** Why a run did not end as it should (exit 0, its own build ended), or undefined when it did. */
export function runFailure(run: RunRecord): string | undefined {
  if (run.code !== 0) return `exit ${run.code}`
  if (!run.build) return 'exit 0 without a build of its own'
  if (run.build.finishedAt === null) return `exit 0 while its build #${run.build.number} ran on`
  return undefined
}

/** A workflow command's prefix (`::error::`, `::debug file=…::`): the reason reads without it. */
const COMMAND = /^::[a-z-]+(?: [^:]*)?::/

/**
 * A failed run in one line of at most `max` characters: why it failed and
 * its last line of stderr, or of stdout when stderr is empty (where the
 * action prints its `::error::`).
 */
export function failureReason(run: RunRecord, max = 200): string {
  const last = (text: string): string | undefined =>
    text
      .split('\n')
      .map(line => line.trim())
      .filter(Boolean)
      .pop()
  const line = last(run.stderr) ?? last(run.stdout)
  const why = runFailure(run) ?? 'no failure'
  return cut(line ? `${why}: ${line.replace(COMMAND, '')}` : why, max)
}

/** The runs that ended as they should, and the others, each in the order given. */
export function splitRuns(runs: readonly RunRecord[]): {
  succeeded: RunRecord[]
  failed: RunRecord[]
} {
  const succeeded: RunRecord[] = []
  const failed: RunRecord[] = []
  for (const run of runs) (runFailure(run) === undefined ? succeeded : failed).push(run)
  return { succeeded, failed }
}

/** When the stdout chunk holding `text` reached the bench (NaN when it never did). */
export function printedAt(run: RunRecord, text: string): number {
  const at = run.stdout.indexOf(text)
  if (at < 0 || !run.stdoutTimes) return NaN
  return run.stdoutTimes.find(t => t.end > at)?.at ?? NaN
}
