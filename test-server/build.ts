/** A run of a job (hudson.model.Run), and the rules every run follows. */
import { ConsoleLog } from './console.js'
import type { BuildState, Cause, JobState, ParameterValueState, Result } from './types.js'

const RESULT_ORDER: Result[] = ['SUCCESS', 'UNSTABLE', 'FAILURE', 'NOT_BUILT', 'ABORTED']

/** Jenkins' Result only ever gets worse (Run.setResult). */
export function worse(a: Result | null, b: Result): Result {
  if (a === null) return b
  return RESULT_ORDER.indexOf(a) >= RESULT_ORDER.indexOf(b) ? a : b
}

/** Items that have builds (folders and multibranch projects do not). */
export function isJob(item: JobState): boolean {
  return item.type === 'freestyle' || item.type === 'pipeline'
}

export class Build implements BuildState {
  result: Result | null = null
  building = true
  finishedAt: number | null = null
  stopRequestedAt: number | null = null
  /** Published when the build ends, if the script declares tests. */
  testReport: { total: number; failed: number; skipped: number } | null = null
  readonly console: ConsoleLog
  readonly parameters: Record<string, string | boolean> = {}
  /** Timers driving the script; cleared when the build ends. */
  readonly timers = new Set<NodeJS.Timeout>()
  stopping = false

  constructor(
    readonly job: JobState,
    readonly number: number,
    readonly queueId: number,
    readonly parameterValues: ParameterValueState[],
    readonly causes: Cause[],
    readonly queuedAt: number,
    readonly startedAt: number,
    readonly executorNumber: number
  ) {
    this.console = new ConsoleLog(job.script.consoleBytes ?? 0)
    for (const p of parameterValues) this.parameters[p.name] = p.value
  }

  consoleText(): string {
    return this.console.text()
  }

  consoleLength(): number {
    return this.console.length
  }

  get durationMs(): number {
    return this.finishedAt === null ? 0 : this.finishedAt - this.startedAt
  }
}
