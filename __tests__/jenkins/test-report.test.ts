import nock from 'nock'
import { describe, expect, it, test } from 'vitest'
import { CaseNamer, caseBaseName, safe } from '../../src/jenkins/junit-names.js'
import { reportTree } from '../../src/jenkins/test-report.js'
import { AUTH, BASE, ORIGIN, jenkinsError, makeClient, useNock, JENKINS_404 } from './helpers.js'

useNock()

const BUILD = { job: ['app'], number: 12, url: `${BASE}/job/app/12/` }
const REPORT = '/jenkins/job/app/12/testReport/api/json'

describe('JUnit plugin names (TestObject.safe, CaseResult.getSafeName, uniquifyName)', () => {
  test.each([
    ['', '(empty)'],
    ['com.example.FooTest', 'com.example.FooTest'],
    ['a/b\\c:d?e#f%g<h>i', 'a_b_c_d_e_f_g_h_i'],
    ['with space', 'with_space'],
    ['br[ack]{et}|^`"', 'br_ack__et_____'],
    ['tab\there', 'tab_here'],
    ['ünïcödé', 'ünïcödé'],
    ["it's-fine!(ok)*~", "it's-fine!(ok)*~"]
  ])('safe(%j) = %j', (name, expected) => {
    expect(safe(name)).toBe(expected)
  })

  test.each([
    ['testAdd', 'testAdd'],
    ['test add(1, 2) [0]', 'test_add_1__2___0_'],
    ['should return 42 €', 'should_return_42_€'],
    ['naïve café_$', 'naïve_café_$'],
    ['emoji 🎉', 'emoji___'],
    ['a.b-c', 'a_b_c']
  ])('case base name of %j is %j', (name, expected) => {
    expect(caseBaseName(name)).toBe(expected)
  })

  test('cases whose safe names collide within one class get _2, _3 in report order', () => {
    const namer = new CaseNamer()
    expect(namer.path('com.example.FooTest', 'a b')).toBe('com.example/FooTest/a_b')
    expect(namer.path('com.example.FooTest', 'a-b')).toBe('com.example/FooTest/a_b_2')
    expect(namer.path('com.example.BarTest', 'a b')).toBe('com.example/BarTest/a_b')
    expect(namer.path('com.example.FooTest', 'a.b')).toBe('com.example/FooTest/a_b_3')
    expect(namer.path('NoPackage', 'x')).toBe('(root)/NoPackage/x')
    expect(namer.path('pkg.My Class', 'é')).toBe('pkg/My_Class/%C3%A9')
  })
})

describe('failedTests', () => {
  it('asks for suites and cases with ranges, names and links the failed ones', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get(REPORT)
      .query({ tree: reportTree(0, 20, 1000) })
      .matchHeader('authorization', AUTH)
      .reply(200, {
        _class: 'hudson.tasks.junit.TestResult',
        suites: [
          {
            name: 'com.example.CalcTest',
            enclosingBlocks: [],
            enclosingBlockNames: [],
            cases: [
              {
                className: 'com.example.CalcTest',
                name: 'adds',
                status: 'PASSED',
                errorDetails: null
              },
              {
                className: 'com.example.CalcTest',
                name: 'divides by zero',
                status: 'FAILED',
                errorDetails: 'expected: <1> but was: <2>\n\tat line 3'
              },
              { className: 'com.example.CalcTest', name: 'skips', status: 'SKIPPED' },
              { className: 'com.example.CalcTest', name: 'divides-by zero', status: 'REGRESSION' }
            ]
          }
        ]
      })
    const read = await client.failedTests(BUILD)
    expect(read).toMatchObject({ casesRead: 4, requests: 1, complete: true })
    expect(read.failed).toEqual([
      {
        className: 'com.example.CalcTest',
        name: 'divides by zero',
        status: 'FAILED',
        errorDetails: 'expected: <1> but was: <2>\n\tat line 3',
        url: `${BASE}/job/app/12/testReport/com.example/CalcTest/divides_by_zero/`
      },
      {
        className: 'com.example.CalcTest',
        name: 'divides-by zero',
        status: 'REGRESSION',
        url: `${BASE}/job/app/12/testReport/com.example/CalcTest/divides_by_zero_2/`
      }
    ])
  })

  it('pages through suites, sizing pages from the last one, and stops once enough were found', async () => {
    const { client } = makeClient()
    const suite = (i: number, failed: boolean) => ({
      name: `S${i}`,
      cases: [{ className: `p.S${i}`, name: 't', status: failed ? 'FAILED' : 'PASSED' }]
    })
    const trees: string[] = []
    nock(ORIGIN)
      .get(REPORT)
      .query(q => {
        trees.push(String(q.tree))
        return true
      })
      .times(3)
      .reply(uri => {
        const tree = new URL(uri, ORIGIN).searchParams.get('tree') ?? ''
        const [from, to] = /\]\{(\d+),(\d+)\},childReports/.exec(tree)!.slice(1).map(Number) as [
          number,
          number
        ]
        const suites = []
        for (let i = from; i < Math.min(to, 100); i++) suites.push(suite(i, i % 10 === 9))
        return [200, { suites }]
      })
    const read = await client.failedTests(BUILD, {
      budget: { want: 3, pageTarget: 400 }
    })
    expect(read.failed.map(t => t.className)).toEqual(['p.S9', 'p.S19', 'p.S29'])
    expect(read.complete).toBe(false)
    expect(read.budgetReached).toBe(false)
    // The first page asks for 20 suites; the next ones for as many as fit 400 bytes.
    expect(trees[0]).toContain(']{0,20},childReports')
    expect(trees[1]).toMatch(/\]\{20,(\d+)\},childReports/)
    expect(Number(/\]\{20,(\d+)\}/.exec(trees[1] ?? '')?.[1])).toBeLessThan(40)
    expect(read.requests).toBe(trees.length)
  })

  it('a page over the limit is asked again with fewer suites; the budget bounds the bytes read', async () => {
    const { client } = makeClient()
    const big = 'x'.repeat(3000)
    let requests = 0
    nock(ORIGIN)
      .get(REPORT)
      .query(true)
      .times(20)
      .reply(uri => {
        requests++
        const tree = new URL(uri, ORIGIN).searchParams.get('tree') ?? ''
        const [from, to] = /\]\{(\d+),(\d+)\},childReports/.exec(tree)!.slice(1).map(Number) as [
          number,
          number
        ]
        const suites = []
        for (let i = from; i < to; i++) {
          suites.push({
            cases: [{ className: 'a.B', name: `t${i}`, status: 'PASSED', errorDetails: big }]
          })
        }
        return [200, { suites }]
      })
    const read = await client.failedTests(BUILD, {
      budget: { pageLimit: 10_000, pageTarget: 8000, totalBytes: 30_000 }
    })
    nock.abortPendingRequests()
    nock.cleanAll()
    expect(read.failed).toEqual([])
    expect(read.complete).toBe(false)
    expect(read.budgetReached).toBe(true)
    // Past the budget nothing more is asked; a page is cut off within one
    // socket chunk (at most 64 KiB) of its limit.
    expect(read.bytesRead).toBeLessThan(30_000 + 10_000 + 65_536)
    expect(requests).toBeLessThan(10)
    expect(read.requests).toBe(requests)
  })

  it('a page over the limit is asked again for half the suites', async () => {
    const { client } = makeClient()
    const ranges: string[] = []
    nock(ORIGIN)
      .get(REPORT)
      .query(true)
      .times(5)
      .reply(uri => {
        const tree = new URL(uri, ORIGIN).searchParams.get('tree') ?? ''
        const match = /\]\{(\d+),(\d+)\},childReports/.exec(tree)!
        ranges.push(`${match[1]},${match[2]}`)
        const [from, to] = [Number(match[1]), Math.min(Number(match[2]), 4)]
        const suites = []
        for (let i = from; i < to; i++) {
          suites.push({
            cases: [
              { className: 'a.B', name: `t${i}`, status: 'FAILED', errorDetails: 'e'.repeat(3000) }
            ]
          })
        }
        return [200, { suites }]
      })
    const read = await client.failedTests(BUILD, { budget: { pageLimit: 10_000 } })
    // Then from where it got to, sized for the page target (about 84 suites of 3 KB).
    expect(ranges.slice(0, 4)).toEqual(['0,20', '0,10', '0,5', '0,3'])
    expect(ranges[4]).toMatch(/^3,\d{2}$/)
    expect(read.failed.map(t => t.name)).toEqual(['t0', 't1', 't2', 't3'])
    expect(read.complete).toBe(true)
  })

  it('keeps the stack trace, and leaves it out when one case with it cannot fit a page', async () => {
    const { client } = makeClient()
    const trees: string[] = []
    nock(ORIGIN)
      .get(REPORT)
      .query(true)
      .times(20)
      .reply(uri => {
        const tree = new URL(uri, ORIGIN).searchParams.get('tree') ?? ''
        trees.push(tree)
        const traces = tree.includes('errorStackTrace')
        const failed = (name: string, trace: string) => ({
          className: 'a.B',
          name,
          status: 'FAILED',
          errorDetails: 'boom',
          ...(traces ? { errorStackTrace: trace } : {})
        })
        const from = Number(/\]\{(\d+),\d+\},childReports/.exec(tree)?.[1])
        const suites = from === 0 ? [{ cases: [failed('huge', 'x'.repeat(20_000))] }] : []
        return [200, { suites }]
      })
    const read = await client.failedTests(BUILD, { budget: { pageLimit: 10_000 } })
    nock.cleanAll()
    // Halved to one suite and one case, then asked once more without traces, and on.
    const first = trees.findIndex(t => !t.includes('errorStackTrace'))
    expect(first).toBeGreaterThan(0)
    expect(trees[first - 1]).toBe(reportTree(0, 1, 1))
    expect(trees[first]).toBe(reportTree(0, 1, 1, false))
    expect(trees.slice(first).every(t => !t.includes('errorStackTrace'))).toBe(true)
    expect(read.failed).toEqual([expect.objectContaining({ name: 'huge', errorDetails: 'boom' })])
    expect(read.failed[0]?.errorStackTrace).toBeUndefined()

    nock(ORIGIN)
      .get(REPORT)
      .query({ tree: reportTree(0, 20, 1000) })
      .reply(200, {
        suites: [
          {
            cases: [
              {
                className: 'a.B',
                name: 't',
                status: 'FAILED',
                errorStackTrace: `Error\n${'\tat a.B.t(B.java:1)\n'.repeat(1000)}`
              }
            ]
          }
        ]
      })
    const small = await client.failedTests(BUILD)
    expect(small.failed[0]?.errorStackTrace?.startsWith('Error\n\tat a.B.t(B.java:1)')).toBe(true)
    expect(small.failed[0]?.errorStackTrace).toHaveLength(8000)
  })

  it('an aggregated report: each child build report, linked below the child build', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get(REPORT)
      .query(true)
      .reply(200, {
        _class: 'hudson.matrix.MatrixTestResult',
        childReports: [
          {
            child: {
              _class: 'hudson.matrix.MatrixRun',
              url: 'http://jenkins.internal/job/app/OS=linux/12/'
            },
            result: {
              suites: [
                { cases: [{ className: 'x.Y', name: 'z', status: 'FAILED', errorDetails: 'boom' }] }
              ]
            }
          },
          { child: { url: 'http://jenkins.internal/job/app/OS=mac/12/' }, result: null }
        ]
      })
    const read = await client.failedTests(BUILD, {
      rebase: url => url.replace('http://jenkins.internal', BASE)
    })
    expect(read.failed).toEqual([
      {
        className: 'x.Y',
        name: 'z',
        status: 'FAILED',
        errorDetails: 'boom',
        url: `${BASE}/job/app/OS=linux/12/testReport/x/Y/z/`
      }
    ])
  })

  it('tests of several Pipeline blocks are named with their stages, as Jenkins shows them', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get(REPORT)
      .query(true)
      .reply(200, {
        suites: [
          {
            enclosingBlocks: ['7', '3'],
            enclosingBlockNames: ['unit', 'Test'],
            cases: [{ className: 'a.B', name: 'ok', status: 'PASSED' }]
          },
          {
            enclosingBlocks: ['9', '3'],
            enclosingBlockNames: ['integration', 'Test'],
            cases: [{ className: 'a.B', name: 'fails', status: 'FAILED' }]
          }
        ]
      })
    const read = await client.failedTests(BUILD)
    expect(read.failed[0]).toMatchObject({
      name: 'Test / integration / fails',
      stage: 'Test / integration',
      url: `${BASE}/job/app/12/testReport/a/B/Test___integration___fails/`
    })
  })

  it('404 (no report) and an HTML login page are errors the caller can tell apart', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get(REPORT)
      .query(true)
      .reply(...JENKINS_404)
    await jenkinsError(client.failedTests(BUILD), 'not-found')
    nock(ORIGIN)
      .get(REPORT)
      .query(true)
      .reply(200, '<html><body>login</body></html>', { 'Content-Type': 'text/html' })
    await jenkinsError(client.failedTests(BUILD), 'html')
  })
})
