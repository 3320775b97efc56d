/**
 * End to end: answers nested far too deep (a broken plugin or a hostile
 * proxy). The parts of a passing build's outcome that come nested too deep
 * (test report, stages, artifacts list) are notices, in the log and the
 * summary: the step passes. An action of the build nested a million levels
 * deep, in every read of it (a proxy that ignores tree=), is left out with
 * one warning: the step passes. A build whose own field (`result`) is
 * nested a million levels deep fails the step with a message saying what
 * was too deep, never a stack overflow. Every request checked is this
 * run's own (job and build).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorAnnotation } from '../../scripts/action-runner.js'
import { startJenkins, type TestJenkins } from '../../test-server/index.js'
import { auth, commands, describeRun, run, RUNTIMES } from './helpers.js'

/** Deep enough to overflow any recursive walk (2 MB), as the report that found it. */
const DEPTH = 1_000_000

/** `text` as a literal in a RegExp. */
function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

const made: string[] = []
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true })
})

describe.each(RUNTIMES)('JSON nested too deep ($name)', ({ path: node }) => {
  let jenkins: TestJenkins
  beforeAll(async () => {
    jenkins = await startJenkins({
      quietPeriodSec: 0,
      executors: 4,
      jobs: {
        // Failed tests in a SUCCESS build: junit with skipMarkingBuildUnstable.
        extras: {
          type: 'pipeline',
          script: {
            result: 'SUCCESS',
            stages: [{ name: 'Build', durationMs: 100 }],
            tests: { total: 10, failed: 2, skipped: 0 },
            artifacts: [{ path: 'dist/app.jar', content: 'jar' }]
          }
        },
        'deep-action': { script: { durationMs: 100, result: 'SUCCESS' } },
        'deep-build': { script: { durationMs: 100, result: 'SUCCESS' } }
      }
    })
    const deep = { type: 'deep-json', depth: DEPTH } as const
    // 200 KB: a page the report's byte budget takes (a 2 MB page is too large to read at all).
    jenkins.aim({ kind: 'tests', job: 'extras', effect: { type: 'deep-json', depth: 100_000 } })
    jenkins.aim({ kind: 'stages', job: 'extras', effect: deep })
    jenkins.aim({ kind: 'build', job: 'extras', query: 'tree=artifacts', effect: deep })
    jenkins.aim({ kind: 'build', job: 'deep-action', effect: { ...deep, field: 'actions' } })
    jenkins.aim({ kind: 'build', job: 'deep-build', effect: { ...deep, field: 'result' } })
  })
  afterAll(() => jenkins.close())

  describe.concurrent('runs', () => {
    it('a SUCCESS build whose test report, stages and artifacts list are too deep passes, with notices', async () => {
      const ws = mkdtempSync(join(tmpdir(), 'deep-json-e2e-'))
      made.push(ws)
      const r = await run(
        node,
        { ...auth(jenkins), job: 'extras', artifacts: '**' },
        { env: { GITHUB_WORKSPACE: ws } }
      )
      expect(r.code, describeRun(r)).toBe(0)
      const n = r.outputs['build-number']
      expect(r.outputs.result).toBe('SUCCESS')
      // The counts come from the build itself, which was whole.
      expect([r.outputs['tests-total'], r.outputs['tests-failed']]).toEqual(['10', '2'])
      expect(r.outputs.stages).toBeUndefined()
      expect(r.outputs.artifacts).toBe('[]')
      const tooDeep = 'with JSON nested more than 500 levels deep'
      const warnings = commands(r.stdout, 'warning').map(c => c?.value ?? '')
      const expected = [
        `The test report of Jenkins build #${n} could not be read, so its failed tests are not listed: Jenkins at ${jenkins.url} answered `,
        `The stages of Jenkins build #${n} could not be read: Jenkins at ${jenkins.url} answered `,
        `The artifacts list of Jenkins build #${n} could not be read, so no artifact was downloaded: Jenkins at ${jenkins.url} answered `
      ]
      for (const start of expected) {
        const warning = warnings.find(w => w.startsWith(start))
        expect(warning, `${start}\n${describeRun(r)}`).toContain(tooDeep)
      }
      expect(commands(r.stdout, 'error')).toEqual([])
      expect(r.stdout + r.stderr).not.toContain('Maximum call stack')
      // The same notices in the summary (escaped: '#' is &#35; there).
      for (const start of expected) {
        expect(r.summary).toContain(`<p>⚠️ ${(start.split(':')[0] ?? '').replace('#', '&#35;')}`)
      }
      expect(readdirSync(ws)).toEqual([])
      // Each of the three was asked for, and answered too deep, for this build.
      const spoiled = jenkins.requests.filter(
        q => q.job === 'extras' && q.fault === 'deep-json' && q.path.includes(`/${n}/`)
      )
      expect(new Set(spoiled.map(q => q.kind))).toEqual(new Set(['tests', 'stages', 'build']))
    })

    it('a SUCCESS build with an action too deep in every read passes, saying once what was left out', async () => {
      const r = await run(node, { ...auth(jenkins), job: 'deep-action' })
      expect(r.code, describeRun(r)).toBe(0)
      const n = r.outputs['build-number']
      expect(r.outputs.result).toBe('SUCCESS')
      expect(commands(r.stdout, 'error')).toEqual([])
      // Said once (each read of the build carries it), as a warning the runner acts on:
      // a read while the console streams (commands stopped) issues it after the resume.
      const dropped = r.stdout.split('\n').filter(line => line.includes('levels deep'))
      expect(dropped, describeRun(r)).toEqual([
        expect.stringMatching(
          new RegExp(
            `^::warning::Jenkins at ${escaped(jenkins.url)} answered build #${n} of 'deep-action' with element 1 of its 'actions' \\(hudson\\.model\\.DeepAction\\) nested more than 500 levels deep \\(at character \\d+\\): it is read without that element`
          )
        )
      ])
      expect(
        commands(r.stdout, 'warning').filter(c => c.value.includes('levels deep'))
      ).toHaveLength(1)
      // The `build` output is the build as read: without the deep action.
      expect(r.outputs.build).not.toContain('DeepAction')
      expect(r.stdout + r.stderr).not.toContain('Maximum call stack')
      // Every read of this build, polls included, was answered with the deep action.
      const spoiled = jenkins.requests.filter(
        q => q.job === 'deep-action' && q.kind === 'build' && q.path.includes(`/${n}/`)
      )
      expect(spoiled.length).toBeGreaterThan(0)
      expect(spoiled.every(q => q.fault === 'deep-json')).toBe(true)
    })

    it('a build whose result is too deep fails the step saying so, not with a stack overflow', async () => {
      const r = await run(node, { ...auth(jenkins), job: 'deep-build' })
      expect(r.code, describeRun(r)).toBe(1)
      expect(errorAnnotation(r)).toMatch(
        new RegExp(
          `^Jenkins at ${escaped(jenkins.url)} answered build #\\d+ of 'deep-build' with JSON nested more than 500 levels deep \\(at character \\d+\\), which this action does not read`
        )
      )
      expect(r.stdout + r.stderr).not.toContain('Maximum call stack')
    })
  })
})
