import { describe, expect, it } from 'vitest'
import type { Build } from '../../src/jenkins/model/types.js'
import { NAME_CHARS, shortName } from '../../src/util/names.js'
import { failureMessage } from '../../src/outcome/failure.js'
import { annotateFailedTests, type TestsOutcome } from '../../src/outcome/test-report.js'

const LONG = `${'stage-'.repeat(700)}end`

describe('shortName', () => {
  it('cuts a name to NAME_CHARS characters, the ellipsis included, and leaves short ones', () => {
    expect(NAME_CHARS).toBe(200)
    expect(shortName(LONG)).toBe(`${LONG.slice(0, 199)}…`)
    expect(Array.from(shortName('🎉'.repeat(300)))).toHaveLength(200)
    expect(shortName('deploy')).toBe('deploy')
  })

  it('is how the failure message names the job and the stage', () => {
    const build = { number: 3, url: 'u', building: false, result: 'FAILURE' } as Build
    const message = failureMessage(
      { jobName: LONG, jobUrl: 'https://ci/job/x/', build, failedStage: LONG },
      []
    )
    expect(message).toBe(
      `Jenkins build ${shortName(LONG)} #3 finished FAILURE in stage '${shortName(LONG)}'`
    )
  })

  it('is how a failed test annotation is titled and its class named', () => {
    const tests: TestsOutcome = {
      counts: { total: 1, failed: 1, skipped: 0 },
      failed: [{ className: LONG, name: LONG, status: 'FAILED', url: 'https://ci/t/' }],
      reportUrl: 'https://ci/r/',
      casesRead: 1,
      partial: false
    }
    const calls: Array<[string, string]> = []
    annotateFailedTests(tests, (message, title) => calls.push([message, title]))
    expect(calls).toEqual([[`FAILED ${shortName(LONG)} — https://ci/t/`, shortName(LONG)]])
  })
})
