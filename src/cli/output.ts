/**
 * The command's stdout and stderr, which a reader may close under it:
 * `jenkins-build --job x | head -2` closes stdout after two lines. Node
 * reports that as an `EPIPE` error event on the stream, which, unhandled,
 * ends the command with a stack trace and leaves the step, and the Jenkins
 * build it started, running. Here a closed stream is told once to the
 * caller (who cancels the step as Ctrl+C does), and what is written to it
 * afterwards is dropped.
 */

import { errorCode } from '../util/error-text.js'

export type StreamName = 'stdout' | 'stderr'

/** One of the command's two output streams, which may be closed by its reader: `onClose` is told once, when it goes away. */
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
