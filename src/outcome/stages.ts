import type { BuildResult } from '../util/constants.js'
import { Interrupted } from '../jenkins/transport/errors.js'
import type {
  Build,
  BuildOutputsApi,
  BuildRef,
  JobInfo,
  PipelineStage
} from '../jenkins/model/types.js'
import { warnUnread, type Logger } from '../util/logger.js'
import { cappedArray, type CappedArray } from './output-cap.js'
import { shortName } from '../util/names.js'
import { sleep } from '../util/wait.js'
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

export interface InputWatchOptions {
  /** First look, after the build started (ms). */
  firstMs?: number
  /** Between looks (ms): an input waits for a person, so seconds do not matter. */
  intervalMs?: number
}

/**
 * Looks at a running Pipeline's stages now and then, and logs once each
 * time one stops at an `input` step (PAUSED_PENDING_INPUT), with the page
 * where someone can answer it (`<build>/input/`, pipeline-input-step's
 * InputAction). Without it a step waiting for a person looks hung. Stops by
 * itself when Jenkins has no `wfapi`; `stop()` ends it; `done` settles then.
 */
export function watchForInput(
  api: Pick<BuildOutputsApi, 'describeRun'>,
  ref: BuildRef,
  logger: Logger,
  options: InputWatchOptions = {}
): { stop(): void; done: Promise<void> } {
  const controller = new AbortController()
  const announced = new Set<string>()
  const inputUrl = `${ref.url}input/`
  const look = async (): Promise<boolean> => {
    const run = await api.describeRun(ref)
    if (!run || controller.signal.aborted) return false
    const paused = run.stages.filter(s => s.status === 'PAUSED_PENDING_INPUT')
    // An input outside any stage pauses the run only.
    const keys =
      paused.length > 0 ? paused.map(s => s.id) : run.status === 'PAUSED_PENDING_INPUT' ? [''] : []
    for (const key of keys) {
      if (announced.has(key)) continue
      announced.add(key)
      const stage = paused.find(s => s.id === key)
      const where = stage ? ` in stage ${JSON.stringify(shortName(stage.name))}` : ''
      // The stage name is Jenkins text: logger.info is the one printer that makes it inert.
      logger.info(
        `Jenkins build #${ref.number} is waiting for input${where}: answer it at ${inputUrl}`
      )
    }
    // Once answered, a later pause of the same stage is news again.
    for (const key of [...announced]) if (!keys.includes(key)) announced.delete(key)
    return true
  }
  const done = (async () => {
    try {
      await sleep(options.firstMs ?? 5000, controller.signal)
      for (;;) {
        try {
          if (!(await look())) return
        } catch (error) {
          if (controller.signal.aborted || error instanceof Interrupted) return
          logger.debug(`Could not look for a pending input: ${errorText(error)}`)
        }
        await sleep(options.intervalMs ?? 10_000, controller.signal)
      }
    } catch {
      // Stopped while waiting.
    }
  })()
  return { stop: () => controller.abort(), done }
}
