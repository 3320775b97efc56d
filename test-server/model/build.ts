/**
 * One build and how it runs: its script over time, then Jenkins' end of a
 * build, in Jenkins' order.
 *
 * The end (jenkinsci/jenkins core/src/main/java/hudson/model/Run.java,
 * `execute`, and workflow-job's WorkflowRun.java, `finish`):
 *   1. the result is final and `building` turns false: Run moves to
 *      State.POST_PRODUCTION (`isBuilding()` is `state < POST_PRODUCTION`);
 *      a WorkflowRun sets `completed = true`;
 *   2. RunListener.fireCompleted, then RunExecution.cleanUp (a freestyle job's
 *      downstream triggers) or FlowExecutionListener.fireCompleted: they may
 *      write to the log;
 *   3. `listener.finished(result)` writes `Finished: RESULT`
 *      (BuildListener.finished);
 *   4. a Pipeline may still write (StashManager.maybeClearAll's error);
 *   5. the log is closed: freestyle `listener.closeQuietly()`, `save()`, then
 *      `onEndBuilding()` moves to State.COMPLETED; a WorkflowRun closes its
 *      listener and sets it to null. Only now is `isLogUpdated()` false, so
 *      only now does progressiveText stop sending `X-More-Data: true`
 *      (Run.getLogText passes `!isLogUpdated()` as AnnotatedLargeText's
 *      `completed`; Stapler's LargeText.doProgressText keys the header on it).
 * The time 1→3 and 3→5 is the job's (or server's) EndGap.
 */
import { archive, type ArchivedFile } from './artifacts.js'
import { causeLine } from './causes.js'
import { ConsoleLog, consoleNote } from './console.js'
import { buildReport, type TestReport } from './junit.js'
import { closeStages, runStages, type PendingInput, type StageRun } from './pipeline.js'
import type { EchoField, EndGap, JobScript, Millis, Result, TriggerEcho } from '../types.js'
import type { BuildState, Cause, JobState, ParameterValueState } from './state.js'

/**
 * A plain installation's gap: a few RunListeners and the job's clean-up before
 * `Finished:`, then closing the log and writing build.xml. Heavier plugins
 * (commit-status notifiers, log scanners) make step 2 longer; see EndGap.
 */
export const DEFAULT_END_GAP: EndGap = { finishedAfterMs: 100, closedAfterMs: 25 }

const RESULT_ORDER: Result[] = ['SUCCESS', 'UNSTABLE', 'FAILURE', 'NOT_BUILT', 'ABORTED']

/** Jenkins' Result only ever gets worse (Run.setResult). */
function worse(a: Result | null, b: Result): Result {
  if (a === null) return b
  return RESULT_ORDER.indexOf(a) >= RESULT_ORDER.indexOf(b) ? a : b
}

/** A report whose case names carry the build's echo, when it echoes there (HostileSpec.echoTrigger). */
function echoedTests(build: Build, report: TestReport): TestReport {
  if (!build.echo?.fields.includes('test')) return report
  const suites = report.suites.map(suite => ({
    ...suite,
    cases: suite.cases.map(c => ({ ...c, name: build.echoed('test', c.name) }))
  }))
  return { ...report, suites }
}

/** Items that have builds (folders and multibranch projects do not). */
export function isJob(item: JobState): boolean {
  return item.type === 'freestyle' || item.type === 'pipeline'
}

export class Build implements BuildState {
  result: Result | null = null
  building = true
  logUpdated = true
  finishedAt: number | null = null
  logClosedAt: number | null = null
  stopRequestedAt: number | null = null
  /** Published when the build ends, if the script declares tests. */
  testReport: TestReport | null = null
  /** Archived when the build ends, if the script declares artifacts. */
  artifacts: ArchivedFile[] = []
  /** A Pipeline's stages so far, and its input steps (the InputAction, once there is one). */
  readonly stages: StageRun[] = []
  readonly inputs: PendingInput[] = []
  readonly console: ConsoleLog
  readonly writes: Array<{ at: number; text: string }> = []
  readonly parameters: Record<string, string | boolean> = {}
  /** Timers driving the script; cleared when the build ends. */
  readonly timers = new Set<NodeJS.Timeout>()
  stopping = false
  /** What it echoes of its trigger request (HostileSpec.echoTrigger). */
  echo: TriggerEcho | undefined

  /** `text` as the build shows it in `field`: the echo in front, when it echoes there. */
  echoed(field: EchoField, text: string): string {
    return this.echo?.fields.includes(field) ? `${this.echo.text} ${text}` : text
  }

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

  /** Appends text the build (or Jenkins) writes to the log. */
  write(text: string): void {
    if (text === '') return
    this.console.append(text)
    this.writes.push({ at: Date.now(), text })
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

  /**
   * Run.isInProgress(): a freestyle build is in progress until COMPLETED (it
   * includes POST_PRODUCTION); a WorkflowRun's `isInProgress` turns false
   * with `completed = true`, together with `building`.
   */
  get inProgress(): boolean {
    return this.job.type === 'pipeline' ? this.building : this.logUpdated
  }
}

/** What a running build needs from the model. */
export interface RunHooks {
  /** A model timer (unref'd, cleared when the server closes). */
  timer(fn: () => void, ms: number): NodeJS.Timeout
  cancel(timer: NodeJS.Timeout): void
  /** A duration from a fixed value or a range. */
  draw(ms: Millis): number
  /** The server-wide end gap, when the job sets none. */
  endGap: EndGap
  /** `building` turned false: the job no longer blocks its next build. */
  finished(build: Build): void
  /** The log is closed and Executor.run has returned: the executor is free. */
  released(build: Build): void
}

/** Runs builds' scripts and ends them as Jenkins does (see the file comment). */
export class BuildRunner {
  constructor(private readonly hooks: RunHooks) {}

  start(build: Build): void {
    const script: JobScript = build.job.script
    const duration = Math.max(0, script.durationMs ?? 1000)
    const cause = build.causes[0]
    if (cause) {
      build.write(`${causeLine(cause, text => (script.consoleNotes ? consoleNote(text) : ''))}\n`)
    }
    if (build.echo?.fields.includes('console')) build.write(this.line(build, build.echo.text))
    if (build.job.type === 'pipeline') build.write(this.line(build, '[Pipeline] Start of Pipeline'))
    if (script.echoParameters) {
      for (const p of build.parameterValues) {
        const value = p.type === 'password' ? '****' : String(p.value)
        build.write(this.line(build, `${p.name}=${value}`))
      }
    }
    if (build.job.type === 'pipeline' && script.stages) {
      const stages = script.stages.map(stage => ({
        ...stage,
        name: build.echoed('stage', stage.name)
      }))
      runStages(build, stages, {
        timer: (fn, ms) => this.buildTimer(build, fn, ms),
        line: text => build.write(this.line(build, text)),
        worsen: result => (build.result = worse(build.result, result)),
        finish: result => this.end(build, worse(build.result, result)),
        starter: build.causes.find(c => c.userId !== undefined)?.userId ?? null
      })
      return
    }
    const lines = script.consoleLines ?? []
    lines.forEach((text, i) => {
      const at = (duration * (i + 1)) / (lines.length + 1)
      this.buildTimer(build, () => build.write(this.line(build, text)), at)
    })
    const total = script.consoleBytes ?? 0
    if (total > 0) {
      const step = Math.max(10, Math.min(100, duration / 20))
      const grow = (): void => {
        const elapsed = Date.now() - build.startedAt
        build.console.growGenerated(duration > 0 ? Math.floor((total * elapsed) / duration) : total)
        if (build.building && !build.stopping && elapsed < duration) {
          this.buildTimer(build, grow, step)
        }
      }
      grow()
    }
    const early = script.earlyResult
    if (early && early.afterMs < duration) {
      this.buildTimer(
        build,
        () => (build.result = worse(build.result, early.result)),
        early.afterMs
      )
    }
    this.buildTimer(
      build,
      () => {
        let result = worse(build.result, script.result ?? 'SUCCESS')
        if (early) result = worse(result, early.result)
        this.end(build, result)
      },
      duration
    )
  }

  /** stop / term / kill (jenkins-api.md 7). A build that is not running is left alone. */
  stop(build: Build, how: 'stop' | 'term' | 'kill', userName: string): void {
    if (!build.building) return
    if (build.stopRequestedAt === null) {
      build.stopRequestedAt = Date.now()
      build.write(`Aborted by ${userName}\n`)
    }
    const delay = build.job.script.stopDelayMs ?? 0
    if (how === 'stop' && build.job.type === 'pipeline' && delay > 0) {
      if (build.stopping) return
      build.stopping = true
      this.clearTimers(build)
      this.buildTimer(build, () => this.end(build, 'ABORTED'), delay)
      return
    }
    this.end(build, 'ABORTED')
  }

  /** The end of a build, in Jenkins' order (see the file comment). */
  private end(build: Build, result: Result): void {
    if (!build.building) return
    this.clearTimers(build)
    const script = build.job.script
    if (result !== 'ABORTED' && script.consoleBytes) {
      build.console.growGenerated(script.consoleBytes)
    }
    // Publishers (JUnit, archiving) run in RunExecution.post, before POST_PRODUCTION.
    if (script.tests) build.testReport = echoedTests(build, buildReport(script.tests))
    if (script.artifacts) build.artifacts = archive(script.artifacts)
    closeStages(build, result)
    // NodePrintListener writes the FlowEndNode synchronously; GraphL then calls finish().
    if (build.job.type === 'pipeline') build.write(this.line(build, '[Pipeline] End of Pipeline'))
    build.result = worse(build.result, result)
    build.building = false
    build.finishedAt = Date.now()
    this.hooks.finished(build)
    for (const text of script.completedLines ?? []) build.write(this.line(build, text))
    const gap = script.endGap ?? this.hooks.endGap
    this.hooks.timer(() => {
      build.write(`Finished: ${build.result}\n`)
      for (const text of script.afterFinishedLines ?? []) build.write(this.line(build, text))
      this.hooks.timer(() => {
        build.logUpdated = false
        build.logClosedAt = Date.now()
        this.hooks.released(build)
      }, this.hooks.draw(gap.closedAfterMs))
    }, this.hooks.draw(gap.finishedAfterMs))
  }

  private line(build: Build, text: string): string {
    const note = build.job.script.consoleNotes
      ? consoleNote(`${build.job.fullName}#${build.number}:${text}`)
      : ''
    return `${note}${text}\n`
  }

  private buildTimer(build: Build, fn: () => void, ms: number): void {
    const t = this.hooks.timer(() => {
      build.timers.delete(t)
      fn()
    }, ms)
    build.timers.add(t)
  }

  private clearTimers(build: Build): void {
    for (const t of build.timers) this.hooks.cancel(t)
    build.timers.clear()
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
