/**
 * Ctrl+C from a terminal, handled as the runner cancels a step: the step is
 * sent SIGINT once, SIGTERM 7.5 s later and killed 2.5 s after that if it is
 * still running (actions/runner src/Runner.Sdk/ProcessInvoker.cs,
 * _sigintTimeout and _sigtermTimeout). The action stops the Jenkins build on
 * that SIGINT exactly as on a cancelled workflow. The step runs in a process
 * group of its own, so the terminal's Ctrl+C reaches only this command and
 * the step gets the runner's one SIGINT, not a second from the terminal.
 */
import type { ChildProcess } from 'node:child_process'

/** The runner's wait after SIGINT before SIGTERM, and after SIGTERM before the kill. */
export const SIGINT_TIMEOUT_MS = 7500
export const SIGTERM_TIMEOUT_MS = 2500

const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP']

export class StepCanceller {
  private step: ChildProcess | undefined
  private cancelled = new WeakSet<ChildProcess>()
  private readonly timers: NodeJS.Timeout[] = []
  private readonly handler = (signal: NodeJS.Signals): void => this.cancel(signal)

  /** `say` writes a line of the command's own to the log. */
  constructor(private readonly say: (text: string) => void) {
    for (const signal of SIGNALS) process.on(signal, this.handler)
  }

  /** The step now running: a signal from here on cancels it. */
  follow(step: ChildProcess): void {
    this.step = step
    step.once('exit', () => this.clearTimers())
  }

  /** Stops listening; the process's default signal handling is back. */
  close(): void {
    for (const signal of SIGNALS) process.off(signal, this.handler)
    this.clearTimers()
  }

  private cancel(signal: NodeJS.Signals): void {
    const step = this.step
    if (!step || step.exitCode !== null || step.signalCode !== null) return
    if (this.cancelled.has(step)) {
      this.say(
        `Received ${signal} again: the step is stopping its Jenkins work; it gets SIGTERM ${SIGINT_TIMEOUT_MS / 1000} s after the first signal, as on the runner.`
      )
      return
    }
    this.cancelled.add(step)
    this.say(`Received ${signal}: cancelling the step as the runner cancels a workflow (SIGINT).`)
    step.kill('SIGINT')
    this.timers.push(
      setTimeout(() => step.kill('SIGTERM'), SIGINT_TIMEOUT_MS),
      setTimeout(() => step.kill('SIGKILL'), SIGINT_TIMEOUT_MS + SIGTERM_TIMEOUT_MS)
    )
  }

  private clearTimers(): void {
    for (const timer of this.timers.splice(0)) clearTimeout(timer)
  }
}
