/**
 * What differs between one `job` and several `jobs`, chosen once at the
 * start (presenterFor): the wording, the report and the console. The flow
 * (run-builds.ts) is one for both; docs/architecture.md.
 */
import { join } from 'node:path'
import { QueueItemEnded } from '../follow/queue-ended.js'
import type { Settings } from '../inputs/inputs.js'
import type { JobEntry } from '../inputs/jobs-input.js'
import { queueItemUrl, sameJob } from '../jenkins/model/job-path.js'
import type { BuildRef } from '../jenkins/model/types.js'
import { buildsFailure, failureMessage } from '../outcome/failure.js'
import { productProblems } from '../outcome/report.js'
import type { StepItem } from './build-begun.js'
import type { BuildResult } from '../util/constants.js'
import { errorText } from '../util/error-text.js'
import type { RemoteWork } from './remote-work.js'

/** How the step presents its builds. */
export interface Presenter {
  /** What the stop message says the step waited for: `Jenkins <job>`, `<n> Jenkins builds`, the hand-offs to settle. */
  waitingFor: string
  /** The pull request comment's report name: the status context, or all of them. */
  reportName: string
  /**
   * There are several builds: lines about one name its job; the outputs and
   * the summary are of several (build-outputs.ts, report.ts). A lone build's
   * console streams as it runs; several are printed each once its build
   * ended (groups cannot interleave).
   */
  several: boolean
  /** The input an item's files come from, for messages. */
  filesLabel(index: number): string
  /** The line said when an item waits in the queue (`why`: Jenkins' text). */
  waiting(entry: JobEntry, why: string): string
  /** Where an item's artifacts go. */
  artifactsFolder(entry: JobEntry, ref: BuildRef): string
  /** What the step fails with (undefined: it passed). */
  failure(items: readonly StepItem[], accept: readonly BuildResult[]): unknown
  /** After a stop message's head: which build or queue item it waited for (' #5'). */
  stopTarget(work: RemoteWork): string
  /** How a failure names the work it leaves running (`urls`: each target's). */
  leftRunning(left: ReadonlyArray<{ queueId?: number; build?: BuildRef }>, urls: string[]): string
}

/** The presenter of the step's inputs: `jobs`, or the one `job`. */
export function presenterFor(settings: Settings): Presenter {
  return settings.jobs ? several(settings, settings.jobs) : one(settings)
}

/** One `job`: the step's outputs and summary are the build's, its failure the build's own message, its console live. */
function one(settings: Settings): Presenter {
  return {
    // `settle` takes one `job` or none (inputs.ts).
    waitingFor: settings.settle ? 'the hand-offs to settle' : `Jenkins ${settings.jobName}`,
    reportName: settings.statusContext,
    several: false,
    filesLabel: () => "Input 'files'",
    waiting: (_, why) => `Waiting in the Jenkins queue: ${why}`,
    artifactsFolder: () => settings.artifactsPath,
    failure: ([item], accept) => {
      if (!item) return undefined
      const { outcome, tail } = item.report
      if (item.failure instanceof QueueItemEnded) {
        // Jenkins shows the item cancelled or gone: nothing of it runs.
        const { queueId } = item.failure
        const url = queueItemUrl(settings.url, queueId)
        return new Error(
          `${errorText(item.failure).replace(/\.?$/, '.')} Nothing this step started is running in Jenkins (queue item ${queueId}: ${url}).`
        )
      }
      if (item.failure !== undefined) return item.failure
      // A wanted artifact or values file that is missing fails the step even when the build passed.
      const lines = productProblems(item.report)
      if (outcome.accepted === false) lines.unshift(failureMessage({ ...outcome, accept }, tail))
      return lines.length > 0 ? new Error(lines.join('\n')) : undefined
    },
    stopTarget: work => {
      const { ref, queueId } = work.item(0)
      return ref ? ` #${ref.number}` : queueId !== undefined ? ` (queue item ${queueId})` : ''
    },
    leftRunning: ([first], urls) =>
      first?.build
        ? `Jenkins build #${first.build.number} is still running: ${urls[0]}`
        : `Jenkins queue item ${first?.queueId}: ${urls[0]}`
  }
}

/** Several `jobs`: the `builds` output, one table, one failure listing each build that did not pass, each console after its build. */
function several(settings: Settings, entries: readonly JobEntry[]): Presenter {
  return {
    waitingFor: `${entries.length} Jenkins builds`,
    // One comment for the step: named for all its builds.
    reportName: entries.map(entry => entry.statusContext).join(' '),
    several: true,
    filesLabel: index => `Input 'jobs' item ${index + 1}'s files`,
    waiting: (entry, why) => `Jenkins ${entry.jobName}: waiting in the queue: ${why}`,
    artifactsFolder: (entry, ref) => {
      // A job listed more than once gets a folder per build: its builds would share names.
      const twice = entries.filter(e => sameJob(e.job, entry.job)).length > 1
      const names = entry.job.map(name => name.replace(/[<>:"|?*\\\p{Cc}]/gu, '_'))
      return join(settings.artifactsPath, ...names, ...(twice ? [String(ref.number)] : []))
    },
    failure: (items, accept) =>
      buildsFailure(
        items.map(item => item.report),
        accept
      ),
    stopTarget: () => '',
    leftRunning: (_, urls) => `Jenkins work this step started is still running: ${urls.join(', ')}`
  }
}
