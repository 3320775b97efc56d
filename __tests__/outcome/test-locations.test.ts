import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FailedTest } from '../../src/jenkins/model/types.js'
import {
  framesOf,
  locate,
  locateFailedTests,
  pathSegments,
  searchWorkspace
} from '../../src/outcome/test-locations.js'

const quiet = { debug: () => {}, info: () => {}, warning: () => {}, error: () => {} }

let root: string
let outside: string
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'locations-ws-'))
  outside = mkdtempSync(join(tmpdir(), 'locations-out-'))
  const files = [
    'src/test/java/com/example/CalcTest.java',
    'src/test/java/com/example/util/Helper.java',
    'moduleA/src/test/java/org/dup/SameTest.java',
    'moduleB/src/test/java/org/dup/SameTest.java',
    'tests/test_calc.py',
    'web/src/calc.test.ts',
    'etc/passwd',
    'node_modules/lib/calc.test.ts',
    '.git/objects/CalcTest.java'
  ]
  for (const file of files) {
    mkdirSync(dirname(join(root, file)), { recursive: true })
    writeFileSync(join(root, file), 'x\n')
  }
  // Links are never followed nor taken: not to a file, not to a folder outside.
  writeFileSync(join(outside, 'Linked.java'), 'x\n')
  mkdirSync(join(outside, 'deep'))
  writeFileSync(join(outside, 'deep', 'Away.java'), 'x\n')
  symlinkSync(join(outside, 'Linked.java'), join(root, 'Linked.java'))
  symlinkSync(join(outside, 'deep'), join(root, 'deep'))
})
afterAll(() => {
  rmSync(root, { recursive: true, force: true })
  rmSync(outside, { recursive: true, force: true })
})

async function files(...names: string[]) {
  const found = await searchWorkspace(root, new Set(names))
  if (!found) throw new Error('search gave up')
  return found
}

describe('framesOf', () => {
  it('reads Java, Python, pytest and JavaScript frames in order', () => {
    expect(
      framesOf(
        [
          'org.opentest4j.AssertionFailedError: expected: <1> but was: <2>',
          '\tat org.junit.jupiter.api.AssertEquals.failNotEqual(AssertEquals.java:197)',
          '\tat app//com.example.CalcTest$Inner.adds(CalcTest.java:42)',
          'Traceback (most recent call last):',
          '  File "/usr/lib/python3.12/unittest/case.py", line 58, in testPartExecutor',
          '  File "/home/jenkins/ws/tests/test_calc.py", line 17, in test_adds',
          'tests/test_calc.py:17: AssertionError',
          '    at Object.<anonymous> (/home/jenkins/ws/web/src/calc.test.ts:12:7)',
          '    at processTicksAndRejections (node:internal/process/task_queues:95:5)',
          '    at /w/node_modules/expect/build/index.js:3:1',
          '    at file:///C:/ws/web/src/calc.test.ts:13:9'
        ].join('\n')
      )
    ).toEqual([
      { segments: ['org', 'junit', 'jupiter', 'api', 'AssertEquals.java'], line: 197, java: true },
      { segments: ['com', 'example', 'CalcTest.java'], line: 42, java: true },
      { segments: ['home', 'jenkins', 'ws', 'tests', 'test_calc.py'], line: 17, java: false },
      { segments: ['tests', 'test_calc.py'], line: 17, java: false },
      { segments: ['home', 'jenkins', 'ws', 'web', 'src', 'calc.test.ts'], line: 12, java: false },
      { segments: ['ws', 'web', 'src', 'calc.test.ts'], line: 13, java: false }
    ])
  })

  it('takes no line over 1000 characters for a frame (hostile text stays cheap to scan)', () => {
    const long = `\tat com.example.${'a'.repeat(1000)}.CalcTest.adds(CalcTest.java:7)`
    expect(framesOf(`${long}\n\tat com.example.CalcTest.adds(CalcTest.java:42)`)).toEqual([
      { segments: ['com', 'example', 'CalcTest.java'], line: 42, java: true }
    ])
  })

  it('drops paths that climb or carry control characters', () => {
    expect(pathSegments('../../etc/passwd')).toBeUndefined()
    expect(pathSegments('tests/../../x.py')).toBeUndefined()
    expect(pathSegments('a\u0000b.py')).toBeUndefined()
    expect(pathSegments('C:\\ws\\tests\\x.py')).toEqual(['ws', 'tests', 'x.py'])
    expect(framesOf('  File "../../etc/passwd", line 1, in <module>')).toEqual([])
  })
})

describe('locate', () => {
  it('finds a Java frame by its package path, past library frames', async () => {
    const trace =
      'java.lang.AssertionError\n\tat org.junit.Assert.fail(Assert.java:89)\n\tat com.example.CalcTest.adds(CalcTest.java:42)'
    expect(locate(trace, await files('Assert.java', 'CalcTest.java'))).toEqual({
      file: 'src/test/java/com/example/CalcTest.java',
      line: 42
    })
    // The same file name in another package is not it.
    expect(
      locate('\tat com.other.CalcTest.adds(CalcTest.java:42)', await files('CalcTest.java'))
    ).toBeUndefined()
  })

  it('finds Python and JavaScript files by the end of their path', async () => {
    expect(
      locate(
        '  File "/var/lib/jenkins/workspace/app/tests/test_calc.py", line 17, in test_adds',
        await files('test_calc.py')
      )
    ).toEqual({ file: 'tests/test_calc.py', line: 17 })
    expect(
      locate('    at Context.<anonymous> (src/calc.test.ts:12:7)', await files('calc.test.ts'))
    ).toEqual({ file: 'web/src/calc.test.ts', line: 12 })
  })

  it('gives no file for several matches, none, a climbing path, or a path outside', async () => {
    expect(
      locate('\tat org.dup.SameTest.t(SameTest.java:3)', await files('SameTest.java'))
    ).toBeUndefined()
    expect(
      locate('  File "tests/test_gone.py", line 3', await files('test_gone.py'))
    ).toBeUndefined()
    // etc/passwd is in the workspace, but a path that climbs names nothing.
    expect(locate('  File "../../etc/passwd", line 1', await files('passwd'))).toBeUndefined()
    // An absolute path outside: only a workspace file its path ends with could match.
    expect(locate('  File "/etc/shadow", line 1', await files('shadow'))).toBeUndefined()
  })

  it('skips symbolic links, .git and node_modules', async () => {
    const found = await files('Linked.java', 'Away.java', 'CalcTest.java', 'calc.test.ts')
    expect(found.get('Linked.java') ?? []).toEqual([])
    expect(found.get('Away.java') ?? []).toEqual([])
    expect(found.get('CalcTest.java') ?? []).toEqual(['src/test/java/com/example/CalcTest.java'])
    expect(found.get('calc.test.ts') ?? []).toEqual(['web/src/calc.test.ts'])
  })

  it('gives up past its bounds rather than guess', async () => {
    expect(await searchWorkspace(root, new Set(['x']), 5)).toBeUndefined()
    // 24 levels of folders are searched, 25 are not.
    const deep = mkdtempSync(join(tmpdir(), 'locations-deep-'))
    const levels = (n: number) => join(deep, ...Array<string>(n).fill('d'))
    mkdirSync(levels(25), { recursive: true })
    writeFileSync(join(levels(24), 'x'), 'x\n')
    expect((await searchWorkspace(levels(1), new Set(['x'])))?.get('x')).toEqual([
      Array<string>(23).fill('d').join('/') + '/x'
    ])
    expect(await searchWorkspace(deep, new Set(['x']))).toBeUndefined()
    rmSync(deep, { recursive: true, force: true })
    expect(await searchWorkspace(join(root, 'missing'), new Set(['x']))).toBeUndefined()
  })
})

describe('locateFailedTests', () => {
  it('maps each failed test with a resolvable trace to its place', async () => {
    const test = (name: string, trace?: string): FailedTest => ({
      className: 'c',
      name,
      status: 'FAILED',
      url: 'u',
      errorStackTrace: trace
    })
    const a = test('a', '\tat com.example.CalcTest.adds(CalcTest.java:42)')
    const b = test('b', 'no frames here')
    const c = test('c')
    const located = await locateFailedTests([a, b, c], root, quiet)
    expect([...located.entries()]).toEqual([
      [a, { file: 'src/test/java/com/example/CalcTest.java', line: 42 }]
    ])
  })
})
