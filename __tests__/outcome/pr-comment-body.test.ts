import { describe, expect, it } from 'vitest'
import type { FailedTest } from '../../src/jenkins/model/types.js'
import {
  codeSpan,
  commentMarker,
  MAX_COMMENT_CHARS,
  renderComment,
  type CommentBuild
} from '../../src/outcome/pr-comment-body.js'
import type { BuildOutcome } from '../../src/outcome/report.js'

const JENKINS = 'https://ci.example.com/jenkins'

/** Names a hostile job, test, stage or error could have. */
const HOSTILE = [
  '@octocat please look',
  '@org/team',
  'see https://evil.example/x and www.evil.example',
  '<img src=x onerror=alert(1)>',
  '<details><summary>hi</summary>',
  '```\ncode fence\n```',
  'a`b``c```d',
  '`leading and trailing`',
  'line one\nline two\r\nline three\u2028four\u2029five\u0085six',
  '::error::forged annotation',
  '[click](https://evil.example)',
  '![img](https://evil.example/a.png)',
  '&#64;octocat',
  '\\@octocat',
  '#1 and GH-2 and o/r#3',
  '\u202eevil\u202c',
  '| a | b |'
]

function failed(name: string, i: number): FailedTest {
  return {
    className: `pkg.${name}`,
    name,
    status: 'FAILED',
    url: `${JENKINS}/job/x/1/testReport/${i}/`,
    errorDetails: `${name}\nsecond line`
  }
}

function hostileBuild(name: string): CommentBuild {
  const outcome: BuildOutcome = {
    jobName: name,
    jobUrl: `${JENKINS}/job/x/`,
    buildUrl: `${JENKINS}/job/x/12/`,
    result: 'FAILURE',
    failedStage: name,
    tests: {
      counts: { total: 3, failed: 1, skipped: 0 },
      failed: [failed(name, 1)],
      reportUrl: `${JENKINS}/job/x/12/testReport/`,
      casesRead: 3,
      partial: false
    }
  }
  return { outcome }
}

/** Markdown with every code span taken out: what GitHub would parse. */
function outsideCodeSpans(markdown: string): string {
  // Fences: a run of backticks, to the next run of the same length (CommonMark).
  return markdown.replace(/(`+)(?:(?!\1)[\s\S])*?\1(?!`)/g, '')
}

describe('codeSpan', () => {
  it.each(HOSTILE)('keeps %j in one span on one line, whole', text => {
    const span = codeSpan(text, 500)
    expect(span).not.toMatch(/[\r\n\u2028\u2029\u0085]/)
    expect(outsideCodeSpans(span)).toBe('')
    const fence = /^`+/.exec(span)?.[0] ?? ''
    // No run inside is as long as the fence: nothing in the text can close it early.
    const inner = span.slice(fence.length, span.length - fence.length)
    expect(Math.max(0, ...Array.from(inner.matchAll(/`+/g), r => r[0].length))).toBeLessThan(
      fence.length
    )
  })

  it('cuts long text with an ellipsis and says (empty) for nothing', () => {
    expect(codeSpan('x'.repeat(50), 10)).toBe('`xxxxxxxxx…`')
    expect(codeSpan(' \n ', 10)).toBe('(empty)')
  })
})

describe('renderComment', () => {
  it('starts with its marker, one per report name', () => {
    const body = renderComment({ name: 'jenkins/app', builds: [], jenkinsUrl: JENKINS })
    expect(body.split('\n')[0]).toBe(commentMarker('jenkins/app'))
    expect(commentMarker('jenkins/app')).not.toBe(commentMarker('jenkins/other'))
    expect(commentMarker('a --> b')).toMatch(/^<!-- jenkins-build-action report [0-9a-f]{16} -->$/)
  })

  it('a finished build: result and symbol, duration, link, tests, failed stage and test with its place', () => {
    const outcome: BuildOutcome = {
      jobName: 'team/app',
      jobUrl: `${JENKINS}/job/team/job/app/`,
      buildUrl: `${JENKINS}/job/team/job/app/7/`,
      result: 'UNSTABLE',
      accepted: false,
      failedStage: 'Test',
      build: { number: 7, duration: 65_000 } as BuildOutcome['build'],
      tests: {
        counts: { total: 12, failed: 2, skipped: 1 },
        failed: [failed('adds', 1), failed('subtracts', 2)],
        reportUrl: '',
        casesRead: 12,
        partial: false
      }
    }
    const first = outcome.tests?.failed[0] as FailedTest
    if (outcome.tests)
      outcome.tests.located = new Map([[first, { file: 'src/Calc.java', line: 42 }]])
    const body = renderComment({
      name: 'jenkins/app',
      builds: [{ outcome }],
      runUrl: 'https://github.com/o/r/actions/runs/5',
      jenkinsUrl: JENKINS
    })
    expect(body).toContain(
      `- ⚠️ **UNSTABLE** [\`team/app\`](${JENKINS}/job/team/job/app/) [#7](${JENKINS}/job/team/job/app/7/) · 1 min 5 s · tests: 12 total, 2 failed, 1 skipped`
    )
    expect(body).toContain('  - Failed stage: `Test`')
    expect(body).toContain('    - `pkg.adds.adds` at `src/Calc.java:42`: `adds`')
    expect(body).toContain('    - `pkg.subtracts.subtracts`: `subtracts`')
    expect(body).toContain('[workflow run](https://github.com/o/r/actions/runs/5)')
  })

  it('queued and running builds', () => {
    const body = renderComment({
      name: 'jenkins',
      builds: [
        {
          outcome: {
            jobName: 'a',
            jobUrl: `${JENKINS}/job/a/`,
            queueUrl: `${JENKINS}/queue/item/3/`
          }
        },
        { outcome: { jobName: 'b', jobUrl: `${JENKINS}/job/b/`, buildUrl: `${JENKINS}/job/b/4/` } }
      ],
      jenkinsUrl: JENKINS
    })
    expect(body).toContain(`- ⏳ **[queued](${JENKINS}/queue/item/3/)** [\`a\`](${JENKINS}/job/a/)`)
    expect(body).toContain(`- 🔄 **running** [\`b\`](${JENKINS}/job/b/) [#4](${JENKINS}/job/b/4/)`)
  })

  it('links nowhere but the configured Jenkins and the run', () => {
    const body = renderComment({
      name: 'x',
      builds: [
        {
          outcome: {
            jobName: 'a',
            jobUrl: 'https://evil.example/job/a/',
            buildUrl: 'javascript:alert(1)//1'
          }
        }
      ],
      jenkinsUrl: JENKINS
    })
    expect(body).not.toContain('evil.example')
    expect(body).not.toContain('javascript:')
  })

  it.each(HOSTILE)('Jenkins text %j forms no HTML, mention, link, fence or line', name => {
    const body = renderComment({
      name: 'jenkins/app',
      builds: [hostileBuild(name), { ...hostileBuild('x'), error: name }],
      jenkinsUrl: JENKINS
    })
    const plain = renderComment({
      name: 'jenkins/app',
      builds: [hostileBuild('plain'), { ...hostileBuild('x'), error: 'plain' }],
      jenkinsUrl: JENKINS
    })
    // What GitHub parses (all but the code spans) is the same as for a plain
    // name: no HTML, mention, link, fence or line break came from Jenkins.
    expect(outsideCodeSpans(body)).toBe(outsideCodeSpans(plain))
    expect(body.split('\n')).toHaveLength(plain.split('\n').length)
  })

  it('stays within 65,536 characters: fewer failed tests, then fewer builds', () => {
    const long = 'x'.repeat(5000)
    const many = Array.from({ length: 20 }, (_, i) => failed(`${long}${i}`, i))
    const build = (i: number): CommentBuild => ({
      outcome: {
        ...hostileBuild(long).outcome,
        jobName: `${long}${i}`,
        tests: {
          counts: { total: 20, failed: 20, skipped: 0 },
          failed: many,
          reportUrl: '',
          casesRead: 20,
          partial: false
        }
      }
    })
    const few = renderComment({ name: 'n', builds: [build(1), build(2)], jenkinsUrl: JENKINS })
    expect(few.length).toBeLessThanOrEqual(MAX_COMMENT_CHARS)
    expect(few).toContain('Failed tests (10 of 20)')
    const lots = renderComment({
      name: 'n',
      builds: Array.from({ length: 2000 }, (_, i) => build(i)),
      jenkinsUrl: JENKINS
    })
    expect(lots.length).toBeLessThanOrEqual(MAX_COMMENT_CHARS)
    expect(lots).toMatch(/- and \d+ more builds: see the workflow run\.\n$/)
  })
})
