import { describe, expect, it, test } from 'vitest'
import { Interrupted } from '../../src/jenkins/transport/errors.js'
import type { Build, FailedTestsRead } from '../../src/jenkins/model/types.js'
import {
  annotateFailedTests,
  readTests,
  rebaser,
  testReportAction,
  type TestsOutcome
} from '../../src/outcome/test-report.js'
import { recordingLogger } from '../jenkins/helpers.js'
import { decodeBuild } from '../../src/jenkins/reads/decode.js'

const BASE = 'https://ci.example.com/jenkins'
const REF = { job: ['app'], number: 5, url: `${BASE}/job/app/5/` }

function build(actions: unknown[], url = 'http://jenkins.internal:8080/job/app/5/'): Build {
  return decodeBuild({
    _class: 'hudson.model.FreeStyleBuild',
    number: 5,
    url,
    building: false,
    result: 'UNSTABLE',
    duration: 1,
    estimatedDuration: 1,
    timestamp: 1,
    actions
  })
}

const JUNIT = {
  _class: 'hudson.tasks.junit.TestResultAction',
  failCount: 2,
  skipCount: 1,
  totalCount: 40,
  urlName: 'testReport'
}

describe('testReportAction', () => {
  it('reads a JUnit TestResultAction, skipping actions without counts', () => {
    expect(
      testReportAction([{ _class: 'hudson.model.CauseAction', causes: [] }, {}, JUNIT])
    ).toEqual({
      counts: { total: 40, failed: 2, skipped: 1 },
      urlName: 'testReport'
    })
  })

  it('takes the aggregate over its parts; urlName defaults to testReport', () => {
    expect(
      testReportAction([
        {
          _class: 'hudson.tasks.test.AggregatedTestResultAction',
          failCount: 3,
          skipCount: 0,
          totalCount: 90
        },
        { _class: 'some.plugin.TestAction', failCount: 1, totalCount: 30, urlName: 'other' }
      ])
    ).toEqual({ counts: { total: 90, failed: 3, skipped: 0 }, urlName: 'testReport' })
  })

  it('is undefined without counts', () => {
    expect(testReportAction([])).toBeUndefined()
    expect(testReportAction(undefined)).toBeUndefined()
    expect(testReportAction([null, 'x', { failCount: '1', totalCount: 2 }])).toBeUndefined()
  })

  it('ignores counts that are not counts, saying which, and keeps a valid action beside them', () => {
    const said: string[] = []
    const action = testReportAction(
      [
        { _class: 'a.Huge', failCount: 1, totalCount: 1e21, skipCount: 0 },
        { _class: 'a.Skips', failCount: 0, totalCount: 5, skipCount: 1e300 },
        { _class: 'a.Unsafe', failCount: 0, totalCount: 2 ** 53 },
        { _class: 'a.Negative', failCount: -1, totalCount: 7 },
        { _class: 'a.Fraction', failCount: 0.5, totalCount: 8 },
        { _class: 'a.Both', failCount: 1, totalCount: 1e21, skipCount: 1e300 },
        JUNIT
      ],
      message => said.push(message)
    )
    expect(action?.counts).toEqual({ total: 40, failed: 2, skipped: 1 })
    expect(said).toEqual([
      `Ignored the test counts of "a.Huge": totalCount 1e+21 is not a whole number from 0 to 9007199254740991.`,
      `Ignored the test counts of "a.Skips": skipCount 1e+300 is not a whole number from 0 to 9007199254740991.`,
      `Ignored the test counts of "a.Unsafe": totalCount 9007199254740992 is not a whole number from 0 to 9007199254740991.`,
      `Ignored the test counts of "a.Negative": failCount -1 is not a whole number from 0 to 9007199254740991.`,
      `Ignored the test counts of "a.Fraction": failCount 0.5 is not a whole number from 0 to 9007199254740991.`,
      `Ignored the test counts of "a.Both": totalCount 1e+21, skipCount 1e+300 are not whole numbers from 0 to 9007199254740991.`
    ])
  })
})

describe('readTests', () => {
  function api(read: FailedTestsRead | Error, detailedActions?: unknown[]) {
    const calls: string[] = []
    return {
      calls,
      baseUrl: BASE,
      async getBuild(_job: readonly string[], _which: unknown, options?: { tree?: string }) {
        calls.push(`getBuild ${options?.tree}`)
        return build(detailedActions ?? [])
      },
      async failedTests(
        _ref: unknown,
        options?: { urlName?: string; rebase?: (u: string) => string; budget?: { want?: number } }
      ) {
        calls.push(`failedTests want=${options?.budget?.want} urlName=${options?.urlName}`)
        calls.push(`rebased ${options?.rebase?.('http://jenkins.internal:8080/job/app/OS=x/5/')}`)
        if (read instanceof Error) throw read
        return read
      }
    }
  }
  const READ: FailedTestsRead = {
    failed: [
      { className: 'a.B', name: 'c', status: 'FAILED', url: `${BASE}/job/app/5/testReport/a/B/c/` }
    ],
    casesRead: 40,
    bytesRead: 4000,
    requests: 1,
    complete: true,
    budgetReached: false
  }

  it('counts from the action, then as many failed tests as failed (at most 20), links on our base', async () => {
    const fake = api(READ)
    const tests = await readTests(fake, REF, build([JUNIT]), recordingLogger())
    expect(tests).toEqual({
      counts: { total: 40, failed: 2, skipped: 1 },
      failed: READ.failed,
      reportUrl: `${BASE}/job/app/5/testReport/`,
      casesRead: 40,
      partial: false
    })
    expect(fake.calls).toEqual([
      'failedTests want=2 urlName=testReport',
      `rebased ${BASE}/job/app/OS=x/5/`
    ])
  })

  it('no failed test: no report read; no action: undefined and no request', async () => {
    const fake = api(READ)
    const passed = await readTests(
      fake,
      REF,
      build([{ ...JUNIT, failCount: 0 }]),
      recordingLogger()
    )
    expect(passed?.counts.failed).toBe(0)
    expect(await readTests(fake, REF, build([]), recordingLogger())).toBeUndefined()
    expect(fake.calls).toEqual([])
  })

  it('an action named without counts (depth 0) is asked for with a narrow tree', async () => {
    const fake = api(READ, [JUNIT])
    const tests = await readTests(
      fake,
      REF,
      build([{ _class: 'hudson.tasks.junit.TestResultAction' }]),
      recordingLogger()
    )
    expect(tests?.counts).toEqual({ total: 40, failed: 2, skipped: 1 })
    expect(fake.calls[0]).toBe('getBuild actions[_class,failCount,skipCount,totalCount,urlName]')
  })

  it('the step being stopped while reading is not swallowed', async () => {
    const stopped = new Interrupted('Stopped waiting for Jenkins at x: the step was stopped', {
      sent: true
    })
    await expect(readTests(api(stopped), REF, build([JUNIT]), recordingLogger())).rejects.toBe(
      stopped
    )
  })

  it('a report that cannot be read keeps the counts and says so: a warning, and a note for the summary', async () => {
    const logger = recordingLogger()
    const unread: string[] = []
    const tests = await readTests(api(new Error('502 twice')), REF, build([JUNIT]), logger, unread)
    expect(tests).toMatchObject({ counts: { failed: 2 }, failed: [], casesRead: 0, partial: false })
    const message = `The test report of Jenkins build #${REF.number} could not be read, so its failed tests are not listed: 502 twice`
    expect(logger.lines).toEqual([{ level: 'warning', message }])
    expect(unread).toEqual([message])
  })
})

test('rebaser maps Jenkins root URLs onto the configured base, and leaves others', () => {
  const rebase = rebaser('http://jenkins.internal:8080/job/app/5/', `${BASE}/job/app/5/`, BASE)
  expect(rebase('http://jenkins.internal:8080/job/app/OS=linux/5/')).toBe(
    `${BASE}/job/app/OS=linux/5/`
  )
  expect(rebase('http://elsewhere/job/x/')).toBe('http://elsewhere/job/x/')
  const same = rebaser(`${BASE}/job/app/5/`, `${BASE}/job/app/5/`, BASE)
  expect(same(`${BASE}/job/app/OS=a/5/`)).toBe(`${BASE}/job/app/OS=a/5/`)
  expect(rebaser('http://other/view/x/5/', `${BASE}/job/app/5/`, BASE)('http://other/a')).toBe(
    'http://other/a'
  )
})

describe('annotateFailedTests', () => {
  it('one annotation per failed test, at most 10, titled with its name, quoting the first lines', () => {
    const failed = Array.from({ length: 12 }, (_, i) => ({
      className: 'com.example.T',
      name: `test ${i}`,
      status: 'FAILED',
      url: `${BASE}/job/app/5/testReport/com.example/T/test_${i}/`,
      errorDetails: i === 0 ? 'line 1\nline 2\nline 3\nline 4\nline 5\nline 6' : undefined
    }))
    const tests: TestsOutcome = {
      counts: { total: 12, failed: 12, skipped: 0 },
      failed,
      reportUrl: '',
      casesRead: 12,
      partial: false
    }
    const annotations: Array<[string, string]> = []
    annotateFailedTests(tests, (message, title) => annotations.push([message, title]))
    expect(annotations).toHaveLength(10)
    expect(annotations[0]).toEqual([
      `line 1\nline 2\nline 3\nline 4\nline 5\ncom.example.T — ${BASE}/job/app/5/testReport/com.example/T/test_0/`,
      'test 0'
    ])
    expect(annotations[1]).toEqual([
      `FAILED com.example.T — ${BASE}/job/app/5/testReport/com.example/T/test_1/`,
      'test 1'
    ])
  })
})
