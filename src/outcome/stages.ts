import type { BuildResult } from '../util/constants.js'
import { Interrupted } from '../jenkins/transport/errors.js'
import type {
  Build,
  BuildOutputsApi,
  BuildRef,
  JobInfo,
  PipelineRun,
  PipelineStage
} from '../jenkins/model/types.js'
import { warnUnread, type Logger } from '../util/logger.js'
import { cappedArray, type CappedArray } from './output-cap.js'
import { shortName } from '../util/names.js'
import { errorText } from '../util/error-text.js'

/** The build class whose runs have stages (workflow-job's WorkflowRun). */
const PIPELINE_RUN = 'org.jenkinsci.plugins.workflow.job.WorkflowRun'

/** Whether `wfapi/describe` can exist for the build. */
export function isPipeline(build: Pick<Build, '_class'>): boolean {
  return build._class === PIPELINE_RUN
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
 * Cap of the `stages` output, in UTF-8 bytes (action.yml, README): with
 * `build` (256 KiB) it stays well within GitHub's 1 MB for all of a job's
 * outputs, counted as UTF-16. Stages of usual names take about 70 bytes
 * each: some 900 fit.
 */
export const STAGES_OUTPUT_MAX_BYTES = 64 * 1024

/**
 * The `stages` output: `[{name, status, durationMillis}]`, within
 * `maxBytes`: the first stages that fit, each whole (names are not cut),
 * so that it stays valid JSON.
 */
export function stagesOutput(
  stages: readonly PipelineStage[],
  maxBytes = STAGES_OUTPUT_MAX_BYTES
): CappedArray {
  return cappedArray(
    stages.map(s => ({ name: s.name, status: s.status, durationMillis: s.durationMillis })),
    maxBytes
  )
}

/** Stage statuses that match a build result, for naming the stage it came from. */
const STATUS_OF_RESULT: Partial<Record<BuildResult, string>> = {
  FAILURE: 'FAILED',
  UNSTABLE: 'UNSTABLE',
  ABORTED: 'ABORTED'
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
  const failed = stages.find(s => s.status === 'FAILED')
  if (failed) return failed
  const status = STATUS_OF_RESULT[result]
  return status ? stages.find(s => s.status === status) : undefined
}

/**
 * Says once each time a running Pipeline stops at an `input` step
 * (PAUSED_PENDING_INPUT), with the page where someone can answer it
 * (`<build>/input/`, pipeline-input-step's InputAction): without it a step
 * waiting for a person looks hung. The engine looks (follow-builds.ts).
 */
export class InputNotices {
  private readonly announced = new Set<string>()

  constructor(private readonly ref: BuildRef) {}

  /** The lines to say for what a look at the run's stages showed. */
  saw(run: PipelineRun): string[] {
    const paused = run.stages.filter(s => s.status === 'PAUSED_PENDING_INPUT')
    // An input outside any stage pauses the run only.
    const keys =
      paused.length > 0 ? paused.map(s => s.id) : run.status === 'PAUSED_PENDING_INPUT' ? [''] : []
    const lines: string[] = []
    for (const key of keys) {
      if (this.announced.has(key)) continue
      this.announced.add(key)
      const stage = paused.find(s => s.id === key)
      const where = stage ? ` in stage ${JSON.stringify(shortName(stage.name))}` : ''
      lines.push(
        `Jenkins build #${this.ref.number} is waiting for input${where}: answer it at ${this.ref.url}input/`
      )
    }
    // Once answered, a later pause of the same stage is news again.
    for (const key of [...this.announced]) if (!keys.includes(key)) this.announced.delete(key)
    return lines
  }
}
