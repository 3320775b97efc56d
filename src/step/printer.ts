/**
 * The step's log of its builds: a lone build's console streams live in its
 * group as it runs (liveConsole); with several, each console is printed
 * whole in its own group once its build ended (printConsole), one group at
 * a time (Printer). Workflow commands are stopped while a console prints;
 * the engine's reads feed both.
 */
import { ConsoleStreamer, stopCommands, withCommandsStopped } from '../follow/log-stream.js'
import type { ConsoleFollower } from '../follow/schedule.js'
import { fullName } from '../jenkins/model/job-path.js'
import type { BuildRef } from '../jenkins/model/types.js'
import { Interrupted } from '../jenkins/transport/errors.js'
import { errorText } from '../util/error-text.js'
import type { Logger } from '../util/logger.js'
import type { AnnotationPlace, StepIO } from '../runner/io.js'
import type { StepRun } from './bounded-step.js'
import type { BuildsRun, Item } from './run-builds.js'

/**
 * The step log of several builds: consoles are printed one group at a time
 * (groups cannot interleave), and every other line (state changes, warnings,
 * annotations, debug) waits while a group is open, then follows in order. A
 * line written inside a console's stop-commands region would be inert text:
 * a warning would not be a warning, a debug line would show.
 */
export class Printer {
  /** The logger for everything but the consoles. */
  readonly logger: Logger
  private queue: Promise<unknown> = Promise.resolve()
  private open = false
  private readonly held: Array<() => void> = []

  constructor(
    private readonly io: Pick<
      StepIO,
      'logger' | 'write' | 'drained' | 'startGroup' | 'endGroup' | 'annotate'
    >
  ) {
    this.logger = {
      debug: message => this.say(() => io.logger.debug(message)),
      info: message => this.say(() => io.logger.info(message)),
      warning: message => this.say(() => io.logger.warning(message))
    }
  }

  /** An error annotation, held like a line (a function of its own: reportEnded passes it on). */
  readonly annotate = (message: string, title: string, where?: AnnotationPlace): void =>
    this.say(() => this.io.annotate(message, title, where))

  /**
   * Runs `fn` inside a group titled `title`, after the groups already asked
   * for. What `fn` writes must end at a line start (the group's end marker
   * must start a line).
   */
  group<T>(title: string, fn: (sink: Pick<StepIO, 'write' | 'drained'>) => Promise<T>): Promise<T> {
    const run = async (): Promise<T> => {
      this.open = true
      this.io.startGroup(title)
      try {
        return await fn({ write: text => this.io.write(text), drained: () => this.io.drained() })
      } finally {
        this.io.endGroup()
        this.open = false
        for (const line of this.held.splice(0)) line()
      }
    }
    const result = this.queue.then(run, run)
    this.queue = result.catch(() => undefined)
    return result
  }

  private say(line: () => void): void {
    if (this.open) this.held.push(line)
    else line()
  }
}

/**
 * The lone build's console: a maker the engine calls at the build's start,
 * which opens its group with workflow commands stopped; the engine's
 * console reads tell its end.
 */
export function liveConsole(step: StepRun, item: Item): (ref: BuildRef) => ConsoleFollower {
  const { api, io } = step
  return ref => {
    const streamer = new ConsoleStreamer(api, ref, io)
    io.startGroup(`Console of Jenkins ${item.entry.jobName} #${ref.number}`)
    const resume = stopCommands(text => io.write(text))
    item.live = {
      streamer,
      close: () => {
        if (!item.live) return
        item.live = undefined
        // Before commands resume: its lines must stay in the stopped region.
        streamer.flush()
        resume()
        io.endGroup()
      }
    }
    return streamer
  }
}

/**
 * A build that ended, printed whole in a group of its own after the groups
 * already asked for; the engine reads it until Jenkins closes it. A console
 * that cannot be read is said in the group: the build's result stands. Its
 * last lines.
 */
export function printConsole(
  { step, printer, follower }: Pick<BuildsRun, 'step' | 'printer' | 'follower'>,
  ref: BuildRef
): Promise<string[]> {
  const { api, signal } = step
  return printer.group(`Console of Jenkins ${fullName(ref.job)} #${ref.number}`, sink => {
    const streamer = new ConsoleStreamer(api, ref, sink)
    return withCommandsStopped(
      text => sink.write(text),
      async () => {
        try {
          await follower.drain(ref, streamer)
        } catch (error) {
          if (error instanceof Interrupted || signal.aborted) throw error
          streamer.notice(`Could not read the console: ${errorText(error)}`)
        } finally {
          // Before commands resume: its lines must stay in the stopped region.
          streamer.flush()
        }
        return streamer.tail()
      }
    )
  })
}
