/**
 * A Pipeline's stages as the test server runs them, and what the Pipeline
 * Stage View plugin and the input step make of them: `wfapi/describe`
 * (jenkinsci/pipeline-stage-view-plugin rest-api: RunAPI.doDescribe, RunExt,
 * StageNodeExt, FlowNodeExt, StatusExt, ErrorExt) and pending inputs
 * (jenkinsci/pipeline-input-step-plugin: InputAction, InputStep.getId,
 * InputStepExecution.start, doProceedEmpty, doAbort).
 */
import { createHash } from 'node:crypto'
import type { Result, StageSpec } from '../types.js'

/** StatusExt values a stage takes here. */
type StageStatus =
  'IN_PROGRESS' | 'PAUSED_PENDING_INPUT' | 'SUCCESS' | 'FAILED' | 'UNSTABLE' | 'ABORTED'

/** A stage that started. Stages that never started do not exist (a scripted Pipeline never reached them). */
export interface StageRun {
  /** Flow node id of the stage's start node. */
  id: string
  name: string
  status: StageStatus
  startedAt: number
  endedAt: number | null
  /** Time spent paused at inputs, finished pauses. */
  pauseMs: number
  pausedSince: number | null
  error?: { message: string; type: string }
  /** StageSpec.reportedStartMillis: what wfapi says instead of startedAt. */
  reportedStartMillis?: number
}

/** An `input` step waiting (or once waiting) for someone. */
export interface PendingInput {
  id: string
  message: string
  stage: StageRun
  settled: boolean
  /**
   * Proceeds or aborts as `user` (a user id), or as no user (anonymous,
   * SYSTEM): InputStepExecution.proceed writes "Approved by" only when
   * User.current() is a user, and Rejection reads "Rejected" without one.
   */
  answer(how: 'proceed' | 'abort', user: string | null): void
}

/** What the stage runner needs from the build and the model. */
export interface PipelineHooks {
  /** A timer cleared when the build ends. */
  timer(fn: () => void, ms: number): void
  /** Appends a console line. */
  line(text: string): void
  /** Makes the result at least this bad (Run.setResult). */
  worsen(result: Result): void
  /** Ends the build with this result (or worse). */
  finish(result: Result): void
  /** The id of the user who started the build (its UserIdCause), null when no user did. */
  starter: string | null
}

/** The run's stage state, kept on the build. */
export interface PipelineState {
  stages: StageRun[]
  inputs: PendingInput[]
}

/** InputStep.getId without an id: the capitalised MD5 of the message (Util.getDigestOf). */
function inputId(message: string): string {
  const digest = createHash('md5').update(message).digest('hex')
  return digest.charAt(0).toUpperCase() + digest.slice(1)
}

/**
 * Runs the stages one after the other. A FAILURE stage fails the build and
 * no later stage starts; an input pauses its stage (PAUSED_PENDING_INPUT)
 * until answered, an abort ending the build ABORTED
 * (FlowInterruptedException, InputStepExecution.doAbort).
 */
export function runStages(state: PipelineState, specs: StageSpec[], hooks: PipelineHooks): void {
  let nodeId = 6
  const next = (index: number): void => {
    const spec = specs[index]
    if (!spec) return hooks.finish('SUCCESS')
    const stage: StageRun = {
      id: String(nodeId),
      name: spec.name,
      status: 'IN_PROGRESS',
      startedAt: Date.now(),
      endedAt: null,
      pauseMs: 0,
      pausedSince: null,
      ...(spec.reportedStartMillis === undefined
        ? {}
        : { reportedStartMillis: spec.reportedStartMillis })
    }
    nodeId += 7
    state.stages.push(stage)
    hooks.line('[Pipeline] stage')
    hooks.line(`[Pipeline] { (${spec.name})`)
    const duration = Math.max(0, spec.durationMs ?? 200)
    const lines = spec.consoleLines ?? []
    lines.forEach((text, i) =>
      hooks.timer(() => hooks.line(text), (duration * (i + 1)) / (lines.length + 1))
    )
    hooks.timer(() => {
      if (spec.input) pause(stage, spec, index)
      else complete(stage, spec, index)
    }, duration)
  }

  const complete = (stage: StageRun, spec: StageSpec, index: number): void => {
    stage.endedAt = Date.now()
    hooks.line('[Pipeline] }')
    hooks.line('[Pipeline] // stage')
    if (spec.result === 'FAILURE' && spec.catchError) {
      // catchError prints the error and goes on; the stage keeps no ErrorAction.
      stage.status = 'FAILED'
      hooks.line('ERROR: script returned exit code 1')
      hooks.worsen('FAILURE')
      return next(index + 1)
    }
    if (spec.result === 'FAILURE') {
      stage.status = 'FAILED'
      stage.error = { message: 'script returned exit code 1', type: 'hudson.AbortException' }
      hooks.line('ERROR: script returned exit code 1')
      return hooks.finish('FAILURE')
    }
    if (spec.result === 'UNSTABLE') {
      stage.status = 'UNSTABLE'
      hooks.worsen('UNSTABLE')
    } else {
      stage.status = 'SUCCESS'
    }
    next(index + 1)
  }

  const pause = (stage: StageRun, spec: StageSpec, index: number): void => {
    const input = spec.input as NonNullable<StageSpec['input']>
    stage.status = 'PAUSED_PENDING_INPUT'
    stage.pausedSince = Date.now()
    hooks.line('[Pipeline] input')
    // InputStepExecution.start prints the message, then the Proceed / Abort links.
    hooks.line(input.message)
    hooks.line('Proceed or Abort')
    const pending: PendingInput = {
      id: input.id ?? inputId(input.message),
      message: input.message,
      stage,
      settled: false,
      answer: (how, user) => {
        if (pending.settled) return
        pending.settled = true
        stage.pauseMs += Date.now() - (stage.pausedSince ?? Date.now())
        stage.pausedSince = null
        if (how === 'proceed') {
          if (user !== null) hooks.line(`Approved by ${user}`)
          stage.status = 'IN_PROGRESS'
          complete(stage, spec, index)
        } else {
          hooks.line(user === null ? 'Rejected' : `Rejected by ${user}`)
          hooks.finish('ABORTED')
        }
      }
    }
    state.inputs.push(pending)
    if (input.proceedAfterMs !== undefined) {
      // Someone who exists on this server: the user who started the build.
      hooks.timer(() => pending.answer('proceed', hooks.starter), input.proceedAfterMs)
    }
  }

  next(0)
}

/** When the build ends early (stop, abort, failure): a stage still open ends as the build did. */
export function closeStages(state: PipelineState, result: Result): void {
  const now = Date.now()
  for (const stage of state.stages) {
    if (stage.endedAt !== null) continue
    if (stage.pausedSince !== null) stage.pauseMs += now - stage.pausedSince
    stage.pausedSince = null
    stage.endedAt = now
    stage.status = result === 'ABORTED' ? 'ABORTED' : result === 'FAILURE' ? 'FAILED' : stage.status
  }
  for (const input of state.inputs) input.settled = true
}

const RESULT_STATUS: Record<Result, string> = {
  SUCCESS: 'SUCCESS',
  UNSTABLE: 'UNSTABLE',
  FAILURE: 'FAILED',
  ABORTED: 'ABORTED',
  NOT_BUILT: 'NOT_EXECUTED'
}

type Json = Record<string, unknown>

/**
 * RunExt.createNew, as Jackson writes it (field order of the classes;
 * NON_NULL properties left out). `base` is the build's URL path from the
 * context path (ModelUtil.getFullItemUrl: the request's context path + the
 * run's URL), e.g. `/jenkins/job/a/3/`.
 */
export function describeJson(
  state: PipelineState,
  build: {
    number: number
    building: boolean
    result: Result | null
    startedAt: number
    finishedAt: number | null
  },
  base: string,
  hasArtifacts: boolean,
  /** Jenkins' clock minus the real one (ServerOptions.clockSkewMs). */
  skewMs = 0
): Json {
  const now = Date.now()
  const pending = state.inputs.some(i => !i.settled)
  const status = build.building
    ? pending
      ? 'PAUSED_PENDING_INPUT'
      : 'IN_PROGRESS'
    : RESULT_STATUS[build.result ?? 'NOT_BUILT']
  const end = build.building || build.finishedAt === null ? now : build.finishedAt
  const links: Json = { self: { href: `${base}wfapi/describe` } }
  if (pending) {
    links.pendingInputActions = { href: `${base}wfapi/pendingInputActions` }
    links.nextPendingInputAction = { href: `${base}wfapi/nextPendingInputAction` }
  }
  if (hasArtifacts) links.artifacts = { href: `${base}wfapi/artifacts` }
  return {
    _links: links,
    id: String(build.number),
    name: `#${build.number}`,
    status,
    startTimeMillis: build.startedAt + skewMs,
    endTimeMillis: end + skewMs,
    durationMillis: Math.max(0, end - build.startedAt),
    queueDurationMillis: 0,
    pauseDurationMillis: 0,
    stages: state.stages.map(stage => {
      const out: Json = {
        _links: { self: { href: `${base}execution/node/${stage.id}/wfapi/describe` } },
        id: stage.id,
        name: stage.name,
        execNode: '',
        status: stage.status
      }
      if (stage.error) out.error = stage.error
      const pausing = stage.pausedSince === null ? 0 : now - stage.pausedSince
      out.startTimeMillis = stage.reportedStartMillis ?? stage.startedAt + skewMs
      out.durationMillis = Math.max(0, (stage.endedAt ?? now) - stage.startedAt)
      out.pauseDurationMillis = stage.pauseMs + pausing
      return out
    })
  }
}
