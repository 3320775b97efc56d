import * as core from '@actions/core'
import { stdoutDrained } from '../follow/build-parts.js'
import { coreLogger } from './core-logger.js'
import { whenCommandsRun } from '../runner/commands.js'
import type { StepIO } from '../runner/io.js'
import { boundedSummary } from '../outcome/summary-cap.js'
import { redactSecrets } from './secrets.js'

/**
 * The runner's step: @actions/core, with the job summary kept under
 * GitHub's limit (summary-cap.ts); the summary, annotations and log lines
 * leave without the step's secrets (secrets.ts).
 */
export const coreStepIO: StepIO = {
  logger: coreLogger,
  write: text => void process.stdout.write(text),
  drained: stdoutDrained,
  startGroup: title => core.startGroup(title),
  endGroup: () => core.endGroup(),
  annotate: (message, title, where) =>
    whenCommandsRun(() =>
      core.error(redactSecrets(message), {
        title: redactSecrets(title),
        file: where?.file,
        startLine: where?.line
      })
    ),
  setOutput: (name, value) => core.setOutput(name, value),
  summary: boundedSummary(core.summary, coreLogger, { redact: redactSecrets }),
  redact: redactSecrets,
  saveState: (name, value) => core.saveState(name, value)
}
