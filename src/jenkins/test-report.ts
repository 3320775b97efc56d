import { JenkinsError } from './errors.js'
import { fullName } from './job-path.js'
import { CaseNamer } from './junit-names.js'
import { bodyOf, tooDeepError } from './answers.js'
import { JsonTooDeep, parseJenkinsJson } from './json.js'
import type { Requester } from './requester.js'
import { htmlError, looksLikeHtml, type ErrorContext } from './responses.js'
import type {
  BuildRef,
  FailedTest,
  FailedTestsOptions,
  FailedTestsRead,
  ReportBudget
} from './types.js'

export const DEFAULT_BUDGET: ReportBudget = {
  want: 20,
  pageLimit: 1024 * 1024,
  pageTarget: 256 * 1024,
  totalBytes: 4 * 1024 * 1024,
  casesPerSuite: 1000
}

/** Suites asked for in the first page, before their size is known. */
const FIRST_PAGE_SUITES = 20
const MAX_PAGE_SUITES = 1000
/** errorDetails kept per failed test: enough for its first lines. */
const DETAILS_CHARS = 2000
/** errorStackTrace kept per failed test: the frames that name the test's file come early. */
const TRACE_CHARS = 8000

/** One suite of a TestResult (SuiteResult, exported inline with its cases). */
interface RawSuite {
  name?: unknown
  enclosingBlocks?: unknown
  enclosingBlockNames?: unknown
  cases?: unknown
}

interface RawCase {
  className?: unknown
  name?: unknown
  status?: unknown
  errorDetails?: unknown
  errorStackTrace?: unknown
}

/** The report JSON: a TestResult, or an aggregated action's child reports. */
interface RawReport {
  suites?: unknown
  childReports?: unknown
}

/**
 * One report being scanned: the TestResult of the build itself, or of one
 * child build of an aggregated report (AggregatedTestResultAction.ChildReport,
 * whose test pages live below the child build).
 */
interface ReportState {
  /** `<build>/<urlName>/`, where the case pages are. */
  base: string
  namer: CaseNamer
  /** Enclosing blocks seen; with more than one, names carry their stages. */
  blocks: Set<string>
  /** Whether the last page of this report was full (more may follow). */
  more: boolean
}

/** The answer was bigger than a page may be: asked again for fewer suites. */
class PageTooLarge extends Error {
  constructor(readonly bytes: number) {
    super(`page over ${bytes} bytes`)
  }
}

/**
 * Finds the failed tests of a build's test report (junit-plugin TestResult at
 * `<build>/<urlName>/api/json`) without reading the whole report: the JSON
 * has no filter, so pages of suites are read with a `tree` that asks only for
 * what is shown (class, name, status, errorDetails) and Jenkins' range syntax
 * bounding suites `{from,to}` and cases per suite `{0,N}`. It stops once
 * `want` failed tests were found, at the end of the report, or when the byte
 * budget is spent. Cases are failed when their status is FAILED, or
 * REGRESSION (what CaseResult.getStatus said before junit-plugin's UI
 * redesign, f0bf02d5).
 *
 * The same tree reads an aggregated report (AggregatedTestResultAction:
 * `childReports[child,result]`, each result a TestResult of a child build);
 * Stapler skips the names a shape does not have (jenkins-api.md 5.5).
 */
export async function readFailedTests(
  http: Requester,
  build: BuildRef,
  options: FailedTestsOptions = {}
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
  const own: ReportState = {
    base: reportUrl,
    namer: new CaseNamer(),
    blocks: new Set(),
    more: false
  }
  let from = 0
  let suites = FIRST_PAGE_SUITES
  let cases = budget.casesPerSuite
  // Stack traces point annotations at files; one too large to fit a page is left out.
  let traces = true
  for (;;) {
    const tree = reportTree(from, from + suites, cases, traces)
    let page: { data: RawReport; bytes: number }
    try {
      read.requests++
      page = await readPage(
        http,
        `${reportUrl}api/json?tree=${encodeURIComponent(tree)}`,
        context,
        budget.pageLimit
      )
    } catch (error) {
      if (!(error instanceof PageTooLarge)) throw error
      read.bytesRead += error.bytes
      if (suites > 1) suites = Math.ceil(suites / 2)
      else if (cases > 1) cases = Math.ceil(cases / 2)
      else if (traces) traces = false
      else throw error
      if (read.bytesRead >= budget.totalBytes) {
        read.complete = false
        read.budgetReached = true
        return read
      }
      continue
    }
    read.bytesRead += page.bytes
    // The build's own report, or one per child build of an aggregated one.
    const parts: Array<{ state: ReportState; suites: unknown }> = []
    if (Array.isArray(page.data.suites)) parts.push({ state: own, suites: page.data.suites })
    for (const child of Array.isArray(page.data.childReports) ? page.data.childReports : []) {
      const entry = child as { child?: { url?: unknown } | null; result?: RawReport | null } | null
      const url = entry?.child?.url
      if (typeof url !== 'string' || !entry?.result) continue
      let state = reports.get(url)
      if (!state) {
        const base = `${(options.rebase ?? (u => u))(url)}${encodeURIComponent(urlName)}/`
        state = { base, namer: new CaseNamer(), blocks: new Set(), more: false }
        reports.set(url, state)
      }
      parts.push({ state, suites: entry.result.suites })
    }
    let anyMore = false
    let suitesRead = 0
    for (const { state, suites: list } of parts) {
      const rawSuites = Array.isArray(list) ? (list as RawSuite[]) : []
      suitesRead += rawSuites.length
      state.more = rawSuites.length >= suites
      anyMore ||= state.more
      for (const suite of rawSuites) {
        if (scanSuite(suite, state, cases, read, budget.want)) read.complete = false
      }
    }
    if (read.failed.length >= budget.want) {
      read.complete &&= !anyMore
      return read
    }
    if (!anyMore) return read
    if (read.bytesRead >= budget.totalBytes) {
      read.complete = false
      read.budgetReached = true
      return read
    }
    from += suites
    // Size the next page from this one: suites vary from a few cases to thousands.
    const perSuite = page.bytes / Math.max(1, suitesRead)
    suites = Math.max(1, Math.min(MAX_PAGE_SUITES, Math.floor(budget.pageTarget / perSuite)))
  }
}

/**
 * `suites[…]{from,to}` and the same below `childReports[…]`: only what is
 * shown. A passed case's errorStackTrace is null: traces cost bytes only
 * for failed cases.
 */
export function reportTree(from: number, to: number, casesPerSuite: number, traces = true): string {
  const fields = `className,name,status,errorDetails${traces ? ',errorStackTrace' : ''}`
  const suites = `suites[name,enclosingBlocks,enclosingBlockNames,cases[${fields}]{0,${casesPerSuite}}]{${from},${to}}`
  return `${suites},childReports[child[url],result[${suites}]]`
}

/** Reads one suite's cases; true when some of its cases were beyond the page's case range. */
function scanSuite(
  suite: RawSuite,
  state: ReportState,
  casesPerSuite: number,
  read: FailedTestsRead,
  want: number
): boolean {
  const blocks = stringList(suite.enclosingBlocks)
  if (blocks[0] !== undefined) state.blocks.add(blocks[0])
  const blockNames = stringList(suite.enclosingBlockNames)
  const rawCases = Array.isArray(suite.cases) ? (suite.cases as RawCase[]) : []
  for (const raw of rawCases) {
    read.casesRead++
    const className = typeof raw?.className === 'string' ? raw.className : ''
    const caseName = typeof raw?.name === 'string' && raw.name !== '' ? raw.name : '(?)'
    // CaseResult.getDisplayName: the stages around the junit step lead the
    // name when the report holds tests of more than one block.
    const displayName =
      state.blocks.size > 1 && blockNames.length > 0
        ? `${[...blockNames].reverse().join(' / ')} / ${caseName}`
        : caseName
    const path = state.namer.path(className, displayName)
    const status = typeof raw?.status === 'string' ? raw.status : ''
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
  return rawCases.length >= casesPerSuite
}

/**
 * GET one page as JSON. A page over `limit` bytes is PageTooLarge: read as
 * `limit + 1` bytes (limits.ts keeps the start and drops the connection),
 * so that the caller can ask for a smaller one. The body is bounded like
 * every whole-body read (a broken or slow one is retried, answers.ts bodyOf).
 */
async function readPage(
  http: Requester,
  url: string,
  context: ErrorContext,
  limit: number
): Promise<{ data: RawReport; bytes: number }> {
  return http.read(
    'tests',
    url,
    context,
    async response => {
      const body = await bodyOf(response.text(limit + 1, 'cut'))
      const bytes = Buffer.byteLength(body)
      if (bytes > limit) throw new PageTooLarge(bytes)
      if (looksLikeHtml(response, body)) throw htmlError(context, response.status)
      let data: unknown
      try {
        data = parseJenkinsJson(body)
      } catch (error) {
        if (error instanceof JsonTooDeep) {
          throw tooDeepError(http.baseUrl, context, error, response.status)
        }
        throw new JenkinsError(
          'protocol',
          `Jenkins at ${http.baseUrl} answered ${context.what} with malformed JSON`,
          response.status
        )
      }
      if (typeof data !== 'object' || data === null) {
        throw new JenkinsError(
          'protocol',
          `Jenkins at ${http.baseUrl} answered ${context.what} without an object`
        )
      }
      return { data: data as RawReport, bytes }
    },
    http.deadline
  )
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []
}
