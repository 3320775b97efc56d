/**
 * A build ended: the one path from its end to its report, for every build
 * of the step (run-builds.ts), followed or taken as it is. The step judges
 * it (judgeEnd), reads what it produced into its outcome and sets its
 * commit statuses (reportEnded); the presenter then writes the outputs,
 * summary and failure message from that outcome.
 */
import { downloadArtifacts } from '../outcome/artifacts.js'
import type { GithubReports } from '../outcome/github-reports.js'
import type { BuildOutcome } from '../outcome/report.js'
import { failedStage, readStages } from '../outcome/stages.js'
import { locateFailedTests } from '../outcome/test-locations.js'
import { annotateFailedTests, MAX_ANNOTATED, readTests } from '../outcome/test-report.js'
import { readValues, type ValuesOutcome } from '../outcome/values.js'
import type { Settings } from '../inputs/inputs.js'
import type { Build, BuildRef } from '../jenkins/model/types.js'
import type { BuildOutputsApi, JenkinsApi } from '../jenkins/client.js'
import type { StepIO } from '../runner/io.js'
import type { BuildResult } from '../util/constants.js'
import { formatDuration } from '../util/duration.js'
import type { Logger } from '../util/logger.js'
import type { StepItem } from './build-begun.js'

/**
 * The build's end as the step judges it (its outcome is shared by the
 * items that follow it): the build, its result, whether `accept` takes
 * it; said in the log. Whether it was accepted.
 */
export function judgeEnd(
  outcome: BuildOutcome,
  final: Build,
  o: { ref: BuildRef; accept: readonly BuildResult[]; logger: Logger }
): boolean {
  const accepted = final.result !== null && o.accept.includes(final.result)
  outcome.build = final
  outcome.result = final.result ?? undefined
  outcome.accepted = accepted
  o.logger.info(
    `Jenkins build ${outcome.jobName} #${o.ref.number} finished: ${final.result ?? 'no result'} in ${formatDuration(final.duration)}.`
  )
  return accepted
}

/** An item that follows the build: its commit status, its values file (a hand-off settled has none), its report (which gets the values). */
type Owner = Pick<StepItem, 'status' | 'report'> & Partial<Pick<StepItem, 'entry'>>

/** What reportEnded needs: the build, where its products go, and whom to tell. */
export interface EndedBuild {
  api: JenkinsApi & BuildOutputsApi
  settings: Pick<Settings, 'artifacts' | 'artifactsPath' | 'workspace' | 'valuesFileRequired'>
  ref: BuildRef
  final: Build
  /** Judged (judgeEnd); what the build produced goes in it. */
  outcome: BuildOutcome
  signal: AbortSignal
  out: Pick<StepIO, 'logger' | 'annotate'>
  /** The step's reports on GitHub: the failed tests' source links name its commit under test. */
  reports: GithubReports | undefined
  /** The items that follow the build: their values are read, their statuses set to its result once its products are read. */
  owners: readonly Owner[]
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
    annotateFailedTests(outcome.tests, out.annotate)
  }
  outcome.stages = await readStages(api, ref, final, out.logger, unread)
  outcome.failedStage = failedStage(outcome.stages, final.result)?.name
  if (settings.artifacts.length > 0) {
    outcome.artifacts = await downloadArtifacts(api, settings, ref, out.logger, signal, unread)
  }
  // Items that share the build may name different values files: each file read once.
  const values = new Map<string, Promise<ValuesOutcome>>()
  const required = settings.valuesFileRequired
  for (const { entry, report } of e.owners) {
    const path = entry?.valuesFile
    if (path === undefined) continue
    if (!values.has(path)) values.set(path, readValues(api, ref, path, out.logger, { required }))
    report.values = await values.get(path)
  }
  if (unread.length > 0) outcome.unread = unread
  await Promise.all(
    e.owners.map(({ status }) =>
      status?.finish(
        final.result ?? 'error',
        `Jenkins #${ref.number}: ${final.result ?? 'no result'}`,
        { url: ref.url, accepted: outcome.accepted }
      )
    )
  )
}
