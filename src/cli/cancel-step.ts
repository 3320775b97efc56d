/**
 * What cuts the command short, handled as the runner cancels a step. Ctrl+C:
 * the step is sent SIGINT once, SIGTERM 7.5 s later and killed 2.5 s after
 * that if it is still running (actions/runner src/Runner.Sdk/ProcessInvoker.cs,
 * _sigintTimeout and _sigtermTimeout); the action stops the Jenkins build on
 * that SIGINT as on a cancelled workflow. The step runs in a process group of
 * its own, so it gets the runner's one SIGINT, not a second from the terminal.
 * A reader that closes stdout or stderr (`| head -2`: an EPIPE, which unhandled
 * would end the command with a stack trace and leave the build running) is
 * told once (Output) and cancels the step the same way.
 */
import type { ChildProcess } from 'node:child_process'
import { constants } from 'node:os'
import { errorCode } from '../util/error-text.js'

/** The runner's wait after SIGINT before SIGTERM, and after SIGTERM before the kill. */
const SIGINT_TIMEOUT_MS = 7500
const SIGTERM_TIMEOUT_MS = 2500

/** The signals that cancel the step; the command then ends by the same signal. */
export const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP']

/** What cut the command short: a signal, or a reader that closed its stdout or stderr. */
export type Interruption = { signal: NodeJS.Signals } | { closed: StreamName }

/**
 * The command's exit status after an interruption, as a shell reports a
 * process ended by the signal: 128 + its number (130 for Ctrl+C). A closed
 * output is 141, 128 + SIGPIPE, what a writer killed by SIGPIPE reports
 * (Node ignores SIGPIPE and gets EPIPE instead).
 */
export function interruptedStatus(interruption: Interruption): number {
  const signal = 'signal' in interruption ? interruption.signal : 'SIGPIPE'
  return 128 + constants.signals[signal]
}

export class StepCanceller {
  private step: ChildProcess | undefined
  /** The main step: it says the SIGINT it gets ("Received SIGINT: the workflow was cancelled."), and a closed output cancels it. */
  private main = false
  private cancelled = new WeakSet<ChildProcess>()
  private readonly timers: NodeJS.Timeout[] = []
  private readonly handler = (signal: NodeJS.Signals): void => {
    this.interruption ??= { signal }
    // Ctrl+C is said once: by the step, which gets the same SIGINT.
    this.cancel(`Received ${signal}`, { quiet: signal === 'SIGINT' && this.main })
  }

  /** The first signal or closed output, undefined while there was none. */
  interruption: Interruption | undefined

  /** `say` writes a line of the command's own to the log. */
  constructor(private readonly say: (text: string) => void) {
    for (const signal of SIGNALS) process.on(signal, this.handler)
  }

  /** The step now running: a signal from here on cancels it; `main`: the main step (not its clean-up). */
  follow(step: ChildProcess, { main = false }: { main?: boolean } = {}): void {
    this.step = step
    this.main = main
    step.once('exit', () => this.clearTimers())
  }

  /** Stops listening; the process's default signal handling is back. */
  close(): void {
    for (const signal of SIGNALS) process.off(signal, this.handler)
    this.clearTimers()
  }

  /**
   * The reader closed `stream`: the main step is cancelled as by Ctrl+C (a
   * post step is the clean-up and runs to its end).
   */
  readonly outputClosed = (stream: StreamName): void => {
    // The step is being cancelled already (the other stream, or a signal): once is enough.
    if (this.interruption) return
    this.interruption = { closed: stream }
    if (this.main) this.cancel(`The reader of ${stream} went away`)
  }

  /** Cancels the running step as the runner does; `quiet`: the step says it itself. */
  private cancel(why: string, { quiet = false }: { quiet?: boolean } = {}): void {
    const step = this.step
    if (!step || step.exitCode !== null || step.signalCode !== null) return
    if (this.cancelled.has(step)) {
      this.say(
        `${why} again: the step is stopping its Jenkins work; it gets SIGTERM ${SIGINT_TIMEOUT_MS / 1000} s after the first signal, as on the runner.`
      )
      return
    }
    this.cancelled.add(step)
    if (!quiet) this.say(`${why}: cancelling the step as the runner cancels a workflow (SIGINT).`)
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

export type StreamName = 'stdout' | 'stderr'

/** One of the command's two output streams, which may be closed by its reader: `onClose` is told once, when it goes away, and what is written after is dropped. */
export class Output {
  /** Whether the reader went away (the error code that said so), undefined while open. */
  closed: string | undefined

  constructor(
    private readonly name: StreamName,
    /** A stream the command writes to, as process.stdout and process.stderr are. */
    readonly stream: NodeJS.WritableStream &
      Partial<Pick<NodeJS.WriteStream, 'isTTY' | 'hasColors'>>,
    private readonly onClose: (name: StreamName, code: string) => void
  ) {
    stream.on('error', (error: NodeJS.ErrnoException) => this.close(error.code ?? error.message))
  }

  /** Writes `text` unless the reader went away. */
  write(text: string): void {
    if (this.closed !== undefined) return
    try {
      this.stream.write(text)
    } catch (error) {
      // A synchronous pipe may throw instead of emitting 'error'.
      this.close(errorCode(error) ?? String(error))
    }
  }

  private close(code: string): void {
    if (this.closed !== undefined) return
    this.closed = code
    this.onClose(this.name, code)
  }
}
