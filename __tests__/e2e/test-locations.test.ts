/**
 * End to end: failed tests annotated at the file and line where they
 * failed, found in the workspace from their stack trace (Java, Python,
 * JavaScript), read from the step's log with the runner's rules; an
 * ambiguous name, a missing file, a path that climbs out, an absolute path
 * outside the workspace and a symbolic link out of it give an annotation
 * without `file`.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { commandData, commandProperties } from '../../src/cli/workflow-commands.js'
import { startJenkins, type TestCaseSpec, type TestJenkins } from '../../test-server/index.js'
import { auth, commands, describeRun, run, RUNTIMES } from './helpers.js'

const WORKSPACE_FILES = [
  'calc/src/test/java/com/example/calc/CalculatorTest.java',
  'moduleA/src/test/java/org/dup/SameTest.java',
  'moduleB/src/test/java/org/dup/SameTest.java',
  'tests/test_parser.py',
  'web/src/cart.test.ts',
  'etc/passwd'
]

let workspace: string
let outside: string

function failed(name: string, errorStackTrace: string): TestCaseSpec {
  return {
    className: 'suite.Case',
    name,
    status: 'FAILED',
    errorDetails: `${name} failed`,
    errorStackTrace
  }
}

function cases(): TestCaseSpec[] {
  return [
    failed(
      'java',
      'org.opentest4j.AssertionFailedError: expected: <2> but was: <3>\n\tat org.junit.jupiter.api.AssertionUtils.fail(AssertionUtils.java:55)\n\tat app//com.example.calc.CalculatorTest.adds(CalculatorTest.java:42)\n\tat java.base/java.util.ArrayList.forEach(ArrayList.java:1596)'
    ),
    failed(
      'python',
      'Traceback (most recent call last):\n  File "/usr/lib/python3.12/unittest/case.py", line 58, in testPartExecutor\n    yield\n  File "/var/lib/jenkins/workspace/app/tests/test_parser.py", line 17, in test_parses\n    self.assertEqual(parse("1e3"), 1000)\nAssertionError: 1 != 1000'
    ),
    failed(
      'javascript',
      'AssertionError: expected 3 to equal 2\n    at Context.<anonymous> (web/src/cart.test.ts:12:7)\n    at processImmediate (node:internal/timers:483:21)'
    ),
    failed('ambiguous', '\tat org.dup.SameTest.works(SameTest.java:5)'),
    failed('missing', '  File "tests/test_gone.py", line 3, in test_gone'),
    failed('climbs', '  File "../../etc/passwd", line 1, in <module>'),
    failed('outside', `  File "${outside}/secret.py", line 9, in test_secret`),
    failed('linked', '  File "tests/linked.py", line 4, in test_linked')
  ]
}

describe.each(RUNTIMES)('failed tests at their lines ($name)', ({ path: node }) => {
  let jenkins: TestJenkins
  beforeAll(async () => {
    workspace = mkdtempSync(join(tmpdir(), 'e2e-locations-ws-'))
    outside = mkdtempSync(join(tmpdir(), 'e2e-locations-out-'))
    for (const file of WORKSPACE_FILES) {
      mkdirSync(dirname(join(workspace, file)), { recursive: true })
      writeFileSync(join(workspace, file), 'x\n')
    }
    writeFileSync(join(outside, 'secret.py'), 'x\n')
    writeFileSync(join(outside, 'linked.py'), 'x\n')
    symlinkSync(join(outside, 'linked.py'), join(workspace, 'tests', 'linked.py'))
    jenkins = await startJenkins({
      quietPeriodSec: 0,
      jobs: {
        traces: {
          script: {
            durationMs: 50,
            result: 'UNSTABLE',
            tests: { suites: [{ name: 'traces', cases: cases() }] }
          }
        }
      }
    })
  })
  afterAll(async () => {
    await jenkins.close()
    rmSync(workspace, { recursive: true, force: true })
    rmSync(outside, { recursive: true, force: true })
  })

  it('annotates each failed test at the one workspace file its trace names, and nothing guessed', async () => {
    const r = await run(
      node,
      { ...auth(jenkins), job: 'traces', accept: 'SUCCESS,UNSTABLE' },
      { env: { GITHUB_WORKSPACE: workspace } }
    )
    expect(r.code, describeRun(r)).toBe(0)
    const annotations = commands(r.stdout, 'error').map(command => {
      const { title = '', ...where } = commandProperties(command)
      return { title, where, message: commandData(command).split('\n')[0] }
    })
    expect(annotations).toEqual([
      {
        title: 'java',
        where: { file: 'calc/src/test/java/com/example/calc/CalculatorTest.java', line: '42' },
        message: 'java failed'
      },
      {
        title: 'python',
        where: { file: 'tests/test_parser.py', line: '17' },
        message: 'python failed'
      },
      {
        title: 'javascript',
        where: { file: 'web/src/cart.test.ts', line: '12' },
        message: 'javascript failed'
      },
      { title: 'ambiguous', where: {}, message: 'ambiguous failed' },
      { title: 'missing', where: {}, message: 'missing failed' },
      { title: 'climbs', where: {}, message: 'climbs failed' },
      { title: 'outside', where: {}, message: 'outside failed' },
      { title: 'linked', where: {}, message: 'linked failed' }
    ])
  })

  it('without the repository checked out (an empty workspace), annotations have no file', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'e2e-locations-empty-'))
    try {
      const r = await run(
        node,
        { ...auth(jenkins), job: 'traces', accept: 'SUCCESS,UNSTABLE' },
        { env: { GITHUB_WORKSPACE: empty } }
      )
      expect(r.code, describeRun(r)).toBe(0)
      const found = commands(r.stdout, 'error')
      expect(found).toHaveLength(8)
      expect(found.map(c => commandProperties(c).file)).toEqual(Array(8).fill(undefined))
    } finally {
      rmSync(empty, { recursive: true, force: true })
    }
  })
})
