import * as core from '@actions/core'
import { stdoutDrained } from '../follow/build-parts.js'
import { coreLogger } from './core-logger.js'
import { whenCommandsRun } from '../runner/commands.js'
import type { AnnotationPlace, StepIO } from '../runner/io.js'
import { boundedSummary } from '../outcome/summary-cap.js'
import { redactSecrets } from './secrets.js'

/** Where failed tests go: error annotations and log lines (core's, in the step). */
interface FailedTestSinks {
  error(message: string, properties: { title: string; file?: string; startLine?: number }): void
  info(line: string): void
}

/**
 * GitHub shows 10 error annotations a step and drops the rest
 * (actions/toolkit, docs/problem-matchers.md): 9 failed tests are annotated
 * and the last is kept for the step's own failure (core.setFailed). The next
 * 41 are log lines, so that 50 are named; the rest are in the job summary
 * (a step of 100 builds with 10 failed tests each logged 991 lines of them).
 * @internal
 */
export function failedTestsTo(
  sinks: FailedTestSinks
): (message: string, title: string, where?: AnnotationPlace) => void {
  const annotated = 9
  const listed = 41
  let seen = 0
  return (message, title, where) => {
    seen++
    if (seen <= annotated) {
      sinks.error(message, { title, file: where?.file, startLine: where?.line })
      return
    }
    if (seen === annotated + 1) {
      sinks.info(
        `GitHub shows ${annotated + 1} error annotations a step, the last kept for the step's result: the other failed tests follow here, and in the job summary.`
      )
    }
    if (seen > annotated + listed) {
      if (seen === annotated + listed + 1) {
        sinks.info(
          `The failed tests after these ${annotated + listed} are not listed here: see the job summary and each build's test report.`
        )
      }
      return
    }
    // One log line each: a line is made inert whole, so a newline inside it would show as `\n`.
    const [first, ...rest] = message.split('\n')
    sinks.info(`Failed test ${title}: ${first ?? ''}`)
    for (const line of rest) sinks.info(`  ${line}`)
  }
}

const annotateFailedTest = failedTestsTo({
  error: (message, { title, ...place }) =>
    core.error(redactSecrets(message), { title: redactSecrets(title), ...place }),
  info: line => coreLogger.info(line)
})

/**
 * The runner's step: @actions/core, with the job summary kept under
 * GitHub's limit (summary-cap.ts) and the annotations under GitHub's
 * (`failedTestsTo`); the summary, annotations and log lines leave without the
 * step's secrets (secrets.ts).
 */
export const coreStepIO: StepIO = {
  logger: coreLogger,
  write: text => void process.stdout.write(text),
  drained: stdoutDrained,
  startGroup: title => core.startGroup(title),
  endGroup: () => core.endGroup(),
  annotate: (message, title, where) =>
    whenCommandsRun(() => annotateFailedTest(message, title, where)),
  setOutput: (name, value) => core.setOutput(name, value),
  summary: boundedSummary(core.summary, coreLogger, { redact: redactSecrets }),
  redact: redactSecrets,
  saveState: (name, value) => core.saveState(name, value)
}
