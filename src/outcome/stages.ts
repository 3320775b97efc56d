import type { BuildResult } from '../util/constants.js'
import { Interrupted } from '../jenkins/transport/errors.js'
import type { Build, BuildRef, JobInfo } from '../jenkins/model/types.js'
import type { PipelineRun, PipelineStage } from '../jenkins/reads/stages.js'
import type { BuildOutputsApi } from '../jenkins/client.js'
import { warnUnread, type Logger } from '../util/logger.js'
import { shortName } from '../util/names.js'
import { errorText } from '../util/error-text.js'

/** Whether `wfapi/describe` can exist for the build: its runs have stages (workflow-job's WorkflowRun). */
export function isPipeline(build: Pick<Build, '_class'>): boolean {
  return build._class === 'org.jenkinsci.plugins.workflow.job.WorkflowRun'
}

/** A Pipeline job (its builds are WorkflowRuns): what a build not read yet will be. */
export function isPipelineJob(job: Pick<JobInfo, '_class'>): boolean {
  return job._class === 'org.jenkinsci.plugins.workflow.job.WorkflowJob'
}

/**
 * The Pipeline's stages (so far, for a running one): [] when Jenkins has no Stage View plugin
 * (404), undefined for other builds or when they could not be read (a help,
 * not the result: a warning, and a note in `unread` for the summary).
 */
export async function readStages(
  api: Pick<BuildOutputsApi, 'describeRun'>,
  ref: BuildRef,
  build: Build,
  logger: Logger,
  unread: string[] = []
): Promise<PipelineStage[] | undefined> {
  if (!isPipeline(build)) return undefined
  try {
    const run = await api.describeRun(ref)
    if (!run) logger.debug('Jenkins has no wfapi/describe (Pipeline Stage View plugin): no stages.')
    return run?.stages ?? []
  } catch (error) {
    // The step being stopped is not stages that could not be read.
    if (error instanceof Interrupted) throw error
    warnUnread(
      `The stages of Jenkins build #${ref.number} could not be read: ${errorText(error)}`,
      logger,
      unread
    )
    return undefined
  }
}

/**
 * The stage the build's result came from: the first FAILED stage, else the
 * first whose status matches the result (UNSTABLE, ABORTED).
 */
export function failedStage(
  stages: readonly PipelineStage[] | undefined,
  result: BuildResult | null | undefined
): PipelineStage | undefined {
  if (!stages || !result || result === 'SUCCESS') return undefined
  // A FAILURE's stage status is FAILED: found first anyway.
  const matching = result === 'UNSTABLE' || result === 'ABORTED' ? result : 'FAILED'
  return stages.find(s => s.status === 'FAILED') ?? stages.find(s => s.status === matching)
}

/**
 * Says once each time a running Pipeline stops at an `input` step
 * (PAUSED_PENDING_INPUT), with the page where someone can answer it
 * (`<build>/input/`, pipeline-input-step's InputAction): without it a step
 * waiting for a person looks hung. The engine looks (follow-builds.ts).
 */
export function inputNotices(ref: BuildRef): (run: PipelineRun) => string[] {
  let announced = new Set<string>()
  // The lines to say for what a look at the run's stages showed.
  return run => {
    const paused = run.stages.filter(s => s.status === 'PAUSED_PENDING_INPUT')
    // An input outside any stage pauses the run only.
    const pausedRun = run.status === 'PAUSED_PENDING_INPUT' ? [''] : []
    const keys = new Set(paused.length > 0 ? paused.map(s => s.id) : pausedRun)
    const news = [...keys].filter(key => !announced.has(key))
    // Once answered, a later pause of the same stage is news again.
    announced = keys
    return news.map(key => {
      const stage = paused.find(s => s.id === key)
      const where = stage ? ` in stage ${JSON.stringify(shortName(stage.name))}` : ''
      return `Jenkins build #${ref.number} is waiting for input${where}: answer it at ${ref.url}input/`
    })
  }
}
