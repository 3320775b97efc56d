import * as core from '@actions/core'
import { stdoutDrained } from '../follow/build-parts.js'
import { coreLogger } from './core-logger.js'
import type { Logger } from '../util/logger.js'
import type { TestLocation } from '../outcome/test-locations.js'
import { boundedSummary } from '../outcome/summary-cap.js'

/** The job summary, kept under GitHub's limit whatever is added to it (summary-cap.ts). */
export const stepSummary = boundedSummary(core.summary, coreLogger)

/**
 * Everything a mode of the action says or leaves behind, as an interface:
 * the step log, the console's raw text, groups, annotations, outputs, the
 * job summary and the state for the post step. The several-jobs path
 * (src/multi/) takes it, so that it calls no @actions/core itself and can
 * serve another front end (a terminal command) unchanged.
 */
export interface StepIO {
  /** Lines of ours (info is made inert: it quotes Jenkins). */
  logger: Logger
  /** Raw console text (written inside a stop-commands region only). */
  write(text: string): void
  /** Resolves once what was written has been taken (stdout to a pipe is asynchronous). */
  drained(): Promise<void>
  startGroup(title: string): void
  endGroup(): void
  /** An error annotation with a title (a failed test), at its file and line when known. */
  annotate(message: string, title: string, where?: TestLocation): void
  setOutput(name: string, value: string): void
  summary: typeof core.summary
  /** State for the post step. */
  saveState(name: string, value: string): void
}

/** The runner's step: @actions/core. */
export const coreStepIO: StepIO = {
  logger: coreLogger,
  write: text => void process.stdout.write(text),
  drained: stdoutDrained,
  startGroup: title => core.startGroup(title),
  endGroup: () => core.endGroup(),
  annotate: (message, title, where) =>
    core.error(message, { title, file: where?.file, startLine: where?.line }),
  setOutput: (name, value) => core.setOutput(name, value),
  summary: stepSummary,
  saveState: (name, value) => core.saveState(name, value)
}
