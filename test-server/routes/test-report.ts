/**
 * `<build>/testReport/…`: the TestResultAction's URL (urlName "testReport",
 * StaplerProxy target the TestResult): its api/json with tree and ranges,
 * and the pages of packages, classes and cases (junit.ts findInReport).
 * A build without a report has no such action: 404.
 */
import type { Exchange } from '../http/exchange.js'
import { findInReport, reportJson, type TestReport } from '../model/junit.js'
import type { Build } from '../model/build.js'
import { layoutPage, escapeHtml } from '../http/pages.js'
import { notFound, sendApiJson, sendLayout } from './respond.js'

/** The report JSON is built once per report: a 100,000-case one is big. */
const cache = new WeakMap<TestReport, Record<string, unknown>>()

export function testReport(ex: Exchange, build: Build, tail: string[]): void {
  const report = build.testReport
  if (!report) return notFound(ex)
  const api = tail.length >= 2 && tail.at(-2) === 'api' && tail.at(-1) === 'json'
  const path = api ? tail.slice(0, -2) : tail
  if (path.length === 0) {
    if (api) {
      let json = cache.get(report)
      if (!json) {
        json = reportJson(report)
        cache.set(report, json)
      }
      const value = json
      return sendApiJson(ex, () => value)
    }
    const { total, failed, skipped } = report.counts
    return sendLayout(
      ex,
      200,
      layoutPage(
        'Test Result',
        `<h1>Test Result</h1><p>${failed} failures, ${skipped} skipped, ${total} tests</p>`
      )
    )
  }
  if (path.length > 3) return notFound(ex)
  const found = findInReport(report, path)
  if (!found) return notFound(ex)
  if (api)
    return sendApiJson(ex, () => ({
      _class: `hudson.tasks.junit.${found.kind === 'case' ? 'CaseResult' : found.kind === 'class' ? 'ClassResult' : 'PackageResult'}`,
      name: found.name
    }))
  sendLayout(ex, 200, layoutPage(found.name, `<h1>${escapeHtml(found.name)}</h1>`))
}
