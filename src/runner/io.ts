import type { summary } from '@actions/core'
import type { Logger } from '../util/logger.js'

/** The job summary's writer (@actions/core's, or one bounded under GitHub's limit). */
export type Summary = typeof summary

/** Where an annotation points: a workspace file and line. */
export interface AnnotationPlace {
  file: string
  line: number
}

/**
 * Everything the step writes to the runner, as one interface: the step log,
 * the console's raw text, groups, annotations, outputs, the job summary and
 * the state for the post step. Every part of the step writes through it
 * (src/step/step-io.ts is the runner's; tests and the terminal command pass
 * their own), and takes only the members it needs (`Pick<StepIO, ...>`).
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
  annotate(message: string, title: string, where?: AnnotationPlace): void
  /** Jenkins' data as it came: the runner masks registered secrets wherever an output is printed. */
  setOutput(name: string, value: string): void
  /** Written without the step's secrets, as annotations and log lines are. */
  summary: Summary
  /**
   * `text` without the step's secrets (util/redaction.ts): for text that
   * leaves the step another way (a pull request comment, a commit status
   * description). The members above apply it themselves.
   */
  redact(text: string): string
  /** State for the post step. */
  saveState(name: string, value: string): void
}
