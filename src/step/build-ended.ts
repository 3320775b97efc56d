/**
 * A build ended: the one path from its end to its report, for one `job`
 * (build-job.ts) and each build of `jobs` (multi/complete.ts) alike. The
 * step judges it (judgeEnd), reads what it produced into its outcome and
 * sets its commit statuses (reportEnded); the outputs, summary and
 * failure message are then written from that outcome (outcome/build-outputs.ts,
 * outcome/report.ts).
 */
import { downloadArtifacts } from '../outcome/artifacts.js'
import type { CommitStatusReporter } from '../outcome/commit-status.js'
import type { GithubReports } from '../outcome/github-reports.js'
import type { BuildOutcome } from '../outcome/report.js'
import { failedStage, readStages } from '../outcome/stages.js'
import { locateFailedTests } from '../outcome/test-locations.js'
import { annotateFailedTests, MAX_ANNOTATED, readTests } from '../outcome/test-report.js'
import { readValues } from '../outcome/values.js'
import type { Settings } from '../inputs/inputs.js'
import type { Build, BuildOutputsApi, BuildRef, JenkinsApi } from '../jenkins/model/types.js'
import type { StepIO } from '../runner/io.js'
import type { BuildResult } from '../util/constants.js'
import { formatDuration } from '../util/duration.js'
import type { Logger } from '../util/logger.js'

/**
 * The build's end as the step judges it, for every outcome that follows
 * it (items of `jobs` that share it): the build, its result, whether
 * `accept` takes it; said once in the log. Whether it was accepted.
 */
export function judgeEnd(
  outcomes: readonly BuildOutcome[],
  final: Build,
  o: { ref: BuildRef; accept: readonly BuildResult[]; logger: Logger }
): boolean {
  const accepted = final.result !== null && o.accept.includes(final.result)
  for (const outcome of outcomes) {
    outcome.build = final
    outcome.result = final.result ?? undefined
    outcome.accepted = accepted
  }
  const name = outcomes[0]?.jobName ?? ''
  o.logger.info(
    `Jenkins build ${name} #${o.ref.number} finished: ${final.result ?? 'no result'} in ${formatDuration(final.duration)}.`
  )
  return accepted
}

/** What reportEnded needs: the build, where its products go, and whom to tell. */
export interface EndedBuild {
  api: JenkinsApi & BuildOutputsApi
  settings: Pick<
    Settings,
    'artifacts' | 'artifactsPath' | 'workspace' | 'valuesFile' | 'valuesFileRequired'
  >
  ref: BuildRef
  final: Build
  /** Judged (judgeEnd); what the build produced goes in it. */
  outcome: BuildOutcome
  signal: AbortSignal
  out: Pick<StepIO, 'logger' | 'annotate'>
  /** The step's reports on GitHub: the failed tests' source links name its commit under test. */
  reports: GithubReports | undefined
  /** The commit statuses that follow the build, set to its result once its products are read. */
  statuses: ReadonlyArray<CommitStatusReporter | undefined>
}

/**
 * What the ended build produced, then its commit statuses: its failed
 * tests (annotated, linked to their lines at the commit the step resolved,
 * as the statuses and the comment name it), its Pipeline stages, the
 * artifacts the user asked for (into `artifactsPath`), and the
 * `values-file`'s values. Reading tests and stages is a help and never
 * fails; an artifacts list that cannot be read does not fail either. What
 * could not be read is warned about and noted in `outcome.unread` for the
 * summary. An error (a download that failed, a cancel) is thrown before
 * any status is set: the caller reports it.
 */
export async function reportEnded(e: EndedBuild): Promise<void> {
  const { api, settings, ref, final, outcome, signal, out } = e
  const unread: string[] = []
  outcome.tests = await readTests(api, ref, final, out.logger, unread)
  if (outcome.tests) {
    const annotated = outcome.tests.failed.slice(0, MAX_ANNOTATED)
    const located = await locateFailedTests(annotated, settings.workspace, out.logger)
    outcome.tests.located = located
    if (located.size > 0) outcome.tests.commit = e.reports?.sourceCommit
    annotateFailedTests(outcome.tests, out.annotate, located)
  }
  outcome.stages = await readStages(api, ref, final, out.logger, unread)
  outcome.failedStage = failedStage(outcome.stages, final.result)?.name
  if (settings.artifacts.length > 0) {
    outcome.artifacts = await downloadArtifacts(api, settings, ref, out.logger, signal, unread)
  }
  if (settings.valuesFile !== undefined) {
    outcome.values = await readValues(api, ref, settings.valuesFile, out.logger, {
      required: settings.valuesFileRequired
    })
  }
  if (unread.length > 0) outcome.unread = unread
  await Promise.all(
    e.statuses.map(status =>
      status?.finish(
        final.result ?? 'error',
        `Jenkins #${ref.number}: ${final.result ?? 'no result'}`,
        ref.url,
        outcome.accepted
      )
    )
  )
}
