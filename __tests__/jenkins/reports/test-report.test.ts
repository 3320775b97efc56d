import nock from 'nock'
import { describe, expect, it, test } from 'vitest'
import {
  caseBaseName,
  casePath,
  reportTree,
  safe
} from '../../../src/jenkins/reports/test-report.js'
import { AUTH, BASE, ORIGIN, jenkinsError, makeClient, useNock, JENKINS_404 } from '../helpers.js'

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
    const taken = new Map<string, number>()
    expect(casePath(taken, 'com.example.FooTest', 'a b')).toBe('com.example/FooTest/a_b')
    expect(casePath(taken, 'com.example.FooTest', 'a-b')).toBe('com.example/FooTest/a_b_2')
    expect(casePath(taken, 'com.example.BarTest', 'a b')).toBe('com.example/BarTest/a_b')
    expect(casePath(taken, 'com.example.FooTest', 'a.b')).toBe('com.example/FooTest/a_b_3')
    expect(casePath(taken, 'NoPackage', 'x')).toBe('(root)/NoPackage/x')
    expect(casePath(taken, 'pkg.My Class', 'é')).toBe('pkg/My_Class/%C3%A9')
  })
})

const BLOCKS_TREE =
  'suites[enclosingBlocks],childReports[child[url],result[suites[enclosingBlocks]]]'

/** The first request: every suite's enclosing blocks. */
function serveBlocks(body: object = { suites: [] }): void {
  nock(ORIGIN).get(REPORT).query({ tree: BLOCKS_TREE }).reply(200, body)
}

/** The ranges of a page's tree: suites [from, to), cases [caseFrom, caseTo) of each. */
function rangesOf(uri: string): { from: number; to: number; caseFrom: number; caseTo: number } {
  const tree = new URL(uri, ORIGIN).searchParams.get('tree') ?? ''
  const m = /\]\{(\d+),(\d+)\}\]\{(\d+),(\d+)\},childReports/.exec(tree)
  if (!m) throw new Error(`no ranges in ${tree}`)
  const [caseFrom, caseTo, from, to] = m.slice(1).map(Number) as [number, number, number, number]
  return { from, to, caseFrom, caseTo }
}

/**
 * A report served as Jenkins would: `suites[i]` has `sizes[i]` cases named
 * `s<i>c<j>`, failed where `failed(i, j)`, each with `details` as errorDetails.
 */
function serveReport(
  sizes: number[],
  failed: (suite: number, index: number) => boolean,
  details = ''
): { pages: Array<ReturnType<typeof rangesOf>> } {
  const pages: Array<ReturnType<typeof rangesOf>> = []
  nock(ORIGIN)
    .persist()
    .get(REPORT)
    .query(true)
    .reply(uri => {
      if (new URL(uri, ORIGIN).searchParams.get('tree') === BLOCKS_TREE) {
        return [200, JSON.stringify({ suites: sizes.map(() => ({ enclosingBlocks: [] })) })]
      }
      const range = rangesOf(uri)
      pages.push(range)
      const suites = []
      for (let i = range.from; i < Math.min(range.to, sizes.length); i++) {
        const cases = []
        for (let j = range.caseFrom; j < Math.min(range.caseTo, sizes[i] ?? 0); j++) {
          cases.push({
            className: `p.S${i}`,
            errorDetails: details || null,
            name: `s${i}c${j}`,
            status: failed(i, j) ? 'FAILED' : 'PASSED'
          })
        }
        suites.push({ cases, enclosingBlockNames: [], enclosingBlocks: [], name: `S${i}` })
      }
      return [200, JSON.stringify({ _class: 'hudson.tasks.junit.TestResult', suites })]
    })
  return { pages }
}

/** Every case a page asked for, as "suite:case", to show none is asked twice. */
function casesAsked(pages: Array<ReturnType<typeof rangesOf>>, sizes: number[]): string[] {
  const asked: string[] = []
  for (const p of pages) {
    for (let i = p.from; i < Math.min(p.to, sizes.length); i++) {
      for (let j = p.caseFrom; j < Math.min(p.caseTo, sizes[i] ?? 0); j++) asked.push(`${i}:${j}`)
    }
  }
  return asked
}

describe('failedTests', () => {
  it('asks for suites and cases with ranges, names and links the failed ones', async () => {
    const { client } = makeClient()
    serveBlocks({ suites: [{ enclosingBlocks: [] }] })
    nock(ORIGIN)
      .get(REPORT)
      .query({ tree: reportTree({ from: 0, to: 1, caseFrom: 0, caseTo: 200 }) })
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
    // The next suites, as many as fit the page target at this suite's size.
    nock(ORIGIN)
      .get(REPORT)
      .query(q => /^suites\[.*\{0,1000\}\]\{1,\d+\},childReports/.test(String(q.tree)))
      .reply(200, { _class: 'hudson.tasks.junit.TestResult', suites: [] })
    const read = await client.failedTests(BUILD)
    expect(read).toMatchObject({ casesRead: 4, requests: 3, complete: true })
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

  it('starts small, sizes pages from what it read, and stops once enough were found', async () => {
    const { client } = makeClient()
    const sizes = Array.from({ length: 100 }, () => 1)
    const { pages } = serveReport(sizes, i => i % 10 === 9)
    const read = await client.failedTests(BUILD, { budget: { want: 3, pageTarget: 400 } })
    expect(read.failed.map(t => t.className)).toEqual(['p.S9', 'p.S19', 'p.S29'])
    expect(read.complete).toBe(false)
    expect(read.budgetReached).toBe(false)
    // First the first suite's first 200 cases; then as many suites as fit 400 bytes.
    expect(pages[0]).toEqual({ from: 0, to: 1, caseFrom: 0, caseTo: 200 })
    expect(pages[1]?.from).toBe(1)
    expect(pages[1]?.caseFrom).toBe(0)
    expect((pages[1]?.to ?? 0) - 1).toBeGreaterThan(1)
    expect((pages[1]?.to ?? 0) - 1).toBeLessThan(10)
    expect(read.requests).toBe(pages.length + 1)
    expect(new Set(casesAsked(pages, sizes)).size).toBe(casesAsked(pages, sizes).length)
  })

  it('a suite larger than a page is read in ranges of its cases, each case once', async () => {
    const { client } = makeClient()
    const sizes = [5000, 3, 4000]
    const { pages } = serveReport(sizes, (i, j) => i === 2 && j >= 3990)
    const read = await client.failedTests(BUILD, {
      budget: { want: 20, pageLimit: 40_000, pageTarget: 20_000, totalBytes: 10_000_000 }
    })
    expect(read.failed.map(t => t.name)).toEqual(
      Array.from({ length: 10 }, (_, k) => `s2c${3990 + k}`)
    )
    expect(read.complete).toBe(true)
    expect(read.casesRead).toBe(9003)
    const asked = casesAsked(pages, sizes)
    expect(asked).toHaveLength(9003)
    expect(new Set(asked).size).toBe(9003)
    for (const p of pages) expect(p.caseTo - p.caseFrom).toBeLessThanOrEqual(1000)
    expect(read.bytesRead).toBeGreaterThan(0)
  })

  it('the budget is a hard cap on the bytes read, and no case is asked for twice', async () => {
    const { client } = makeClient()
    const sizes = Array.from({ length: 300 }, () => 100)
    const { pages } = serveReport(sizes, i => i === 299, 'x'.repeat(300))
    const read = await client.failedTests(BUILD, {
      budget: { pageLimit: 100_000, pageTarget: 50_000, totalBytes: 600_000 }
    })
    expect(read.failed).toEqual([])
    expect(read.complete).toBe(false)
    expect(read.budgetReached).toBe(true)
    expect(read.bytesRead).toBeLessThanOrEqual(600_000)
    expect(read.bytesRead).toBeGreaterThan(400_000)
    expect(read.requests).toBe(pages.length + 1)
    const asked = casesAsked(pages, sizes)
    expect(new Set(asked).size).toBe(asked.length)
    expect(read.casesRead).toBe(asked.length)
  })

  it('a page larger than its limit is cut there and used up to its last whole case', async () => {
    const { client } = makeClient()
    // A server that answers every page with the whole suite, whatever the range.
    const suite = (from: number) => ({
      suites: [
        {
          cases: Array.from({ length: 60 - from }, (_, k) => ({
            className: 'a.B',
            errorDetails: 'e'.repeat(1000),
            name: `t${from + k}`,
            status: (from + k) % 20 === 19 ? 'FAILED' : 'PASSED'
          })),
          name: 'S0'
        }
      ]
    })
    const pages: Array<ReturnType<typeof rangesOf>> = []
    serveBlocks()
    nock(ORIGIN)
      .persist()
      .get(REPORT)
      .query(true)
      .reply(uri => {
        const range = rangesOf(uri)
        pages.push(range)
        return [200, JSON.stringify(range.from > 0 ? { suites: [] } : suite(range.caseFrom))]
      })
    const read = await client.failedTests(BUILD, {
      budget: { pageLimit: 10_000, pageTarget: 8000, totalBytes: 1_000_000 }
    })
    expect(read.failed.map(t => t.name)).toEqual(['t19', 't39', 't59'])
    // The first page held 9 whole cases (of about 1.1 KB): the next one starts at the 10th.
    expect(pages[0]).toEqual({ from: 0, to: 1, caseFrom: 0, caseTo: 200 })
    expect(pages[1]?.caseFrom).toBe(9)
    expect(read.casesRead).toBe(60)
    for (const p of pages) expect(p.from).toBeLessThanOrEqual(1)
    expect(read.bytesRead).toBeLessThan(60 * 1100 + pages.length * 1100)
  })

  it('a page of several suites cut among its cases goes on from the first case not read whole', async () => {
    const { client } = makeClient()
    const sizes = [3, 20, 20, 20]
    const { pages } = serveReport(
      sizes,
      (i, j) => j === 19 || (i === 0 && j === 2),
      'e'.repeat(1000)
    )
    const read = await client.failedTests(BUILD, {
      budget: { pageLimit: 10_000, pageTarget: 8000, totalBytes: 1_000_000 }
    })
    expect(read.failed.map(t => t.name)).toEqual(['s0c2', 's1c19', 's2c19', 's3c19'])
    // Every case parsed once: a cut page's last, partial case is asked for again, not counted twice.
    expect(read.casesRead).toBe(63)
    expect(read.complete).toBe(true)
    expect(pages[1]).toMatchObject({ from: 1, caseFrom: 0 })
    expect((pages[1]?.to ?? 0) - (pages[1]?.from ?? 0)).toBeGreaterThan(1)
    // The cut second page is followed by the rest of its last suite.
    expect(pages[2]?.from).toBe(1)
    expect(pages[2]?.caseFrom).toBeGreaterThan(0)
  })

  it('a single case larger than the page limit ends the read, said as the byte bound', async () => {
    const { client } = makeClient()
    serveBlocks()
    nock(ORIGIN)
      .get(REPORT)
      .query(true)
      .times(2)
      .reply(
        200,
        JSON.stringify({
          suites: [{ cases: [{ className: 'a.B', errorDetails: 'e'.repeat(50_000), name: 't' }] }]
        })
      )
    const read = await client.failedTests(BUILD, { budget: { pageLimit: 10_000 } })
    nock.abortPendingRequests()
    expect(read).toMatchObject({ failed: [], casesRead: 0, complete: false, budgetReached: true })
    // The blocks page, then the page cut at its limit twice: with the stack traces, and once without.
    expect(read.requests).toBe(3)
    expect(read.bytesRead).toBe('{"suites":[]}'.length + 2 * 10_000)
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
    // The first page is cut inside its one case: the same range once more without traces, and on.
    const pages = trees.filter(t => t.includes('cases['))
    expect(pages[0]).toBe(reportTree({ from: 0, to: 1, caseFrom: 0, caseTo: 200 }))
    expect(pages[1]).toBe(reportTree({ from: 0, to: 1, caseFrom: 0, caseTo: 200 }, false))
    expect(pages.slice(1).every(t => !t.includes('errorStackTrace'))).toBe(true)
    expect(read.failed).toEqual([expect.objectContaining({ name: 'huge', errorDetails: 'boom' })])
    expect(read.failed[0]?.errorStackTrace).toBeUndefined()

    serveBlocks()
    nock(ORIGIN)
      .get(REPORT)
      .query({ tree: reportTree({ from: 0, to: 1, caseFrom: 0, caseTo: 200 }) })
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
    nock(ORIGIN).get(REPORT).query(true).reply(200, { suites: [] })
    const small = await client.failedTests(BUILD)
    expect(small.failed[0]?.errorStackTrace?.startsWith('Error\n\tat a.B.t(B.java:1)')).toBe(true)
    expect(small.failed[0]?.errorStackTrace).toHaveLength(8000)
  })

  it('an aggregated report: each child build report, linked below the child build', async () => {
    const { client } = makeClient()
    serveBlocks({ childReports: [] })
    nock(ORIGIN)
      .get(REPORT)
      .query(q => String(q.tree).includes('{0,1},childReports'))
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
    nock(ORIGIN).get(REPORT).query(true).reply(200, { childReports: [] })
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

  it('tests of several Pipeline blocks are named with their stages, from the first suite on', async () => {
    const { client } = makeClient()
    // The blocks of every suite first: the first suite's failed test is
    // named with its stages, though the second block is in a later page.
    serveBlocks({ suites: [{ enclosingBlocks: ['7', '3'] }, { enclosingBlocks: ['9', '3'] }] })
    nock(ORIGIN)
      .get(REPORT)
      .query(q => String(q.tree).includes('{0,200}]{0,1},'))
      .reply(200, {
        suites: [
          {
            enclosingBlocks: ['7', '3'],
            enclosingBlockNames: ['unit', 'Test'],
            cases: [{ className: 'a.B', name: 'breaks', status: 'FAILED' }]
          }
        ]
      })
    nock(ORIGIN)
      .get(REPORT)
      .query(q => String(q.tree).includes(']{1,'))
      .reply(200, {
        suites: [
          {
            enclosingBlocks: ['9', '3'],
            enclosingBlockNames: ['integration', 'Test'],
            cases: [{ className: 'a.B', name: 'fails', status: 'FAILED' }]
          }
        ]
      })
    const read = await client.failedTests(BUILD)
    expect(read.failed[0]).toMatchObject({
      name: 'Test / unit / breaks',
      stage: 'Test / unit',
      url: `${BASE}/job/app/12/testReport/a/B/Test___unit___breaks/`
    })
    expect(read.failed[1]).toMatchObject({
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
