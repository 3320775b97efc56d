import { unlessNotFound } from '../transport/errors.js'
import { getObject } from './reads.js'
import { fields, isCount, list, text } from '../model/counts.js'
import { fullName } from '../model/job-path.js'
import type { Requester } from '../transport/requester.js'
import type { BuildRef } from '../model/types.js'

/** Most stages kept: a describe of a run with thousands of stages is still one bounded answer. */
const MAX_STAGES = 500

/**
 * GET `<build>/wfapi/describe`: the Pipeline Stage View plugin's RunExt
 * (RunAPI.doDescribe without fullStages, so each StageNodeExt comes without
 * its stageFlowNodes). Undefined when Jenkins answers 404: the plugin is not
 * installed, or the build is not a WorkflowRun (the `wfapi` action is a
 * TransientActionFactory of WorkflowRun only).
 */
export async function describeRun(http: Requester, build: BuildRef) {
  const name = fullName(build.job)
  const run = await unlessNotFound(
    getObject(
      http,
      'stages',
      `${build.url}wfapi/describe`,
      http.context(`the stages of build #${build.number} of '${name}'`)
    ),
    undefined
  )
  if (run === undefined) return undefined
  const stages = list(run.stages)
    .slice(0, MAX_STAGES)
    .map(fields)
    .flatMap(stage => {
      if (typeof stage.name !== 'string') return []
      const error = text(fields(stage.error).message)
      return {
        id: text(stage.id) ?? '',
        name: stage.name,
        /** The Stage View plugin's StatusExt (NOT_EXECUTED, ABORTED, SUCCESS, IN_PROGRESS, PAUSED_PENDING_INPUT, FAILED, UNSTABLE); unknown values kept. */
        status: text(stage.status) ?? 'NOT_EXECUTED',
        durationMillis: count(stage.durationMillis),
        startTimeMillis: count(stage.startTimeMillis),
        pauseDurationMillis: count(stage.pauseDurationMillis),
        // ErrorExt.message of a failed stage.
        ...(error !== undefined && { error })
      }
    })
  return { status: text(run.status), stages }
}

/** A Pipeline run as `wfapi/describe` shows it (RunExt). */
export type PipelineRun = NonNullable<Awaited<ReturnType<typeof describeRun>>>
/** One stage of a Pipeline run (StageNodeExt). */
export type PipelineStage = PipelineRun['stages'][number]

function count(value: unknown): number {
  return isCount(value) ? value : 0
}
