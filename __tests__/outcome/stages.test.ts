import { describe, expect, it, test } from 'vitest'
import { Interrupted } from '../../src/jenkins/transport/errors.js'
import type { Build, PipelineRun, PipelineStage } from '../../src/jenkins/model/types.js'
import {
  failedStage,
  readStages,
  STAGES_OUTPUT_MAX_BYTES,
  stagesOutput,
  InputNotices
} from '../../src/outcome/stages.js'
import { recordingLogger } from '../jenkins/helpers.js'
import { decodeBuild } from '../../src/jenkins/reads/decode.js'

const REF = { job: ['pipe'], number: 8, url: 'https://ci.example.com/jenkins/job/pipe/8/' }

function stage(id: string, name: string, status: string, durationMillis = 1000): PipelineStage {
  return { id, name, status, durationMillis, startTimeMillis: 0, pauseDurationMillis: 0 }
}

function build(_class: string): Build {
  return decodeBuild({
    _class,
    number: 8,
    url: '',
    building: false,
    result: 'FAILURE',
    duration: 1,
    estimatedDuration: 1,
    timestamp: 1
  })
}

const PIPELINE = 'org.jenkinsci.plugins.workflow.job.WorkflowRun'

describe('readStages', () => {
  it('reads a Pipeline only; 404 is []', async () => {
    const calls: string[] = []
    const api = (run: PipelineRun | undefined | Error) => ({
      async describeRun() {
        calls.push('describe')
        if (run instanceof Error) throw run
        return run
      }
    })
    const logger = recordingLogger()
    expect(
      await readStages(api(undefined), REF, build('hudson.model.FreeStyleBuild'), logger)
    ).toBeUndefined()
    expect(calls).toEqual([])
    expect(await readStages(api(undefined), REF, build(PIPELINE), logger)).toEqual([])
    const stages = [stage('6', 'Build', 'SUCCESS')]
    expect(
      await readStages(api({ status: 'SUCCESS', stages }), REF, build(PIPELINE), logger)
    ).toEqual(stages)
    const unread: string[] = []
    expect(
      await readStages(api(new Error('boom')), REF, build(PIPELINE), logger, unread)
    ).toBeUndefined()
    const message = `The stages of Jenkins build #${REF.number} could not be read: boom`
    expect(logger.lines.at(-1)).toEqual({ level: 'warning', message })
    expect(unread).toEqual([message])
    // The step being stopped is not swallowed.
    const stopped = new Interrupted('the step was stopped', { sent: true })
    await expect(readStages(api(stopped), REF, build(PIPELINE), logger)).rejects.toBe(stopped)
  })
})

test('stagesOutput keeps name, status and duration', () => {
  expect(JSON.parse(stagesOutput([stage('6', 'Build "x"', 'SUCCESS', 42)]).json)).toEqual([
    { name: 'Build "x"', status: 'SUCCESS', durationMillis: 42 }
  ])
})

test('stagesOutput is capped: the first stages that fit, whole, as valid JSON', () => {
  const long = (i: number) => stage(String(i), `${i}:${'n'.repeat(4096)}`, 'SUCCESS', i)
  const stages = Array.from({ length: 500 }, (_, i) => long(i))
  const out = stagesOutput(stages)
  expect(Buffer.byteLength(out.json)).toBeLessThanOrEqual(STAGES_OUTPUT_MAX_BYTES)
  expect(out.kept).toBe(15)
  expect(out.fullBytes).toBeGreaterThan(2_000_000)
  const parsed = JSON.parse(out.json) as Array<{ name: string }>
  expect(parsed.map(s => s.name)).toEqual(stages.slice(0, 15).map(s => s.name))
  const small = stagesOutput(stages.slice(0, 2), 100_000)
  expect(small.kept).toBe(2)
  expect(Buffer.byteLength(small.json)).toBe(small.fullBytes)
})

test('failedStage: the first FAILED stage, else the first matching the result', () => {
  const stages = [
    stage('1', 'A', 'SUCCESS'),
    stage('2', 'B', 'UNSTABLE'),
    stage('3', 'C', 'FAILED'),
    stage('4', 'D', 'FAILED')
  ]
  expect(failedStage(stages, 'FAILURE')?.name).toBe('C')
  expect(failedStage(stages.slice(0, 2), 'UNSTABLE')?.name).toBe('B')
  expect(failedStage(stages.slice(0, 2), 'FAILURE')).toBeUndefined()
  expect(failedStage([stage('1', 'A', 'ABORTED')], 'ABORTED')?.name).toBe('A')
  expect(failedStage(stages, 'SUCCESS')).toBeUndefined()
  expect(failedStage(undefined, 'FAILURE')).toBeUndefined()
})

describe('InputNotices', () => {
  it('says a paused stage once, with the input page, and again after a new pause', () => {
    const running: PipelineRun = {
      status: 'IN_PROGRESS',
      stages: [stage('6', 'Build', 'SUCCESS'), stage('9', 'Deploy', 'IN_PROGRESS')]
    }
    const paused: PipelineRun = {
      status: 'PAUSED_PENDING_INPUT',
      stages: [stage('6', 'Build', 'SUCCESS'), stage('9', 'Deploy', 'PAUSED_PENDING_INPUT')]
    }
    const notices = new InputNotices(REF)
    const said = [running, paused, paused, paused, running, paused, running].flatMap(run =>
      notices.saw(run)
    )
    const line = `Jenkins build #8 is waiting for input in stage "Deploy": answer it at ${REF.url}input/`
    expect(said).toEqual([line, line])
  })

  it('an input outside any stage pauses only the run; it is said without a stage', () => {
    const notices = new InputNotices(REF)
    const run: PipelineRun = { status: 'PAUSED_PENDING_INPUT', stages: [] }
    expect([run, run, run].flatMap(r => notices.saw(r))).toEqual([
      `Jenkins build #8 is waiting for input: answer it at ${REF.url}input/`
    ])
  })
})
