/**
 * End to end: the `build` output is capped (build-outputs.ts BUILD_OUTPUT_MAX_BYTES,
 * documented in action.yml and the README). A text parameter's default of
 * 400 KB makes the build's ParametersAction, and so its JSON, too large.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startJenkins, type TestJenkins } from '../../test-server/index.js'
import { auth, commands, describeRun, run, RUNTIMES } from './helpers.js'

const CAP = 256 * 1024

describe.each(RUNTIMES)('the build output ($name)', ({ path: node }) => {
  let jenkins: TestJenkins
  beforeAll(async () => {
    jenkins = await startJenkins({
      quietPeriodSec: 0,
      jobs: {
        notes: {
          parameters: [{ name: 'NOTES', type: 'text', default: 'n'.repeat(400 * 1024) }],
          script: { durationMs: 200 }
        },
        small: { script: { durationMs: 200 } }
      }
    })
  })
  afterAll(() => jenkins.close())

  it('over its cap: valid JSON without the largest fields, and a warning that says so', async () => {
    const r = await run(node, { ...auth(jenkins), job: 'notes' })
    expect(r.code, describeRun(r)).toBe(0)
    expect(r.outputs.result).toBe('SUCCESS')
    const json = r.outputs.build ?? ''
    expect(Buffer.byteLength(json)).toBeLessThanOrEqual(CAP)
    const build = JSON.parse(json) as Record<string, unknown>
    expect(build).not.toHaveProperty('actions')
    expect(build).toMatchObject({ number: Number(r.outputs['build-number']), result: 'SUCCESS' })
    const warnings = commands(r.stdout, 'warning').map(c => c.value)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/over its cap of 256 KiB: it leaves out actions\./)
    expect(warnings[0]).toContain(`${r.outputs['build-url']}api/json`)
  })

  it('within its cap: the whole build JSON, no warning', async () => {
    const r = await run(node, { ...auth(jenkins), job: 'small' })
    expect(r.code, describeRun(r)).toBe(0)
    expect(JSON.parse(r.outputs.build ?? '{}')).toHaveProperty('actions')
    expect(commands(r.stdout, 'warning')).toEqual([])
  })
})
