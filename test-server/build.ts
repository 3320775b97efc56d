/** A run of a job (hudson.model.Run), and the rules every run follows. */
import type { ArchivedFile } from './artifacts.js'
import { ConsoleLog } from './console.js'
import type { TestReport } from './junit.js'
import type { PendingInput, StageRun } from './pipeline.js'
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
  testReport: TestReport | null = null
  /** Archived when the build ends, if the script declares artifacts. */
  artifacts: ArchivedFile[] = []
  /** A Pipeline's stages so far, and its input steps (the InputAction, once there is one). */
  readonly stages: StageRun[] = []
  readonly inputs: PendingInput[] = []
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

export const PERMALINKS = [
  'lastBuild',
  'lastCompletedBuild',
  'lastSuccessfulBuild',
  'lastStableBuild',
  'lastUnstableBuild',
  'lastFailedBuild',
  'lastUnsuccessfulBuild',
  'firstBuild'
] as const
export type Permalink = (typeof PERMALINKS)[number]

/** The build a permalink names, if any (jenkins-api.md 5.1). */
export function resolvePermalink(job: JobState, name: Permalink): Build | undefined {
  const builds = [...job.builds].reverse() as Build[]
  const done = (b: Build): boolean => !b.building
  const pick = (test: (b: Build) => boolean): Build | undefined => builds.find(test)
  switch (name) {
    case 'lastBuild':
      return builds[0]
    case 'firstBuild':
      return builds[builds.length - 1]
    case 'lastCompletedBuild':
      return pick(done)
    case 'lastSuccessfulBuild':
      return pick(b => done(b) && (b.result === 'SUCCESS' || b.result === 'UNSTABLE'))
    case 'lastStableBuild':
      return pick(b => done(b) && b.result === 'SUCCESS')
    case 'lastUnstableBuild':
      return pick(b => done(b) && b.result === 'UNSTABLE')
    case 'lastFailedBuild':
      return pick(b => done(b) && b.result === 'FAILURE')
    case 'lastUnsuccessfulBuild':
      return pick(b => done(b) && b.result !== 'SUCCESS')
  }
}
