import { describe, expect, it, test } from 'vitest'
import { Interrupted } from '../../src/jenkins/transport/errors.js'
import type { Build } from '../../src/jenkins/model/types.js'
import type { PipelineRun, PipelineStage } from '../../src/jenkins/reads/stages.js'
import { failedStage, readStages, inputNotices } from '../../src/outcome/stages.js'
import { ARRAY_OUTPUT_MAX_BYTES, setOutputs } from '../../src/outcome/build-outputs.js'
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

/** The `stages` output of one build with these stages, and the warnings. */
function stagesOutput(stages: PipelineStage[]): { json: string; warnings: string[] } {
  const outputs: Record<string, string> = {}
  const logger = recordingLogger()
  const outcome = { jobName: 'pipe', jobUrl: 'https://ci/job/pipe/', buildUrl: REF.url, stages }
  setOutputs({ setOutput: (name, value) => (outputs[name] = value) }, [{ outcome }], logger, {
    several: false
  })
  const warnings = logger.lines.filter(l => l.level === 'warning').map(l => l.message)
  return { json: outputs.stages ?? '', warnings }
}

test('the stages output keeps name, status and duration', () => {
  expect(JSON.parse(stagesOutput([stage('6', 'Build "x"', 'SUCCESS', 42)]).json)).toEqual([
    { name: 'Build "x"', status: 'SUCCESS', durationMillis: 42 }
  ])
})

test('the stages output is capped: the first stages that fit, whole, as valid JSON', () => {
  const long = (i: number) => stage(String(i), `${i}:${'n'.repeat(4096)}`, 'SUCCESS', i)
  const stages = Array.from({ length: 500 }, (_, i) => long(i))
  const out = stagesOutput(stages)
  expect(Buffer.byteLength(out.json)).toBeLessThanOrEqual(ARRAY_OUTPUT_MAX_BYTES)
  const parsed = JSON.parse(out.json) as Array<{ name: string }>
  expect(parsed.map(s => s.name)).toEqual(stages.slice(0, 15).map(s => s.name))
  const whole = stages.map(({ name, status, durationMillis }) => ({ name, status, durationMillis }))
  const fullKib = Math.ceil(Buffer.byteLength(JSON.stringify(whole)) / 1024)
  expect(fullKib).toBeGreaterThan(2000)
  expect(out.warnings).toEqual([
    `The stages output would hold ${fullKib} KiB of JSON, over its cap of 64 KiB: it lists the first 15 of 500 stages. All stages are at ${REF.url}wfapi/describe.`
  ])
  const small = stagesOutput(stages.slice(0, 2))
  expect(JSON.parse(small.json)).toHaveLength(2)
  expect(small.warnings).toEqual([])
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

describe('inputNotices', () => {
  it('says a paused stage once, with the input page, and again after a new pause', () => {
    const running: PipelineRun = {
      status: 'IN_PROGRESS',
      stages: [stage('6', 'Build', 'SUCCESS'), stage('9', 'Deploy', 'IN_PROGRESS')]
    }
    const paused: PipelineRun = {
      status: 'PAUSED_PENDING_INPUT',
      stages: [stage('6', 'Build', 'SUCCESS'), stage('9', 'Deploy', 'PAUSED_PENDING_INPUT')]
    }
    const notices = inputNotices(REF)
    const said = [running, paused, paused, paused, running, paused, running].flatMap(run =>
      notices(run)
    )
    const line = `Jenkins build #8 is waiting for input in stage "Deploy": answer it at ${REF.url}input/`
    expect(said).toEqual([line, line])
  })

  it('an input outside any stage pauses only the run; it is said without a stage', () => {
    const notices = inputNotices(REF)
    const run: PipelineRun = { status: 'PAUSED_PENDING_INPUT', stages: [] }
    expect([run, run, run].flatMap(r => notices(r))).toEqual([
      `Jenkins build #8 is waiting for input: answer it at ${REF.url}input/`
    ])
  })
})
