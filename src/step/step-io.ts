/**
 * What the step writes to the runner (StepIO), and what never leaves it: the
 * step's secrets, masked by the runner and redacted from every text the step
 * writes, and Jenkins text that could form a workflow command (every plain
 * log line is made inert).
 */
import * as core from '@actions/core'
import { stdoutDrained } from '../follow/build-parts.js'
import { whenCommandsRun } from '../runner/commands.js'
import type { AnnotationPlace, StepIO } from '../runner/io.js'
import { boundedSummary } from '../outcome/summary-cap.js'
import type { Logger } from '../util/logger.js'
import { Redaction } from '../util/redaction.js'

/**
 * The step's secrets: every secret input (inputs.ts getSettings) and every
 * secret Jenkins hands over (a crumb, a session cookie: create-client.ts).
 * The runner masks them in the log; it cannot mask what the step sends
 * through the API (a pull request comment, a commit status), and annotations
 * and the summary are the step's to keep clean, so every text the step
 * writes goes through `redactSecrets` too (coreLogger, coreStepIO,
 * GithubReports). One list for the step, as the runner's masker is one.
 */
const secrets = new Redaction()

/** Registers a secret: redacted from now on, and masked by the runner (once commands run: an `::add-mask::` while the console prints would show the value). */
export function maskSecret(value: string): void {
  if (value === '') return
  secrets.add(value)
  whenCommandsRun(() => core.setSecret(value))
}

/**
 * `text` without any secret of the step (util/redaction.ts).
 * @internal
 */
export function redactSecrets(text: string): string {
  return secrets.redact(text)
}

/**
 * The one printer for text outside the console's stop-commands region: every
 * step-log line the action writes goes through inertLine, because most of
 * them quote Jenkins, and Jenkins text is untrusted. An escaped line with no
 * line break, no `##[`, and no `::` at its start can form no command:
 * docs/internals.md, "Inert step-log lines".
 */

// C0 and C1 controls but TAB: CR and LF split lines, and U+0085 (NEL) is
// whitespace to .NET's TrimStart though not to JavaScript's `\s`.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g
const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r' }

/**
 * One step-log line that the runner cannot take for a workflow command:
 * control characters (line breaks included) are shown escaped (`\n`, `\r`,
 * `\x1b`), every `##[` becomes `#\#[`, and a line that would start with `::`
 * after its leading whitespace gets a `\` before it.
 * @internal
 */
export function inertLine(text: string): string {
  const escaped = text
    .replace(CONTROL, c => NAMED[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
    .replace(/##\[/g, '#\\#[')
  // JavaScript's \s covers .NET's whitespace once U+0085 is escaped above.
  return escaped.replace(/^(\s*)::/, '$1\\::')
}

/**
 * The step log, for every module (they never call @actions/core's printing
 * themselves; ESLint enforces it). Info lines go through inertLine, since
 * they quote Jenkins; debug and warning are safe as they are: @actions/core
 * escapes their data and starts the line with its own `::debug::` or
 * `::warning::`, which the runner parses first. Those two are commands: while
 * the console prints (commands stopped) they wait for the resume. Every line
 * leaves without the step's secrets: a warning is also an annotation, which
 * the runner shows as sent.
 */
export const coreLogger: Logger = {
  debug: message => whenCommandsRun(() => core.debug(redactSecrets(message))),
  // The one core.info of src/ (ESLint's print rule): every other line goes through here.
  // eslint-disable-next-line no-restricted-syntax
  info: message => core.info(inertLine(redactSecrets(message))),
  warning: message => whenCommandsRun(() => core.warning(redactSecrets(message)))
}

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
 * step's secrets.
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
  summary: boundedSummary(core.summary, coreLogger, redactSecrets),
  redact: redactSecrets,
  saveState: (name, value) => core.saveState(name, value)
}
