/**
 * The JUnit plugin's test report as the test server keeps it: a
 * TestResult of SuiteResults of CaseResults, its JSON, and the lookup of a
 * case's page. Written from jenkinsci/junit-plugin (1424.x):
 * hudson/tasks/junit/{TestResult,SuiteResult,CaseResult,ClassResult,PackageResult}.java
 * and hudson/tasks/test/TestObject.java.
 */
import type { TestCaseSpec, TestReportSpec, TestSuiteSpec } from '../types.js'

interface TestCounts {
  total: number
  failed: number
  skipped: number
}

/** A report with its counts (TestResultAction's failCount/skipCount/totalCount) and its suites. */
export interface TestReport {
  counts: TestCounts
  suites: TestSuiteSpec[]
}

const FAILED = new Set(['FAILED', 'REGRESSION'])

/** The suites a spec describes: given, or generated from counts. */
export function buildReport(spec: TestReportSpec): TestReport {
  const suites = 'suites' in spec ? spec.suites : generatedSuites(spec)
  let total = 0
  let failed = 0
  let skipped = 0
  for (const suite of suites) {
    for (const c of suite.cases) {
      total++
      if (FAILED.has(c.status ?? 'PASSED')) failed++
      else if (c.status === 'SKIPPED') skipped++
    }
  }
  return { counts: { total, failed, skipped, ...spec.claims }, suites }
}

/**
 * `total` cases in suites of `casesPerSuite` (default 100), `failed` of them
 * failed and `skipped` skipped: spread evenly, at the start, or all at the
 * end of the report (`failuresAt: 'end'`, where a client that reads only the
 * start does not find them).
 */
function generatedSuites(
  spec: Exclude<TestReportSpec, { suites: TestSuiteSpec[] }>
): TestSuiteSpec[] {
  const perSuite = Math.max(1, spec.casesPerSuite ?? 100)
  const failedAt = new Set<number>()
  const skippedAt = new Set<number>()
  const used = (i: number): boolean => failedAt.has(i) || skippedAt.has(i)
  const place = (count: number, into: Set<number>): void => {
    for (let i = 0; i < Math.min(count, spec.total); i++) {
      let index =
        spec.failuresAt === 'end'
          ? spec.total - 1 - i
          : spec.failuresAt === 'start'
            ? i
            : Math.floor(((i + 0.5) * spec.total) / count) % spec.total
      while (used(index)) index = (index + spec.total - 1) % spec.total
      into.add(index)
    }
  }
  place(spec.failed, failedAt)
  place(spec.skipped, skippedAt)
  const suites: TestSuiteSpec[] = []
  for (let start = 0; start < spec.total; start += perSuite) {
    const suiteIndex = start / perSuite
    const className = `com.example.module${String(suiteIndex % 50).padStart(2, '0')}.Generated${String(suiteIndex).padStart(5, '0')}Test`
    const cases: TestCaseSpec[] = []
    for (let i = start; i < Math.min(spec.total, start + perSuite); i++) {
      const c: TestCaseSpec = {
        className,
        name: `case${String(i).padStart(6, '0')}`.padEnd(spec.caseNameChars ?? 0, '-long'),
        duration: 0.001
      }
      if (failedAt.has(i)) {
        c.status = 'FAILED'
        c.errorDetails = `expected: <${i}> but was: <${i + 1}>`
        c.errorStackTrace = `org.opentest4j.AssertionFailedError: expected: <${i}> but was: <${i + 1}>\n\tat ${className}.case${i}(${className.slice(className.lastIndexOf('.') + 1)}.java:${i % 400})`
      } else if (skippedAt.has(i)) {
        c.status = 'SKIPPED'
      }
      cases.push(c)
    }
    suites.push({ name: className, cases })
  }
  return suites
}

type Json = Record<string, unknown>

/**
 * TestResult as Stapler exports it (all of it is visibility 9 or inline, so
 * depth changes nothing). Suites and cases carry no `_class`: their runtime
 * type is the declared one (Stapler writes it only when they differ).
 */
export function reportJson(report: TestReport): Json {
  let duration = 0
  const suites = report.suites.map(suite => {
    let suiteDuration = 0
    const cases = suite.cases.map(c => {
      suiteDuration += c.duration ?? 0
      return caseJson(c)
    })
    duration += suiteDuration
    return {
      cases,
      duration: suiteDuration,
      enclosingBlockNames: suite.enclosingBlockNames ?? [],
      enclosingBlocks: suite.enclosingBlocks ?? [],
      id: null,
      name: suite.name,
      nodeId: suite.nodeId ?? null,
      properties: {},
      stderr: null,
      stdout: null,
      timestamp: null
    }
  })
  const { total, failed, skipped } = report.counts
  return {
    _class: 'hudson.tasks.junit.TestResult',
    testActions: [],
    duration,
    empty: total === 0,
    failCount: failed,
    passCount: total - failed - skipped,
    skipCount: skipped,
    suites
  }
}

function caseJson(c: TestCaseSpec): Json {
  const status = c.status ?? 'PASSED'
  return {
    testActions: [],
    age: FAILED.has(status) ? 1 : 0,
    className: c.className,
    duration: c.duration ?? 0,
    errorDetails: c.errorDetails ?? null,
    errorStackTrace: c.errorStackTrace ?? null,
    failedSince: FAILED.has(status) ? 1 : 0,
    name: c.name,
    properties: {},
    skipped: status === 'SKIPPED',
    skippedMessage: null,
    status,
    stderr: null,
    stdout: null
  }
}

// ---- page lookup ----

/** TestObject.safe (junit 1422+): "(empty)", else URL-illegal ASCII, space and controls to '_'. */
function safe(s: string): string {
  if (s.length === 0) return '(empty)'
  let out = ''
  for (const ch of s) {
    const code = ch.charCodeAt(0)
    out += code <= 0x20 || code === 0x7f || '"#%/:<>?[\\]^`{|}'.includes(ch) ? '_' : ch
  }
  return out
}

/** Character.isJavaIdentifierPart, per UTF-16 unit. */
function isJavaIdentifierPart(unit: string): boolean {
  // eslint-disable-next-line no-control-regex
  return /[\p{L}\p{Nl}\p{Nd}\p{Mn}\p{Mc}\p{Pc}\p{Sc}\p{Cf}\u0000-\u0008\u000e-\u001b\u007f-\u009f]/u.test(
    unit
  )
}

/** CaseResult.getDisplayName: the stages around the junit step lead when the report spans several blocks. */
function displayName(c: TestCaseSpec, suite: TestSuiteSpec, multipleBlocks: boolean): string {
  const name = c.name === '' ? '(?)' : c.name
  const blocks = suite.enclosingBlockNames ?? []
  return multipleBlocks && blocks.length > 0
    ? `${[...blocks].reverse().join(' / ')} / ${name}`
    : name
}

/**
 * The case, class or package a `testReport/<package>/<class>/<case>` path
 * names (TestResult.getDynamic → byPackage(safe(pkg)); PackageResult.getDynamic
 * → classes keyed by safe(simpleName); ClassResult.getCaseResult matching
 * CaseResult.getSafeName, uniquified among the class's cases in order).
 */
export function findInReport(
  report: TestReport,
  path: string[]
): { kind: 'package' | 'class' | 'case'; name: string } | undefined {
  const [pkg, cls, cse] = path
  if (pkg === undefined) return undefined
  const blocks = new Set(
    report.suites.map(s => s.enclosingBlocks?.[0]).filter((b): b is string => b !== undefined)
  )
  const multipleBlocks = blocks.size > 1
  let foundPackage = false
  let foundClass = false
  const taken = new Map<string, number>()
  for (const suite of report.suites) {
    for (const c of suite.cases) {
      const dot = c.className.lastIndexOf('.')
      const packageName = dot < 0 ? '(root)' : c.className.slice(0, dot)
      if (safe(packageName) !== pkg) continue
      foundPackage = true
      if (cls === undefined) continue
      if (safe(c.className.slice(dot + 1)) !== cls) continue
      foundClass = true
      if (cse === undefined) continue
      let base = ''
      const shown = displayName(c, suite, multipleBlocks)
      for (let i = 0; i < shown.length; i++) {
        const unit = shown.charAt(i)
        base += isJavaIdentifierPart(unit) ? unit : '_'
      }
      const n = (taken.get(base) ?? 0) + 1
      taken.set(base, n)
      if ((n === 1 ? base : `${base}_${n}`) === cse) return { kind: 'case', name: c.name }
    }
  }
  if (cse !== undefined) return undefined
  if (cls !== undefined) return foundClass ? { kind: 'class', name: cls } : undefined
  return foundPackage ? { kind: 'package', name: pkg } : undefined
}
