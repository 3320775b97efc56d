import { join } from 'node:path'
import type { Settings } from '../inputs/inputs.js'
import type { JobEntry } from '../inputs/jobs-input.js'
import { Interrupted } from '../jenkins/transport/errors.js'
import { sameJob } from '../jenkins/model/job-path.js'
import type { Build, BuildOutputsApi, BuildRef, JenkinsApi } from '../jenkins/model/types.js'
import type { GithubReports } from '../outcome/github-reports.js'
import { readValues } from '../outcome/values.js'
import { reportEnded } from '../step/build-ended.js'
import { statusFailure } from '../follow/build-parts.js'
import { printConsole } from './console.js'
import type { Printer } from './printer.js'
import type { Item } from './item.js'
import { errorText } from '../util/error-text.js'

/** What completing a build needs of the run. */
export interface CompleteContext {
  api: JenkinsApi & BuildOutputsApi
  settings: Settings
  signal: AbortSignal
  printer: Printer
  /** Every item of `jobs`: a job listed twice gets a folder per build. */
  entries: readonly JobEntry[]
  /** The step's reports on GitHub (the commit the failed tests link to). */
  reports: GithubReports | undefined
}

/**
 * A judged build of `jobs` ended (step/build-ended.ts reportEnded, once for
 * every item that shares it): what it produced and its commit statuses,
 * then its console (in its group, when the builds' turn comes). An error
 * here (not a cancel) is the items', and the others go on.
 */
export async function completeBuild(
  c: CompleteContext,
  owners: Item[],
  ref: BuildRef,
  final: Build,
  watched: boolean
): Promise<void> {
  const { api, settings, signal, printer } = c
  const [first] = owners
  if (!first) return
  const outcome = first.report.outcome
  try {
    await reportEnded({
      api,
      settings: {
        ...settings,
        artifactsPath: artifactsFolder(c, first, ref),
        valuesFile: first.entry.valuesFile
      },
      ref,
      final,
      outcome,
      signal,
      out: {
        logger: printer.logger,
        annotate: (message, title, where) => printer.annotate(message, title, where)
      },
      reports: c.reports,
      statuses: owners.map(item => item.status)
    })
    const tail =
      settings.log && (settings.build === 'new' || watched)
        ? await printConsole(api, ref, printer, signal)
        : []
    for (const item of owners) {
      item.report.tail = tail
      if (item === first) continue
      const shared = item.report.outcome
      shared.tests = outcome.tests
      shared.stages = outcome.stages
      shared.failedStage = outcome.failedStage
      shared.artifacts = outcome.artifacts
      shared.unread = outcome.unread
      // Items that share the build may name different values files.
      const path = item.entry.valuesFile
      if (path === undefined) continue
      shared.values =
        path === first.entry.valuesFile
          ? outcome.values
          : await readValues(api, ref, path, printer.logger, {
              required: settings.valuesFileRequired
            })
    }
  } catch (error) {
    if (error instanceof Interrupted || signal.aborted) throw error
    for (const item of owners) item.report.error = errorText(error)
    // A status left pending would block a protected branch for good.
    const why = statusFailure(error, signal)
    await Promise.all(
      owners.map(i => i.status?.finished || i.status?.finish('error', why, ref.url))
    )
  } finally {
    for (const item of owners) item.done = true
  }
}

/**
 * Each build's artifacts go to a folder of their own below
 * `artifacts-path`: the job's path, and the build number too when the
 * job is listed more than once (its builds would share names).
 */
function artifactsFolder(c: CompleteContext, item: Item, ref: BuildRef): string {
  const twice = c.entries.filter(e => sameJob(e.job, item.entry.job)).length > 1
  const names = item.entry.job.map(name => name.replace(/[<>:"|?*\\\p{Cc}]/gu, '_'))
  return join(c.settings.artifactsPath, ...names, ...(twice ? [String(ref.number)] : []))
}
