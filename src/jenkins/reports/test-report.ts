import { fullName } from '../model/job-path.js'
import { fields, list, text, texts } from '../model/counts.js'
import { JsonTooDeep, parseJenkinsJson } from '../transport/json.js'
import { parseJsonPrefix } from './json-prefix.js'
import type { Requester } from '../transport/requester.js'
import {
  bodyOf,
  htmlError,
  looksLikeHtml,
  oddAnswer,
  tooDeepError,
  type ErrorContext
} from '../transport/responses.js'
import type { BuildRef, FailedTest, FailedTestsRead } from '../model/types.js'

/** How much of a report is read to find its failed tests. */
const DEFAULT_BUDGET = {
  /** Failed tests wanted; reading stops once this many were found. */
  want: 20,
  /** Bytes one page may have; a bigger answer is cut off there and used up to its last whole case. */
  pageLimit: 1024 * 1024,
  /** Bytes a page aims at: the next page's ranges are sized from the pages read so far. */
  pageTarget: 256 * 1024,
  /** Bytes read in all, a hard cap: no page reads past it; the scan stops, and says so. */
  totalBytes: 4 * 1024 * 1024,
  /** Cases asked per suite in a page of several suites; a larger suite is read in ranges of its cases. */
  casesPerSuite: 1000
}

/** Cases of the first suite asked for in the first page, before their size is known. */
const FIRST_PAGE_CASES = 200
const MAX_PAGE_SUITES = 1000
/** Share of the room left that a page is sized for: the sizes it is sized from are averages. */
const HEADROOM = 0.8
/** errorDetails kept per failed test: enough for its first lines. */
const DETAILS_CHARS = 2000
/** errorStackTrace kept per failed test: the frames that name the test's file come early. */
const TRACE_CHARS = 8000

/**
 * One report being scanned: the TestResult of the build itself, or of one
 * child build of an aggregated report (AggregatedTestResultAction.ChildReport,
 * whose test pages live below the child build).
 */
interface ReportState {
  /** `<build>/<urlName>/`, where the case pages are. */
  base: string
  /** Cases named so far (casePath, below). */
  taken: Map<string, number>
  /** Enclosing blocks seen; with more than one, names carry their stages. */
  blocks: Set<string>
}

/** One page: suites `[from, to)`, and of each, cases `[caseFrom, caseTo)`. */
interface PageRange {
  from: number
  to: number
  caseFrom: number
  caseTo: number
}

/** A page as read: whole, or cut off at its byte limit with the start that arrived whole. */
interface Page {
  /** A TestResult, or an aggregated action's child reports. */
  data: Record<string, unknown>
  bytes: number
  /** Cut off at the limit: `openKeys` says where (json-prefix.ts). */
  cut?: { openKeys: string[] }
}

/**
 * Finds the failed tests of a build's test report (junit-plugin TestResult,
 * or an aggregated report's child reports) without reading the whole report:
 * pages of suites and of their cases, asked with a `tree` and Jenkins' range
 * syntax, sized from what was read so far, under a hard cap on the bytes
 * read; a page over its limit is used up to its last whole case. It stops at
 * `want` failed tests, the report's end, or the budget. Why, and how the
 * pages are sized: docs/performance.md, "How a test report is read".
 */
export async function readFailedTests(
  http: Requester,
  build: BuildRef,
  options: {
    /** The action's urlName; 'testReport' for TestResultAction and its aggregates. */
    urlName?: string
    /** Rebases a URL Jenkins wrote (a child build's) onto the configured base. */
    rebase?: (url: string) => string
    budget?: Partial<typeof DEFAULT_BUDGET>
  } = {}
): Promise<FailedTestsRead> {
  const budget = { ...DEFAULT_BUDGET, ...options.budget }
  const urlName = options.urlName ?? 'testReport'
  const name = fullName(build.job)
  const reportUrl = `${build.url}${encodeURIComponent(urlName)}/`
  const context = http.context(`the test report of build #${build.number} of '${name}'`, {
    notFound: `Build #${build.number} of '${name}' has no test report at ${reportUrl} (404)`
  })
  const read: FailedTestsRead = {
    failed: [],
    casesRead: 0,
    bytesRead: 0,
    requests: 0,
    complete: true,
    budgetReached: false
  }
  const reports = new Map<string, ReportState>()
  const own: ReportState = { base: reportUrl, taken: new Map(), blocks: new Set() }
  const stateOf = (url: string): ReportState => {
    const base = `${(options.rebase ?? (u => u))(url)}${encodeURIComponent(urlName)}/`
    const state = reports.get(url) ?? { base, taken: new Map(), blocks: new Set() }
    reports.set(url, state)
    return state
  }
  /** The budget is spent: what was read so far. */
  const stop = (): FailedTestsRead => {
    read.complete = false
    read.budgetReached = true
    return read
  }
  let range: PageRange = {
    from: 0,
    to: 1,
    caseFrom: 0,
    caseTo: Math.min(FIRST_PAGE_CASES, budget.casesPerSuite)
  }
  let suitesDone = 0
  // Stack traces point annotations at files; a case too large for a page with its trace is asked again without.
  let traces = true
  /** Bytes of the pages of cases, that pages are sized from. */
  let casesBytes = 0

  // CaseResult.getDisplayName leads with the stages when the report's suites
  // come from more than one block (TestResult.hasMultipleBlocks): known
  // before the first name is made, from every suite's enclosingBlocks
  // (about 30 bytes a suite). Cut off, it tells what it can.
  const blocksPage = await pageOf(BLOCKS_TREE, Math.min(budget.pageTarget, budget.totalBytes))
  for (const { state, suites } of reportsOf(blocksPage.data)) addBlocks(state, suites)

  for (;;) {
    const room = budget.totalBytes - read.bytesRead
    const limit = Math.min(budget.pageLimit, room)
    // Little left, or not even one more case fits: stop before reading, not in the middle.
    if (
      room < Math.min(budget.pageTarget, budget.pageLimit, budget.totalBytes) / 8 ||
      (read.casesRead > 0 && casesBytes / read.casesRead > limit)
    ) {
      return stop()
    }
    const page = await pageOf(reportTree(range, traces), limit)
    casesBytes += page.bytes

    const parts = reportsOf(page.data)
    const children = list(page.data.childReports)

    // Where the next page starts: the suite after the last one read, or
    // the rest of the last one when its cases filled the page's range.
    const window = range.caseTo - range.caseFrom
    const widest = Math.max(0, ...parts.map(p => p.suites.length))
    let lastGoesOn = false
    for (const { state, suites } of parts) {
      suites.forEach((suite, i) => {
        const cases = scanSuite(suite, state, read, budget.want)
        const full = cases >= window
        if (i === widest - 1) lastGoesOn ||= full
        else if (full) read.complete = false
      })
    }
    if (read.failed.length >= budget.want) {
      read.complete &&= !page.cut && !lastGoesOn && widest < range.to - range.from
      return read
    }
    // What arrived of a page cut at its limit is used; an aggregated
    // report's children are cut at different places, so it ends there.
    if (page.cut && widest === 0 && children.length === 0 && traces) {
      traces = false
      continue
    }
    if (page.cut && (children.length > 0 || widest === 0)) return stop()
    if (lastGoesOn || page.cut?.openKeys.join('/') === 'suites/cases') {
      // The rest of the last suite: from its first case not read whole.
      const lastCases = Math.max(
        0,
        ...parts.map(p => list(fields(p.suites[widest - 1]).cases).length)
      )
      suitesDone += widest - 1
      range = nextRange(range.from + widest - 1, lastCases + (widest === 1 ? range.caseFrom : 0))
      continue
    }
    suitesDone += widest
    // Fewer suites than asked for, and not cut: the report ends here.
    if (!page.cut && widest < range.to - range.from) return read
    range = nextRange(range.from + widest, 0)
  }

  /** One page of the report, with `tree`, at most `limit` bytes, counted in what was read. */
  async function pageOf(tree: string, limit: number): Promise<Page> {
    read.requests++
    const url = `${reportUrl}api/json?tree=${encodeURIComponent(tree)}`
    const page = await readPage(http, url, context, limit)
    read.bytesRead += page.bytes
    return page
  }

  /** The build's own report, or one per child build of an aggregated one, with its suites. */
  function reportsOf(data: Page['data']): Array<{ state: ReportState; suites: unknown[] }> {
    const parts = Array.isArray(data.suites) ? [{ state: own, suites: data.suites }] : []
    for (const child of list(data.childReports)) {
      const entry = fields(child)
      const url = fields(entry.child).url
      if (typeof url !== 'string' || !entry.result) continue
      parts.push({ state: stateOf(url), suites: list(fields(entry.result).suites) })
    }
    return parts
  }

  /** The next page from suite `from` (case `caseFrom` of it), sized from what was read so far. */
  function nextRange(from: number, caseFrom: number): PageRange {
    const room = Math.min(budget.pageLimit, budget.totalBytes - read.bytesRead) * HEADROOM
    const aim = Math.min(budget.pageTarget, room)
    const perSuite = suitesDone > 0 ? casesBytes / suitesDone : Infinity
    if (caseFrom === 0 && perSuite <= aim) {
      const suites = Math.max(1, Math.min(MAX_PAGE_SUITES, Math.floor(aim / perSuite)))
      return { from, to: from + suites, caseFrom: 0, caseTo: budget.casesPerSuite }
    }
    // One suite, in ranges of its cases.
    const perCase = casesBytes / Math.max(1, read.casesRead)
    const cases = Math.max(1, Math.min(budget.casesPerSuite, Math.floor(aim / perCase)))
    return { from, to: from + 1, caseFrom, caseTo: caseFrom + cases }
  }
}

/** Every suite's enclosing blocks, of the report and of each child report. */
const BLOCKS_TREE =
  'suites[enclosingBlocks],childReports[child[url],result[suites[enclosingBlocks]]]'

/** Adds the first enclosing block of each suite (the one TestResult.hasMultipleBlocks compares). */
function addBlocks(state: ReportState, suites: unknown): void {
  for (const suite of list(suites)) {
    const first = texts(fields(suite).enclosingBlocks)[0]
    if (first !== undefined) state.blocks.add(first)
  }
}

/**
 * `suites[…]{from,to}` and the same below `childReports[…]`: only what is
 * shown. A passed case's errorStackTrace is null: traces cost bytes only
 * for failed cases.
 * @internal
 */
export function reportTree({ from, to, caseFrom, caseTo }: PageRange, traces = true): string {
  const fields = `className,name,status,errorDetails${traces ? ',errorStackTrace' : ''}`
  const suites = `suites[name,enclosingBlocks,enclosingBlockNames,cases[${fields}]{${caseFrom},${caseTo}}]{${from},${to}}`
  return `${suites},childReports[child[url],result[${suites}]]`
}

/** Reads one suite's cases (those of the page's range); returns how many there were. */
function scanSuite(
  suite: unknown,
  state: ReportState,
  read: FailedTestsRead,
  want: number
): number {
  addBlocks(state, [suite])
  const blockNames = texts(fields(suite).enclosingBlockNames)
  const rawCases = list(fields(suite).cases)
  for (const raw of rawCases.map(fields)) {
    read.casesRead++
    const className = text(raw.className) ?? ''
    const caseName = text(raw.name) || '(?)'
    // CaseResult.getDisplayName: the stages around the junit step lead the
    // name when the report holds tests of more than one block.
    const displayName =
      state.blocks.size > 1 && blockNames.length > 0
        ? `${[...blockNames].reverse().join(' / ')} / ${caseName}`
        : caseName
    const path = casePath(state.taken, className, displayName)
    const status = text(raw.status) ?? ''
    if ((status !== 'FAILED' && status !== 'REGRESSION') || read.failed.length >= want) continue
    const test: FailedTest = {
      className,
      name: displayName,
      status,
      url: `${state.base}${path}/`
    }
    if (typeof raw.errorDetails === 'string') {
      test.errorDetails = raw.errorDetails.slice(0, DETAILS_CHARS)
    }
    if (typeof raw.errorStackTrace === 'string') {
      test.errorStackTrace = raw.errorStackTrace.slice(0, TRACE_CHARS)
    }
    if (blockNames.length > 0) test.stage = [...blockNames].reverse().join(' / ')
    read.failed.push(test)
  }
  return rawCases.length
}

/**
 * GET one page as JSON, reading at most `limit` bytes (limits.ts keeps the
 * start and drops the connection). A body cut off there is used up to its
 * last whole array element (json-prefix.ts): those bytes are spent, and are
 * not read again. The body is bounded like every whole-body read (a broken
 * or slow one is retried, responses.ts bodyOf).
 */
async function readPage(
  http: Requester,
  url: string,
  context: ErrorContext,
  limit: number
): Promise<Page> {
  return http.read('tests', url, context, async response => {
    const body = await bodyOf(response.text(limit, 'cut'))
    const bytes = Buffer.byteLength(body)
    if (looksLikeHtml(response, body)) throw htmlError(context, response.status)
    let data: unknown
    let cut: Page['cut']
    try {
      data = parseJenkinsJson(body)
    } catch (error) {
      if (error instanceof JsonTooDeep) throw tooDeepError(context, error, response.status)
      // A character split at the cut decodes to U+FFFD: 3 bytes for 1 to 3.
      if (bytes < limit - 3) {
        throw oddAnswer(http.baseUrl, `${context.what} with malformed JSON`, response.status)
      }
      // Not one whole element (one test larger than the page): nothing to use.
      const prefix = parseJsonPrefix(body)
      data = prefix?.value ?? {}
      cut = { openKeys: prefix?.openKeys ?? [] }
    }
    if (typeof data !== 'object' || data === null) {
      throw oddAnswer(http.baseUrl, `${context.what} without an object`)
    }
    return { data: fields(data), bytes, ...(cut ? { cut } : {}) }
  })
}

/**
 * How the JUnit plugin names a test's page (`<build>/<action>/<package>/
 * <class>/<case>/`), so that a failed test can be linked without asking
 * Jenkins for its URL (the report JSON has none). Each level's safe name,
 * from jenkinsci/junit-plugin: docs/internals.md, "How the JUnit plugin names a test's page".
 */

/**
 * TestObject.safe: "(empty)" for an empty name; otherwise each character that
 * may not stand literally in a URL path segment becomes '_': controls,
 * space, DEL and `"#%/:<>?[\]^`{|}` (junit-plugin 1422+, PR #1251). Earlier
 * versions replaced only `/\:?#%<>`, so a name with a space or a bracket
 * links to a page those versions name differently.
 * @internal
 */
export function safe(name: string): string {
  if (name === '') return '(empty)'
  // eslint-disable-next-line no-control-regex
  return name.replace(/[\u0000-\u0020\u007f"#%/:<>?[\\\]^`{|}]/g, '_')
}

/**
 * Character.isJavaIdentifierPart for one UTF-16 unit: letters, digits,
 * connecting punctuation (`_`), currency symbols (`$`), numeric letters,
 * combining marks, and the "ignorable" controls and format characters. A
 * surrogate half is none of these, so Java replaces an emoji with two '_',
 * and so does this (it tests units, not code points).
 */
const JAVA_IDENTIFIER_PART =
  // eslint-disable-next-line no-control-regex
  /^[\p{L}\p{Nl}\p{Nd}\p{Mn}\p{Mc}\p{Pc}\p{Sc}\p{Cf}\u0000-\u0008\u000e-\u001b\u007f-\u009f]$/u

/**
 * CaseResult.getSafeName before uniquifying.
 * @internal
 */
export function caseBaseName(displayName: string): string {
  // Without the u flag, each match is one UTF-16 unit.
  return displayName.replace(/[\s\S]/g, unit => (JAVA_IDENTIFIER_PART.test(unit) ? unit : '_'))
}

/**
 * The URL path of a case below the report, `<package>/<class>/<case>`, each
 * segment encoded. One report's cases are named in the order the plugin
 * meets them (suites in order, their cases in order: TestResult.tally adds
 * them to their class in that order), uniquified within each class: `taken`
 * counts the cases seen by `<package>/<class>/<case>` (no part holds a '/':
 * safe and caseBaseName replace it).
 * @internal
 */
export function casePath(taken: Map<string, number>, className: string, displayName: string) {
  // CaseResult.getPackageName (up to the last '.', or "(root)") and getSimpleName.
  const dot = className.lastIndexOf('.')
  const pkg = safe(dot < 0 ? '(root)' : className.slice(0, dot))
  const cls = safe(className.slice(dot + 1))
  const base = caseBaseName(displayName)
  const seen = (taken.get(`${pkg}/${cls}/${base}`) ?? 0) + 1
  taken.set(`${pkg}/${cls}/${base}`, seen)
  return [pkg, cls, seen === 1 ? base : `${base}_${seen}`].map(segment).join('/')
}

/** One path segment, percent-encoded; a lone surrogate (a broken name) cannot be, so it becomes U+FFFD. */
function segment(name: string): string {
  return encodeURIComponent(name.replace(/\p{Cs}/gu, '\uFFFD'))
}
