import { describe, expect, it } from 'vitest'
import { ARRAY_OUTPUT_MAX_BYTES, cappedArray, setOutputs } from '../../src/outcome/build-outputs.js'
import type { BuildOutcome } from '../../src/outcome/report.js'
import type { Build } from '../../src/jenkins/model/types.js'
import { decodeBuild, type CheckedBuildJson } from '../../src/jenkins/reads/decode.js'

/** One build's outputs. */
function setOneOutputs(
  out: Parameters<typeof setOutputs>[0],
  report: Parameters<typeof setOutputs>[1][number],
  logger: Parameters<typeof setOutputs>[2]
): void {
  setOutputs(out, [report], logger, { several: false })
}

function recorder() {
  const outputs: Record<string, string> = {}
  const warnings: string[] = []
  return {
    outputs,
    warnings,
    out: { setOutput: (name: string, value: string) => (outputs[name] = value) },
    logger: { debug() {}, info() {}, warning: (m: string) => warnings.push(m) }
  }
}

/** A build as jenkins/reads decodes it from this JSON. */
const build = (overrides: Record<string, unknown>): Build =>
  decodeBuild({
    number: 7,
    url: 'https://ci/job/app/7/',
    building: false,
    result: 'SUCCESS',
    duration: 1200,
    estimatedDuration: 1000,
    timestamp: 1,
    ...overrides
  } as CheckedBuildJson)

describe('cappedArray', () => {
  it('keeps the first entries that fit, each whole, as valid JSON', () => {
    const entries = Array.from({ length: 10 }, (_, i) => `path/${i}/${'x'.repeat(20)}`)
    const whole = cappedArray(entries, 10_000)
    expect(whole).toEqual({
      json: JSON.stringify(entries),
      kept: 10,
      fullBytes: JSON.stringify(entries).length
    })
    const cut = cappedArray(entries, 100)
    expect(cut.kept).toBe(3)
    expect(JSON.parse(cut.json)).toEqual(entries.slice(0, 3))
    expect(cut.fullBytes).toBe(whole.fullBytes)
    expect(cappedArray(entries, 10)).toEqual({ json: '[]', kept: 0, fullBytes: whole.fullBytes })
  })
})

describe('setBuildOutputs and counts', () => {
  const outcome = (b: Build): BuildOutcome => ({
    jobName: 'app',
    jobUrl: 'https://ci/job/app/',
    build: b,
    buildUrl: 'https://ci/job/app/7/'
  })

  it('a duration that is not a count is not set, with a warning; the number is plain digits', () => {
    const r = recorder()
    setOneOutputs(r.out, { outcome: outcome(build({ duration: 1e21 })) }, r.logger)
    expect(r.outputs.duration).toBeUndefined()
    expect(r.outputs['build-number']).toBe('7')
    expect(r.warnings).toEqual([
      'Ignored the duration Jenkins gave build #7 (1e+21): not a whole number of milliseconds. The duration output is not set.'
    ])
    const ok = recorder()
    setOneOutputs(ok.out, { outcome: outcome(build({})) }, ok.logger)
    expect(ok.outputs.duration).toBe('1200')
    expect(ok.warnings).toEqual([])
  })

  it('the artifacts output is capped, with a warning naming the folder', () => {
    const r = recorder()
    const written = Array.from(
      { length: 2000 },
      (_, i) => `jenkins-artifacts/dist/${i}/${'a'.repeat(60)}.jar`
    )
    setOneOutputs(
      r.out,
      {
        outcome: {
          ...outcome(build({})),
          artifacts: { written, refused: [], folder: 'jenkins-artifacts', bytes: 0, problems: [] }
        } as BuildOutcome
      },
      r.logger
    )
    const json = r.outputs.artifacts ?? ''
    expect(Buffer.byteLength(json)).toBeLessThanOrEqual(ARRAY_OUTPUT_MAX_BYTES)
    const listed = JSON.parse(json) as string[]
    expect(listed).toEqual(written.slice(0, listed.length))
    expect(r.warnings).toEqual([
      `The artifacts output would hold ${Math.ceil(Buffer.byteLength(JSON.stringify(written)) / 1024)} KiB of JSON, over its cap of 64 KiB: it lists the first ${listed.length} of 2000 files. All of them are in jenkins-artifacts.`
    ])
  })
})
