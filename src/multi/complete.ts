import { join } from 'node:path'
import { readProducts } from '../follow/build-parts.js'
import type { Settings } from '../inputs/inputs.js'
import type { JobEntry } from '../inputs/jobs-input.js'
import { Interrupted } from '../jenkins/transport/errors.js'
import { fullName } from '../jenkins/model/job-path.js'
import type { Build, BuildOutputsApi, BuildRef, JenkinsApi } from '../jenkins/model/types.js'
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
}

/**
 * What a finished build produced, its console (in its group, when the
 * builds' turn comes) and its commit status, for every item that shares
 * the build. An error here (not a cancel) is the items', and the others go
 * on.
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
    await readProducts(
      api,
      { ...settings, artifactsPath: artifactsFolder(c, first, ref) },
      ref,
      final,
      outcome,
      signal,
      {
        logger: printer.logger,
        annotate: (message, title, where) => printer.annotate(message, title, where)
      }
    )
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
    }
  } catch (error) {
    if (error instanceof Interrupted || signal.aborted) throw error
    for (const item of owners) item.report.error = errorText(error)
  } finally {
    for (const item of owners) item.done = true
  }
  await Promise.all(
    owners.map(item =>
      item.status?.finish(
        final.result ?? 'error',
        `Jenkins #${ref.number}: ${final.result ?? 'no result'}`,
        ref.url,
        item.report.outcome.accepted
      )
    )
  )
}

/**
 * Each build's artifacts go to a folder of their own below
 * `artifacts-path`: the job's path, and the build number too when the
 * job is listed more than once (its builds would share names).
 */
function artifactsFolder(c: CompleteContext, item: Item, ref: BuildRef): string {
  const key = fullName(item.entry.job).toLowerCase()
  const twice = c.entries.filter(e => fullName(e.job).toLowerCase() === key).length > 1
  const names = item.entry.job.map(name => name.replace(/[<>:"|?*\\\p{Cc}]/gu, '_'))
  return join(c.settings.artifactsPath, ...names, ...(twice ? [String(ref.number)] : []))
}
