/**
 * End to end: a build's failed tests (issue 11) — outputs, annotations and
 * the summary for a freestyle build with failed tests, and a report too big
 * to read whole. Every request checked is this run's own (job and build
 * number).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startJenkins, type TestCaseSpec, type TestJenkins } from '../../test-server/index.js'
import { ADMIN_TOKEN, auth, commands, describeRun, run, runnerView, RUNTIMES } from './helpers.js'

const CLASS = 'com.example.shop.CartTest'
/** 23 failed tests: more than the summary lists (20) and the annotations (10). */
const FAILED: TestCaseSpec[] = Array.from({ length: 23 }, (_, i) => ({
  className: CLASS,
  name: `removes item ${String(i).padStart(2, '0')}`,
  status: i === 1 ? 'REGRESSION' : 'FAILED',
  errorDetails: `expected: <${i}> but was: <${i + 1}>\nsecond line`
}))
/** Names a hostile or careless test suite could have: they must stay text. */
const HOSTILE_NAMES = [
  '::warning::from a test name',
  '##[error]inline',
  '<img src=x onerror=alert(1)>',
  'a b',
  'a-b'
]

describe.each(RUNTIMES)('failed tests ($name)', ({ path: node }) => {
  let jenkins: TestJenkins
  beforeAll(async () => {
    jenkins = await startJenkins({
      quietPeriodSec: 0,
      executors: 4,
      jobs: {
        'cart-tests': {
          script: {
            durationMs: 150,
            result: 'UNSTABLE',
            tests: {
              suites: [
                {
                  name: 'hostile',
                  cases: [
                    { className: CLASS, name: 'adds item' },
                    ...HOSTILE_NAMES.map(name => ({
                      className: 'com.example.odd.NamesTest',
                      name,
                      status: 'FAILED' as const,
                      errorDetails: `::error::${name}\n##[warning]details`
                    })),
                    { className: CLASS, name: 'skipped', status: 'SKIPPED' as const }
                  ]
                },
                { name: 'cart', cases: FAILED }
              ]
            }
          }
        },
        huge: {
          script: {
            durationMs: 100,
            result: 'UNSTABLE',
            tests: { total: 100_000, failed: 5, skipped: 10, failuresAt: 'end' }
          }
        }
      }
    })
  })
  afterAll(() => jenkins.close())

  describe.concurrent('report', () => {
    it('sets the counts, annotates 9 failed tests by name (the tenth annotation is the failure), lists 20 linked to their pages', async () => {
      const r = await run(node, { ...auth(jenkins), job: 'cart-tests' })
      expect(r.code, describeRun(r)).toBe(1)
      const n = r.outputs['build-number']
      expect([
        r.outputs['tests-total'],
        r.outputs['tests-failed'],
        r.outputs['tests-skipped']
      ]).toEqual(['30', '28', '1'])
      // One ::error per failed test up to 9, then the step's own failure:
      // GitHub shows 10 error annotations a step, and drops the rest.
      const errors = commands(r.stdout, 'error')
      expect(errors).toHaveLength(10)
      expect(errors[9]?.value).toMatch(/^Jenkins build cart-tests #\d+ finished UNSTABLE/)
      const titles = errors.slice(0, 9).map(c => /^title=(.*)$/.exec(c?.properties ?? '')?.[1])
      expect(titles).toEqual([
        '%3A%3Awarning%3A%3Afrom a test name',
        '##[error]inline',
        '<img src=x onerror=alert(1)>',
        'a b',
        'a-b',
        'removes item 00',
        'removes item 01',
        'removes item 02',
        'removes item 03'
      ])
      // The tenth failed test is a log line, said once why.
      expect(r.stdout).toContain(
        "GitHub shows 10 error annotations a step, the last kept for the step's result: the other failed tests follow here, and in the job summary."
      )
      expect(r.stdout).toContain(
        `\nFailed test removes item 04: expected: <4> but was: <5>\n  second line\n  ${CLASS} — ${jenkins.url}/job/cart-tests/${n}/testReport/com.example.shop/CartTest/removes_item_04/\n`
      )
      expect(errors[5]?.value).toBe(
        `expected: <0> but was: <1>%0Asecond line%0A${CLASS} — ${jenkins.url}/job/cart-tests/${n}/testReport/com.example.shop/CartTest/removes_item_00/`
      )
      // Jenkins text never formed a command of its own.
      const acted = runnerView(r.stdout).filter(l => !l.stopped && l.command)
      for (const line of acted) {
        expect(['add-mask', 'group', 'stop-commands', 'endgroup', 'error', 'debug']).toContain(
          line.command?.name
        )
      }
      expect(r.stdout.split('\n').filter(l => l.includes('##[') && !l.startsWith('::'))).toEqual([])

      // The summary: 20 rows, escaped, each linked to a page Jenkins has.
      const rows = [
        ...r.summary.matchAll(/<tr><td><a href="([^"]+)">([^<]*)<\/a><\/td><td><code>/g)
      ]
      expect(rows).toHaveLength(20)
      expect(r.summary).toContain('&#60;img src=x onerror=alert(1)&#62;')
      expect(r.summary).not.toContain('<img')
      expect(r.summary).toContain(`<p>20 of 28 failed tests shown. All results:`)
      expect(r.summary).toContain(
        `<a href="${jenkins.url}/job/cart-tests/${n}/testReport/">test report</a>`
      )
      for (const [, href] of rows) {
        expect(href?.startsWith(`${jenkins.url}/job/cart-tests/${n}/testReport/`)).toBe(true)
        const page = await fetch(href ?? '', {
          headers: {
            authorization: `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}`
          }
        })
        expect(page.status, href).toBe(200)
      }
      // 'a b' and 'a-b' share a safe name: the second is _2, as the plugin uniquifies.
      expect(rows.map(m => m[1])).toContain(
        `${jenkins.url}/job/cart-tests/${n}/testReport/com.example.odd/NamesTest/a_b_2/`
      )

      // What this run asked of the report: every suite's enclosing blocks,
      // the first suite's first 200 cases, then the suites after it.
      const reads = jenkins.requests.filter(
        q => q.path === `/job/cart-tests/${n}/testReport/api/json`
      )
      expect(reads.map(q => decodeURIComponent(q.query))).toEqual([
        'tree=suites[enclosingBlocks],childReports[child[url],result[suites[enclosingBlocks]]]',
        expect.stringMatching(
          /cases\[className,name,status,errorDetails,errorStackTrace\]\{0,200\}\]\{0,1\},/
        ),
        expect.stringMatching(
          /cases\[className,name,status,errorDetails,errorStackTrace\]\{0,1000\}\]\{1,\d+\},/
        )
      ])
    })

    it('a report too big to read whole: bounded pages, counts right, the summary says what was read', async () => {
      const r = await run(
        node,
        { ...auth(jenkins), job: 'huge', accept: 'SUCCESS,UNSTABLE' },
        { env: { RUNNER_DEBUG: '1' } }
      )
      expect(r.code, describeRun(r)).toBe(0)
      const n = r.outputs['build-number']
      expect([
        r.outputs['tests-total'],
        r.outputs['tests-failed'],
        r.outputs['tests-skipped']
      ]).toEqual(['100000', '5', '10'])
      const read = /Read (\d+) test cases \((\d+) bytes, (\d+) request\(s\)\)/.exec(r.stdout)
      expect(read, r.stdout).not.toBeNull()
      const [cases, bytes, requests] = [Number(read?.[1]), Number(read?.[2]), Number(read?.[3])]
      // The same fields for every case, read whole, for comparison.
      const tree = encodeURIComponent(
        'suites[name,enclosingBlocks,enclosingBlockNames,cases[className,name,status,errorDetails,errorStackTrace]]'
      )
      const whole = await fetch(`${jenkins.url}/job/huge/${n}/testReport/api/json?tree=${tree}`, {
        headers: {
          authorization: `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}`
        }
      })
      const wholeBytes = (await whole.arrayBuffer()).byteLength
      expect(cases).toBeLessThan(100_000)
      expect(bytes).toBeLessThan(wholeBytes / 2)
      const pages = jenkins.requests.filter(
        q =>
          q.path === `/job/huge/${n}/testReport/api/json` &&
          q.user === 'admin' &&
          q.query !== `tree=${tree}`
      )
      expect(pages).toHaveLength(requests)
      expect(decodeURIComponent(pages[0]?.query ?? '')).toBe(
        'tree=suites[enclosingBlocks],childReports[child[url],result[suites[enclosingBlocks]]]'
      )
      for (const page of pages.slice(1))
        expect(decodeURIComponent(page.query)).toMatch(/\]\{\d+,\d+\},childReports/)
      // The budget is a hard cap on what the server handed over.
      expect(pages.reduce((sum, q) => sum + (q.bytes ?? 0), 0)).toBe(bytes)
      expect(bytes).toBeLessThanOrEqual(4 * 1024 * 1024)
      expect(r.summary).toContain('<h3>Failed tests</h3>')
      expect(r.summary).toContain(
        `0 of 5 failed tests shown. The report is too large to read whole: these come from its first ${cases} of 100000 tests.`
      )
    })
  })
})
