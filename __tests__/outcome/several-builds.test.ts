import * as core from '@actions/core'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Build } from '../../src/jenkins/model/types.js'
import { silentLogger } from '../fixtures/recording-logger.js'
import { buildsFailure as jobsFailure } from '../../src/outcome/failure.js'
import { writeSummary, type BuildReport } from '../../src/outcome/report.js'
import { buildEntry, setOutputs, worstResult } from '../../src/outcome/build-outputs.js'
import type { Logger } from '../../src/util/logger.js'

/**
 * What several builds (`jobs`) report: the outputs, the failure message and
 * the summary's table, from the writers one `job` uses too.
 */
function setJobsOutputs(
  out: Parameters<typeof setOutputs>[0],
  reports: readonly BuildReport[],
  logger: Logger = silentLogger
): void {
  setOutputs(out, reports, logger, { several: true })
}

function writeJobsSummary(
  summary: Parameters<typeof writeSummary>[0],
  reports: readonly BuildReport[],
  logger: Logger
): Promise<void> {
  return writeSummary(summary, reports, logger, { several: true })
}
import { decodeBuild } from '../../src/jenkins/reads/decode.js'

function build(number: number, result: Build['result'], duration = 61_000): Build {
  return decodeBuild({
    number,
    url: 'http://jenkins.internal/x/',
    building: result === null,
    result,
    duration: result === null ? 0 : duration,
    estimatedDuration: -1,
    timestamp: 1
  })
}

function item(
  job: string,
  number: number | undefined,
  result: Build['result'] | undefined,
  extra: Partial<BuildReport> = {}
): BuildReport {
  const jobUrl = `https://ci/job/${job}/`
  return {
    outcome: {
      jobName: job,
      jobUrl,
      queueUrl: `https://ci/queue/item/${number ?? 0}/`,
      ...(number === undefined ? {} : { buildUrl: `${jobUrl}${number}/` }),
      ...(result === undefined || number === undefined ? {} : { build: build(number, result) }),
      ...(result ? { result, accepted: result === 'SUCCESS' } : {})
    },
    tail: [],
    ...extra
  }
}

describe('worstResult', () => {
  it("follows Jenkins' order: SUCCESS < UNSTABLE < FAILURE < NOT_BUILT < ABORTED", () => {
    expect(worstResult(['SUCCESS', 'UNSTABLE'])).toBe('UNSTABLE')
    expect(worstResult(['FAILURE', 'UNSTABLE', 'SUCCESS'])).toBe('FAILURE')
    expect(worstResult(['NOT_BUILT', 'FAILURE'])).toBe('NOT_BUILT')
    expect(worstResult(['ABORTED', 'NOT_BUILT', undefined])).toBe('ABORTED')
    expect(worstResult([undefined])).toBeUndefined()
  })
})

describe('outputs', () => {
  it('builds: one entry per item in the order given, null where unknown', () => {
    const items = [
      item('unit', 3, 'SUCCESS'),
      item('deploy', undefined, undefined),
      item('lint', 5, null)
    ]
    expect(items.map(i => buildEntry(i))).toEqual([
      {
        job: 'unit',
        number: 3,
        url: 'https://ci/job/unit/3/',
        result: 'SUCCESS',
        duration: 61_000,
        queueUrl: 'https://ci/queue/item/3/',
        description: '',
        displayName: '#3',
        parameters: {},
        values: null
      },
      {
        job: 'deploy',
        number: null,
        url: null,
        result: null,
        duration: null,
        queueUrl: 'https://ci/queue/item/0/',
        description: null,
        displayName: null,
        parameters: null,
        values: null
      },
      {
        job: 'lint',
        number: 5,
        url: 'https://ci/job/lint/5/',
        result: null,
        duration: null,
        queueUrl: 'https://ci/queue/item/5/',
        description: '',
        displayName: '#5',
        parameters: {},
        values: null
      }
    ])
  })

  it('result is the worst; tests are summed over the builds with a report; artifacts listed together', () => {
    const out: Record<string, string> = {}
    const withTests = (failed: number) => ({
      counts: { total: 10, failed, skipped: 1 },
      failed: [],
      reportUrl: 'r',
      casesRead: 0,
      partial: false
    })
    const a = item('a', 1, 'SUCCESS')
    a.outcome.tests = withTests(0)
    a.outcome.artifacts = {
      written: ['jenkins-artifacts/a/x.zip'],
      folder: 'f',
      bytes: 1,
      refused: [],
      problems: []
    }
    const b = item('b', 2, 'UNSTABLE')
    b.outcome.tests = withTests(2)
    const c = item('c', 3, 'SUCCESS')
    setJobsOutputs({ setOutput: (name, value) => (out[name] = value) }, [a, b, c])
    expect(out.result).toBe('UNSTABLE')
    expect([out['tests-total'], out['tests-failed'], out['tests-skipped']]).toEqual([
      '20',
      '2',
      '2'
    ])
    expect(JSON.parse(out.artifacts as string)).toEqual(['jenkins-artifacts/a/x.zip'])
    expect(JSON.parse(out.builds as string)).toHaveLength(3)
    expect(out['build-number']).toBeUndefined()
  })

  it('a sum of test counts past the safe-integer range is not set, with a warning', () => {
    const out: Record<string, string> = {}
    const warnings: string[] = []
    const huge = {
      counts: { total: Number.MAX_SAFE_INTEGER, failed: 1, skipped: 0 },
      failed: [],
      reportUrl: 'r',
      casesRead: 0,
      partial: false
    }
    const a = item('a', 1, 'SUCCESS')
    a.outcome.tests = huge
    const b = item('b', 2, 'SUCCESS')
    b.outcome.tests = huge
    setJobsOutputs({ setOutput: (name, value) => (out[name] = value) }, [a, b], {
      debug() {},
      info() {},
      warning: m => warnings.push(m)
    })
    expect(out['tests-total']).toBeUndefined()
    expect(out['tests-failed']).toBe('2')
    expect(warnings).toEqual([
      "The tests-total output is not set: the sum of the builds' counts is too large."
    ])
  })
})

describe('jobsFailure', () => {
  it('undefined when every build passed', () => {
    expect(
      jobsFailure([item('a', 1, 'SUCCESS'), item('b', 2, 'SUCCESS')], ['SUCCESS'])
    ).toBeUndefined()
  })

  it('names each build that did not pass, then the last console lines of those that failed by themselves', () => {
    const failing = item('integration', 12, 'FAILURE', {
      tail: Array.from({ length: 40 }, (_, i) => `line ${i}`)
    })
    failing.outcome.failedStage = 'Test'
    const stopped = item('deploy', 4, 'ABORTED', { stopped: 'stopped by fail-fast', tail: ['x'] })
    const lost = item('docs', undefined, undefined, {
      error: 'The queue item 9 of docs was cancelled in Jenkins before it started.'
    })
    const message = jobsFailure([item('unit', 3, 'SUCCESS'), failing, stopped, lost], ['SUCCESS'])
      ?.message as string
    const lines = message.split('\n')
    expect(lines.slice(0, 4)).toEqual([
      '3 of 4 Jenkins builds did not pass (accepted: SUCCESS):',
      "- integration #12 FAILURE in stage 'Test' — https://ci/job/integration/12/",
      '- deploy #4 ABORTED (stopped by fail-fast) — https://ci/job/deploy/4/',
      '- docs: The queue item 9 of docs was cancelled in Jenkins before it started'
    ])
    expect(message).toContain('Last 10 console lines:\nline 30\n')
    expect(message).toContain('line 39')
    // The stopped build's console is not the news.
    expect(lines.filter(l => l === 'x')).toEqual([])
  })

  it('an accepted UNSTABLE passes; a wanted artifact missing fails the step anyway', () => {
    const unstable = item('a', 1, 'UNSTABLE')
    unstable.outcome.accepted = true
    unstable.outcome.artifacts = {
      written: [],
      folder: 'f',
      bytes: 0,
      refused: [],
      problems: ["No artifact of build #1 matches 'dist/*.zip'."]
    }
    expect(jobsFailure([unstable], ['SUCCESS', 'UNSTABLE'])?.message).toBe(
      "No artifact of build #1 matches 'dist/*.zip'."
    )
  })
})

describe('writeJobsSummary', () => {
  let dir: string
  const saved = process.env.GITHUB_STEP_SUMMARY
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'summary-'))
    writeFileSync(join(dir, 'summary.md'), '')
    process.env.GITHUB_STEP_SUMMARY = join(dir, 'summary.md')
  })
  afterEach(() => {
    if (saved === undefined) delete process.env.GITHUB_STEP_SUMMARY
    else process.env.GITHUB_STEP_SUMMARY = saved
    rmSync(dir, { recursive: true, force: true })
  })

  function newSummary(): typeof core.summary {
    const Summary = Object.getPrototypeOf(core.summary).constructor as new () => typeof core.summary
    return new Summary()
  }

  it('one row per build, then the details of each failed one; Jenkins text escaped', async () => {
    const failing = item('integration', 12, 'FAILURE', {
      tail: ['<script>alert(1)</script>', 'Finished: FAILURE']
    })
    failing.outcome.tests = {
      counts: { total: 5, failed: 1, skipped: 0 },
      failed: [
        {
          className: 'a.B',
          name: 'test_x',
          status: 'FAILED',
          url: 'https://ci/t',
          errorDetails: 'boom'
        }
      ],
      reportUrl: 'https://ci/job/integration/12/testReport/',
      casesRead: 5,
      partial: false
    }
    const hostile = item('<img src=x>', 2, 'SUCCESS')
    await writeJobsSummary(
      newSummary(),
      [
        item('unit', 3, 'SUCCESS'),
        failing,
        hostile,
        item('deploy', undefined, undefined, { stopped: 'cancelled in the queue by fail-fast' })
      ],
      silentLogger
    )
    const html = readFileSync(join(dir, 'summary.md'), 'utf8')
    expect(html).toContain('<h2>Jenkins builds</h2>')
    expect(html).toContain(
      '<th>Job</th><th>Build</th><th>Result</th><th>Duration</th><th>Failed tests</th>'
    )
    expect(html).toContain(
      '<td><a href="https://ci/job/unit/">unit</a></td><td><a href="https://ci/job/unit/3/">&#35;3</a></td><td>✅ SUCCESS</td><td>1 min 1 s</td><td>—</td>'
    )
    expect(html).toContain('❌ FAILURE (not accepted)</td><td>1 min 1 s</td><td>1</td>')
    expect(html).toContain('⏳ queued — cancelled in the queue by fail-fast')
    expect(html).toMatch(
      /<h3><a href="https:\/\/ci\/job\/integration\/12\/">integration &#35;12<\/a>: FAILURE<\/h3>/
    )
    expect(html).toContain('test&#95;x')
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;')
    // The stopped build is a failure of the step: named, with what was done to it.
    expect(html).toMatch(
      /<h3><a href="https:\/\/ci\/job\/deploy\/">deploy<\/a>: no result<\/h3>\s*<p>cancelled in the queue by fail-fast<\/p>/
    )
    expect(html).not.toContain('<script>')
    expect(html).not.toContain('<img')
  })

  it('what could not be read of a build is said, whether it passed or failed', async () => {
    const passing = item('unit', 3, 'SUCCESS')
    passing.outcome.unread = ['The stages of Jenkins build #3 could not be read: too <deep>']
    const failing = item('integration', 12, 'FAILURE')
    failing.outcome.unread = ['The artifacts list of Jenkins build #12 could not be read: x']
    await writeJobsSummary(newSummary(), [passing, failing], silentLogger)
    const html = readFileSync(join(dir, 'summary.md'), 'utf8')
    expect(html).toContain(
      '<p>⚠️ The stages of Jenkins build &#35;3 could not be read: too &#60;deep&#62;</p>'
    )
    expect(html).toContain(
      '<p>⚠️ The artifacts list of Jenkins build &#35;12 could not be read: x</p>'
    )
  })
})
