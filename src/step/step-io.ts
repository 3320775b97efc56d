import * as core from '@actions/core'
import { stdoutDrained } from '../follow/build-parts.js'
import { coreLogger } from './core-logger.js'
import { whenCommandsRun } from '../runner/commands.js'
import type { AnnotationPlace, StepIO } from '../runner/io.js'
import { boundedSummary } from '../outcome/summary-cap.js'
import { redactSecrets } from './secrets.js'

/**
 * GitHub shows 10 error annotations a step and drops the rest
 * (actions/toolkit, docs/problem-matchers.md): the last is kept for the
 * step's own failure (core.setFailed), which would otherwise be the one
 * dropped after 10 failed tests.
 */
const FAILED_TEST_ANNOTATIONS = 9
let annotations = 0

/** A failed test's annotation, or, past what GitHub shows, the same words as a log line. */
function annotate(message: string, title: string, where?: AnnotationPlace): void {
  if (++annotations <= FAILED_TEST_ANNOTATIONS) {
    core.error(redactSecrets(message), {
      title: redactSecrets(title),
      file: where?.file,
      startLine: where?.line
    })
    return
  }
  if (annotations === FAILED_TEST_ANNOTATIONS + 1) {
    coreLogger.info(
      `GitHub shows ${FAILED_TEST_ANNOTATIONS + 1} error annotations a step, the last kept for the step's result: the other failed tests follow here, and in the job summary.`
    )
  }
  // One log line each: a line is made inert whole, so a newline inside it would show as `\n`.
  const [first, ...rest] = message.split('\n')
  coreLogger.info(`Failed test ${title}: ${first ?? ''}`)
  for (const line of rest) coreLogger.info(`  ${line}`)
}

/**
 * The runner's step: @actions/core, with the job summary kept under
 * GitHub's limit (summary-cap.ts) and the annotations under GitHub's
 * (`annotate`); the summary, annotations and log lines leave without the
 * step's secrets (secrets.ts).
 */
export const coreStepIO: StepIO = {
  logger: coreLogger,
  write: text => void process.stdout.write(text),
  drained: stdoutDrained,
  startGroup: title => core.startGroup(title),
  endGroup: () => core.endGroup(),
  annotate: (message, title, where) => whenCommandsRun(() => annotate(message, title, where)),
  setOutput: (name, value) => core.setOutput(name, value),
  summary: boundedSummary(core.summary, coreLogger, { redact: redactSecrets }),
  redact: redactSecrets,
  saveState: (name, value) => core.saveState(name, value)
}
