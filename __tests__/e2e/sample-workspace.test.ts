/**
 * End to end: the test server's failing-tests sample, run in the sample
 * workspace the docs point to (test-server/sample-workspace), as
 * docs/test-server.md shows it: each failed test's annotation names the
 * workspace file and line its stack trace leads to, and that line of the
 * sample file is where the test fails. The other samples with a test report
 * resolve there too.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT } from '../../scripts/action-runner.js'
import { commandData, commandProperties } from '../../src/cli/workflow-commands.js'
import {
  SAMPLE_WORKSPACE,
  sampleJobs,
  startJenkins,
  type TestJenkins
} from '../../test-server/index.js'
import { auth, commands, describeRun, run, RUNTIMES } from './helpers.js'

const WORKSPACE = join(ROOT, SAMPLE_WORKSPACE)

/** The `::error` annotations of failed tests (those with a title): title, file, line. */
function testAnnotations(stdout: string): Array<{ title: string; file?: string; line?: string }> {
  return commands(stdout, 'error')
    .map(command => commandProperties(command))
    .filter(p => p.title !== undefined)
    .map(({ title = '', file, line }) => ({ title, file, line }))
}

/** Line `line` (1-based) of a sample workspace file, trimmed. */
function sourceLine(file: string, line: string): string {
  const lines = readFileSync(join(WORKSPACE, file), 'utf8').split('\n')
  return (lines[Number(line) - 1] ?? '').trim()
}

describe.each(RUNTIMES)(
  'the failing-tests sample in the sample workspace ($name)',
  ({ path: node }) => {
    let jenkins: TestJenkins
    beforeAll(async () => {
      jenkins = await startJenkins({ quietPeriodSec: 0, jobs: sampleJobs })
    })
    afterAll(async () => {
      await jenkins.close()
    })

    it('fails in stage Test, each failed test annotated at the sample file and line where it fails', async () => {
      const r = await run(
        node,
        { ...auth(jenkins), job: 'failing-tests' },
        { env: { GITHUB_WORKSPACE: WORKSPACE } }
      )
      expect(r.code, describeRun(r)).toBe(1)
      expect(r.outputs['tests-failed']).toBe('3')
      const setFailed = commands(r.stdout, 'error').map(commandData).at(-1) ?? ''
      expect(setFailed).toMatch(/finished FAILURE in stage 'Test'/)
      const annotations = testAnnotations(r.stdout)
      expect(annotations).toEqual([
        {
          title: 'divides by zero',
          file: 'src/test/java/com/example/calc/CalculatorTest.java',
          line: '42'
        },
        {
          title: 'parses "1e3" [scientific]',
          file: 'src/main/java/com/example/calc/Parser.java',
          line: '88'
        },
        {
          title: 'formats thousands with a separator',
          file: 'src/test/java/com/example/calc/FormatterTest.java',
          line: '21'
        }
      ])
      // The lines are the failing assertion, or the throw the trace's first frame names.
      expect(annotations.map(a => sourceLine(a.file ?? '', a.line ?? ''))).toEqual([
        'assertThrows(ArithmeticException.class, () -> calculator.divide(1, 0));',
        'throw unexpected();',
        'assertEquals("1,000", formatter.format(1000));'
      ])
    })

    it("with-tests' failures resolve there too", async () => {
      const r = await run(
        node,
        { ...auth(jenkins), job: 'with-tests', accept: 'SUCCESS,UNSTABLE' },
        { env: { GITHUB_WORKSPACE: WORKSPACE } }
      )
      expect(r.code, describeRun(r)).toBe(0)
      expect(testAnnotations(r.stdout).map(a => `${a.file}:${a.line}`)).toEqual([
        'src/test/java/com/example/calc/CalculatorTest.java:42',
        'src/main/java/com/example/calc/Parser.java:88'
      ])
    })
  }
)
