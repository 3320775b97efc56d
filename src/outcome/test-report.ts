import { isCount, shownValue } from '../jenkins/model/counts.js'
import { Interrupted } from '../jenkins/transport/errors.js'
import type { Build, BuildRef, FailedTest } from '../jenkins/model/types.js'
import type { BuildOutputsApi, JenkinsApi } from '../jenkins/client.js'
import { warnUnread, type Logger } from '../util/logger.js'
import { shortName } from '../util/names.js'
import type { SourceCommit } from './source-link.js'
import type { TestLocation } from './test-locations.js'
import { errorText } from '../util/error-text.js'

/** Test counts of a build's report. */
type TestCounts = Record<'total' | 'failed' | 'skipped', number>

/** What the build's test report says, for outputs, annotations and the summary. */
export interface TestsOutcome {
  counts: TestCounts
  /** Failed tests found, at most MAX_LISTED, in report order. */
  failed: FailedTest[]
  /** Where the report is in Jenkins. */
  reportUrl: string
  /** Cases read to find them. */
  casesRead: number
  /** The report was too large to read whole: failed tests past what was read are not listed. */
  partial: boolean
  /** Where the annotated failed tests failed in the workspace, when their traces say (test-locations.ts). */
  located?: ReadonlyMap<FailedTest, TestLocation>
  /** The commit the summary links those places to, on a runner (source-link.ts). */
  commit?: SourceCommit
}

/** Failed tests listed in the summary. */
const MAX_LISTED = 20
/** Failed tests that get an annotation of their own. */
export const MAX_ANNOTATED = 10
/** Lines and characters of errorDetails an annotation quotes. */
const DETAIL_LINES = 5
const DETAIL_CHARS = 1000

/**
 * Reads the build's test report: the counts from its action, then (when
 * tests failed) the failed tests from the report in bounded pages. Undefined
 * when the build has no report. The action and its counts come from the
 * final JSON or, when it only names the action (the counts are exported
 * below depth 0, jenkins-api.md 5.5), from one narrower request. A report
 * that cannot be read leaves the counts and says so (a warning, and a note
 * in `unread` for the summary): the build's result is what the step
 * reports; the list is a help.
 */
export async function readTests(
  api: Pick<JenkinsApi, 'getBuild' | 'baseUrl'> & Pick<BuildOutputsApi, 'failedTests'>,
  ref: BuildRef,
  build: Build,
  logger: Logger,
  unread: string[] = []
): Promise<TestsOutcome | undefined> {
  // Counts that are not counts (1e+21, -1, 2.5) would reach the outputs: said once, then left out.
  let said = false
  const ignored = (message: string): void => {
    said = true
    logger.warning(message)
  }
  let action = testReportAction(build.actions, ignored)
  const named = (build.actions ?? []).some(a => /TestResult/.test(String(classOf(a))))
  if (!action && !said && named) {
    const detailed = await api
      .getBuild(ref.job, ref.number, {
        tree: 'actions[_class,failCount,skipCount,totalCount,urlName]'
      })
      .catch((error: unknown) => {
        if (error instanceof Interrupted) throw error
        warnUnread(
          `The test counts of Jenkins build #${ref.number} could not be read: ${errorText(error)}`,
          logger,
          unread
        )
      })
    action = detailed ? testReportAction(detailed.actions, ignored) : undefined
  }
  if (!action) return undefined
  const outcome: TestsOutcome = {
    counts: action.counts,
    failed: [],
    reportUrl: `${ref.url}${encodeURIComponent(action.urlName)}/`,
    casesRead: 0,
    partial: false
  }
  if (action.counts.failed === 0) return outcome
  const read = await api
    .failedTests(ref, {
      urlName: action.urlName,
      rebase: rebaser(build.url, ref.url, api.baseUrl),
      budget: { want: Math.min(MAX_LISTED, action.counts.failed) }
    })
    .catch((error: unknown) => {
      // The step being stopped is not a report that could not be read.
      if (error instanceof Interrupted) throw error
      warnUnread(
        `The test report of Jenkins build #${ref.number} could not be read, so its failed tests are not listed: ${errorText(error)}`,
        logger,
        unread
      )
    })
  if (!read) return outcome
  logger.debug(
    `Read ${read.casesRead} test cases (${read.bytesRead} bytes, ${read.requests} request(s)) to find ${read.failed.length} failed test(s)${read.complete ? '' : ', not the whole report'}${read.budgetReached ? ' (stopped at the byte budget)' : ''}.`
  )
  return { ...outcome, failed: read.failed, casesRead: read.casesRead, partial: read.budgetReached }
}

/**
 * The test report action among a build's actions: any action with
 * failCount/totalCount (hudson.tasks.junit.TestResultAction, the aggregated
 * ones of matrix, maven or downstream aggregation, other publishers). With
 * several, the largest: an aggregate includes its parts, adding would count
 * twice.
 * @internal
 */
export function testReportAction(
  actions: unknown[] | undefined,
  ignored: (message: string) => void = () => undefined
) {
  /** The report's action: hudson.tasks.junit.TestResultAction or an AggregatedTestResultAction. */
  let best: { counts: TestCounts; urlName: string } | undefined
  for (const action of actions ?? []) {
    if (typeof action !== 'object' || action === null) continue
    // cast: any JSON object; each field is checked below.
    const { failCount, totalCount, skipCount, urlName } = action as Record<string, unknown>
    if (failCount === undefined || totalCount === undefined) continue
    const wrong = Object.entries({ totalCount, failCount, skipCount }).filter(
      ([, value]) => value !== undefined && !isCount(value)
    )
    if (wrong.length > 0) {
      ignored(
        `Ignored the test counts of ${shownValue(classOf(action) ?? 'a test report')}: ${wrong.map(([key, value]) => `${key} ${shownValue(value)}`).join(', ')} ${wrong.length > 1 ? 'are not whole numbers' : 'is not a whole number'} from 0 to ${Number.MAX_SAFE_INTEGER}.`
      )
      continue
    }
    if (!isCount(failCount) || !isCount(totalCount)) continue
    const counts = {
      total: totalCount,
      failed: failCount,
      skipped: isCount(skipCount) ? skipCount : 0
    }
    if (best && counts.total <= best.counts.total) continue
    best = { counts, urlName: typeof urlName === 'string' && urlName ? urlName : 'testReport' }
  }
  return best
}

/**
 * Turns a URL Jenkins wrote (from its configured root URL, maybe another
 * host: jenkins-api.md 9) into one on our base, using the build's own `url`
 * against the one we built to find Jenkins' root.
 * @internal
 */
export function rebaser(
  jenkinsBuildUrl: string | undefined,
  ourBuildUrl: string,
  baseUrl: string
): (url: string) => string {
  const tail = ourBuildUrl.startsWith(baseUrl) ? ourBuildUrl.slice(baseUrl.length) : ''
  if (tail === '' || jenkinsBuildUrl === undefined || !jenkinsBuildUrl.endsWith(tail)) {
    return url => url
  }
  const theirRoot = jenkinsBuildUrl.slice(0, -tail.length)
  const ourRoot = ourBuildUrl.slice(0, -tail.length)
  return url => (url.startsWith(`${theirRoot}/`) ? ourRoot + url.slice(theirRoot.length) : url)
}

/**
 * One `::error` per failed test (up to MAX_ANNOTATED), titled with its
 * name, at the file and line where it failed when that is known (`located`).
 */
export function annotateFailedTests(
  tests: TestsOutcome,
  annotate: (message: string, title: string, where?: TestLocation) => void
): void {
  for (const test of tests.failed.slice(0, MAX_ANNOTATED)) {
    const quoted = errorLines(test).slice(0, DETAIL_LINES).join('\n').slice(0, DETAIL_CHARS)
    const where = test.className ? `${shortName(test.className)} — ${test.url}` : test.url
    annotate(
      quoted ? `${quoted}\n${where}` : `${test.status} ${where}`,
      shortName(test.name),
      tests.located?.get(test)
    )
  }
}

/** The lines of a failed test's error: its annotation quotes the first few, the summary the first. */
export function errorLines({ errorDetails }: FailedTest): string[] {
  return (errorDetails ?? '').trim().split(/\r\n|\r|\n/)
}

function classOf(action: unknown): unknown {
  return typeof action === 'object' && action !== null && '_class' in action
    ? action._class
    : undefined
}
