import type { Logger } from '../util/logger.js'
import type { AnnotationPlace, StepIO } from '../runner/io.js'

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
