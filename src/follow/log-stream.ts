import { randomUUID } from 'node:crypto'
import { StringDecoder } from 'node:string_decoder'
import type { BuildRef } from '../jenkins/model/types.js'
import type { JenkinsApi } from '../jenkins/client.js'
import type { StepIO } from '../runner/io.js'
import { holdCommands } from '../runner/commands.js'

/**
 * Where console text goes: the step's. `drained` resolves once what was
 * written has been taken: stdout to a pipe is asynchronous, what the runner
 * has not read yet stays in this process, so the streamer waits for it
 * before reading more of the body.
 */
type ConsoleSink = Pick<StepIO, 'write'> & Partial<Pick<StepIO, 'drained'>>

/** How many console lines, and bytes, tail() keeps. */
const TAIL_LINES = 50
const TAIL_BYTES = 8 * 1024
/** A partial line longer than this (in characters) is written out without waiting for its end. */
const MAX_LINE = 64 * 1024

// Jenkins >= 2.509 leaves ConsoleNote annotations in the plain-text log
// (jenkins-api.md 6.1); a note never contains ESC, so it is always within one
// line and an unfinished one always starts at the last ESC of a text.
// eslint-disable-next-line no-control-regex
const CONSOLE_NOTE = /\x1b\[8mha:[^\x1b]*\x1b\[0m/g
const NOTE_START = '\x1b[8mha:'
/** The line Jenkins writes once the result is final, before it closes the log (BuildListener.finished). */
const FINISHED_LINE = /^Finished: (SUCCESS|UNSTABLE|FAILURE|NOT_BUILT|ABORTED)$/

/** What one console poll found. */
export interface ConsolePoll {
  /** X-More-Data: the log is still written; false once it is complete. */
  moreData: boolean
  /** The log grew since the last poll. */
  grew: boolean
  /**
   * The console so far ends with Jenkins' `Finished: RESULT` line: the build
   * has ended and Jenkins is closing the log. A hint only: a build can print
   * that line itself.
   */
  finished: boolean
}

/**
 * Follows a build's console through logText/progressiveText and writes it to a
 * sink line by line, with CRLF turned back into LF and ConsoleNotes removed.
 *
 * Memory stays flat whatever the log size: the body is consumed chunk by
 * chunk and only a partial last line (bounded by maxLineLength) and the tail
 * are kept.
 */
export class ConsoleStreamer {
  private decoder = new StringDecoder('utf8')
  /** Decoded text after the last written newline, not yet written. */
  private pending = ''
  private nextStart = 0
  /** The last complete lines written, at most TAIL_LINES and TAIL_BYTES (keepLast). */
  private readonly lastLines: string[] = []
  /** Text written since the last newline (for tail()), capped at TAIL_BYTES: empty at a line start. */
  private openLine = ''

  constructor(
    private readonly api: Pick<JenkinsApi, 'progressiveText'>,
    private readonly build: BuildRef,
    private readonly sink: ConsoleSink
  ) {}

  /**
   * One GET progressiveText?start=<offset>: writes the complete new lines to
   * the sink and advances the offset to X-Text-Size.
   */
  async poll(): Promise<ConsolePoll> {
    const start = this.nextStart
    const chunk = await this.api.progressiveText(this.build, start)
    if (chunk.textSize < start) {
      // Jenkins answers a start beyond the log's length by resending the log
      // from 0 (jenkins-api.md 6.1): the log on Jenkins is shorter than what
      // we already showed, so it was truncated, rotated or replaced. We cannot
      // tell which part is new, so we skip this copy (no duplicates), say so
      // in one line, and follow the log from its current end.
      chunk.body.destroy()
      this.notice(
        `The console log on Jenkins restarted (it is now ${chunk.textSize} bytes, ` +
          `${start} were already shown); following it from its current end.`
      )
      this.nextStart = chunk.textSize
      return { moreData: chunk.moreData, grew: true, finished: false }
    }
    let bodyBytes = 0
    try {
      for await (const data of chunk.body) {
        const buffer: Buffer = typeof data === 'string' ? Buffer.from(data, 'utf8') : data
        bodyBytes += buffer.length
        this.push(this.decoder.write(buffer))
        // Backpressure: a reader slower than Jenkins would otherwise make
        // memory grow with the console.
        if (this.sink.drained) await this.sink.drained()
      }
    } catch (error) {
      // The body length does not map back to an offset (Jenkins rewrites LF
      // as CRLF, jenkins-api.md 6.1), so a body that broke off half-way
      // cannot be resumed. Nothing arrived: the same offset can be asked
      // again. Some lines were written: asking again would repeat them, so
      // the rest of this piece is skipped, visibly.
      if (bodyBytes > 0) {
        this.notice('The console transfer broke off; some lines are missing here.')
        this.nextStart = chunk.textSize
      }
      throw error
    } finally {
      chunk.body.destroy()
    }
    this.nextStart = chunk.textSize
    // The last complete line written is `Finished: RESULT`, with nothing after it.
    const finished =
      this.pending === '' && this.openLine === '' && FINISHED_LINE.test(this.lastLines.at(-1) ?? '')
    return { moreData: chunk.moreData, grew: chunk.textSize > start, finished }
  }

  /** Writes a line of ours among the console's, at a line start. */
  notice(message: string): void {
    this.flush()
    this.emit(`[jenkins-build-action] ${message}\n`)
  }

  /**
   * Writes any held-back partial last line, so that the output ends at a line
   * start (a workflow command written next, such as the resume marker of
   * withCommandsStopped, must start a line to be recognised). Call once when done.
   */
  flush(): void {
    const rest = this.pending + this.decoder.end()
    this.decoder = new StringDecoder('utf8')
    this.pending = ''
    this.emit(clean(rest))
    // A line the sink was left in the middle of (a spilled long line, or the rest above) is ended.
    if (this.openLine !== '') this.emit('\n')
  }

  /** The last lines of the console, bounded by TAIL_LINES and TAIL_BYTES, for the failure annotation. */
  tail(): string[] {
    const lines = [...this.lastLines]
    const open = this.openLine + clean(this.pending)
    if (open !== '') lines.push(cutToBytes(open.replace(/\r$/, ''), TAIL_BYTES - 1))
    return keepLast(lines)
  }

  /** Adds decoded text: writes every complete line, holds back the rest. */
  private push(text: string): void {
    // Nothing decoded (half of a character): an unfinished ConsoleNote held back waits on.
    if (text === '') return
    this.pending += text
    const lineEnd = this.pending.lastIndexOf('\n') + 1
    const complete = this.pending.slice(0, lineEnd)
    this.pending = this.pending.slice(lineEnd)
    this.emit(clean(complete))
    if (this.pending.length > MAX_LINE) this.spillLongLine()
  }

  /** Writes most of an overlong partial line, keeping back what may still change when it goes on. */
  private spillLongLine(): void {
    const text = this.pending.replace(CONSOLE_NOTE, '')
    // An unfinished ConsoleNote or a CR that may turn out to be half of a CRLF
    // must wait for the next text.
    const esc = text.lastIndexOf('\x1b')
    const held =
      esc > 0 && NOTE_START.startsWith(text.slice(esc, esc + NOTE_START.length))
        ? esc
        : text.length - (text.endsWith('\r') ? 1 : 0)
    this.pending = text.slice(held)
    this.emit(text.slice(0, held))
  }

  private emit(text: string): void {
    if (text === '') return
    this.sink.write(text)
    // The last lines of what was written, for tail().
    const parts = (this.openLine + text).split('\n')
    this.openLine = cutToBytes(parts.pop() ?? '', TAIL_BYTES)
    for (const part of parts.slice(-TAIL_LINES)) {
      this.lastLines.push(cutToBytes(part, TAIL_BYTES - 1))
    }
    // Held by bytes too, not only by lines: 50 lines of 8 KiB each would be 400 KiB a build.
    keepLast(this.lastLines)
  }
}

/** The transforms every written text gets: CRLF to LF (jenkins-api.md 6.1) and no ConsoleNotes. */
export function clean(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(CONSOLE_NOTE, '')
}

/** Drops the oldest of `lines` until TAIL_LINES and TAIL_BYTES hold (a line is cut below TAIL_BYTES, so one always stays). */
function keepLast(lines: string[]): string[] {
  let bytes = lines.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0)
  while (lines.length > 1 && (lines.length > TAIL_LINES || bytes > TAIL_BYTES)) {
    bytes -= Buffer.byteLength(lines.shift() ?? '') + 1
  }
  return lines
}

/** Keeps the end of a line that is longer than `max` bytes, marked with an ellipsis. */
function cutToBytes(line: string, max: number): string {
  if (line.length * 3 <= max || Buffer.byteLength(line) <= max) return line
  const bytes = Buffer.from(line, 'utf8')
  // A cut inside a multi-byte character decodes to U+FFFD: drop it.
  const end = bytes.subarray(bytes.length - Math.max(0, max - 3)).toString('utf8')
  return '…' + end.replace(/^\uFFFD+/, '')
}

/**
 * Stops the runner's workflow-command processing, so that console lines
 * from Jenkins (untrusted) cannot issue `::add-mask::`, `::error::` or any
 * other command; the returned function resumes it (once). The resume token
 * is random and never shown before the stop, so the console cannot guess
 * it to resume early. Commands of ours issued meanwhile (runner/commands.ts)
 * follow the resume. What is written in between must end at a line start
 * (ConsoleStreamer.flush() ensures it) for the resume marker to be recognised.
 */
export function stopCommands(write: (text: string) => void): () => void {
  const token = randomUUID()
  const release = holdCommands()
  try {
    write(`::stop-commands::${token}\n`)
  } catch (error) {
    release()
    throw error
  }
  let resumed = false
  return () => {
    if (resumed) return
    resumed = true
    // Whatever a write does, commands of ours must not stay held.
    try {
      write(`::${token}::\n`)
    } finally {
      release()
    }
  }
}

/** Runs fn with workflow commands stopped (stopCommands), resumed even if fn throws. */
export async function withCommandsStopped<T>(
  write: (text: string) => void,
  fn: () => Promise<T>
): Promise<T> {
  const resume = stopCommands(write)
  try {
    return await fn()
  } finally {
    resume()
  }
}
