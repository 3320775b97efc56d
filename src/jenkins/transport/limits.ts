/**
 * The bounds of one exchange with Jenkins, body included: its own
 * AbortSignal fires on the first of the client's signal (Interrupted, never
 * retried), the client's deadline, `requestTimeoutMs` for the headers and a
 * body read whole, and for a streamed body the stall guard. Timeouts and
 * broken bodies are JenkinsErrors of kind 'timeout' or 'network', saying what
 * was cut: docs/internals.md, "The bounds of one exchange".
 */
import type { IncomingMessage } from 'node:http'
import { Readable } from 'node:stream'
import { formatBytes } from '../../util/bytes.js'
import { Interrupted, JenkinsError } from './errors.js'
import { NetworkFailure } from './network-errors.js'
import type { RequestSettings } from './http.js'

/** How long exchanges may take; the requester builds them from ClientOptions (RequestSettings). */
export type LimitSettings = Pick<RequestSettings, 'signal' | 'deadline'> & {
  /** Time for the headers, and for a body read whole to its last byte (RequestSettings, defaulted). */
  requestTimeoutMs: number
  /** Time for the headers alone, when shorter: the first request, before Jenkins ever answered. */
  headersTimeoutMs?: number
  /** A streamed body must bring `stallBytes` within every `stallMs` spent waiting for it. */
  stallMs: number
  stallBytes: number
  /** The request's first try and this try's number: a cut says the whole time waited. */
  attempt?: Attempt
}

/** The whole of one request: when its first try started, and which try this is. */
export interface Attempt {
  started: number
  number: number
}

/** "1.5 s": tenths, as the request timeouts are said. */
export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`
}

/** setTimeout's largest delay. */
const MAX_TIMER_MS = 2 ** 31 - 1
/**
 * With a signal, the deadline is its backstop only: the signal is meant to
 * fire at the deadline (the step's timeout, an abort budget) and its
 * Interrupted error is the one to report, so the clamp comes a little later.
 */
const BACKSTOP_MS = 250

/** Where the exchange is: waiting for headers, reading a body whole, or streaming it. */
type Phase = 'headers' | 'body' | 'stream'

/** The bounds of one exchange (see the file comment). */
export class ExchangeLimits {
  private readonly controller = new AbortController()
  /** Fires when the exchange must end: the request and the body are destroyed with `signal.reason`. */
  readonly signal = this.controller.signal
  private readonly started = Date.now()
  private phase: Phase = 'headers'
  private timer: NodeJS.Timeout | undefined
  private message: IncomingMessage | undefined
  /** Body bytes received (for messages). */
  received = 0
  private released = false
  private readonly onStepAbort = (): void => this.cut(this.interruption())

  constructor(
    readonly settings: LimitSettings,
    /** What is asked, for messages, e.g. "build #4 of 'app'". */
    private readonly what: string,
    /** The configured Jenkins URL, for messages. */
    private readonly server: string
  ) {
    settings.signal?.addEventListener('abort', this.onStepAbort, { once: true })
    this.arm(Math.min(settings.requestTimeoutMs, settings.headersTimeoutMs ?? Infinity))
  }

  async text(message: IncomingMessage, limit: number, overflow: 'cut' | 'fail'): Promise<string> {
    this.begin(message, 'body')
    const declared = Number(message.headers['content-length'])
    if (overflow === 'fail' && declared > limit) {
      this.discard(message)
      throw this.tooLarge(`${declared} bytes`, limit)
    }
    const chunks: Buffer[] = []
    try {
      // cast: a response without an encoding yields Buffers
      for await (const chunk of message as AsyncIterable<Buffer>) {
        this.received += chunk.length
        chunks.push(chunk)
        if (this.received <= limit) continue
        if (overflow === 'fail') throw this.tooLarge(`more than ${this.received} bytes`, limit)
        break
      }
    } catch (error) {
      throw this.bodyFailure(error)
    } finally {
      this.discard(message)
    }
    return Buffer.concat(chunks).subarray(0, limit).toString('utf8')
  }

  stream(message: IncomingMessage): Readable {
    this.begin(message, 'stream')
    return new GuardedBody(message, this)
  }

  discard(message: IncomingMessage): void {
    if (!message.readableEnded) message.destroy()
    this.release()
  }

  /** Ends the bounds without a body (the exchange failed, or its answer is not read). */
  release(): void {
    if (this.released) return
    this.released = true
    clearTimeout(this.timer)
    this.settings.signal?.removeEventListener('abort', this.onStepAbort)
  }

  /**
   * Notes request body bytes sent (an upload): the answer's time, and a
   * stalled upload's, runs from the last of them rather than from the start,
   * so a large file on a slow link is not cut by the request timeout.
   */
  sending(): void {
    if (this.phase === 'headers' && !this.released) this.arm(this.settings.requestTimeoutMs)
  }

  /** Ends the exchange with `error`: the request and the body are destroyed with it. */
  cut(error: Error): void {
    if (this.released || this.signal.aborted) return
    this.message?.destroy(error)
    this.controller.abort(error)
    this.release()
  }

  /** The error for a body that failed: why it was cut, or a broken connection. */
  bodyFailure(error: unknown): Error {
    // cast: only cut() aborts this signal, always with an Error
    if (this.signal.aborted) return this.signal.reason as Error
    if (error instanceof JenkinsError) return error
    return new JenkinsError(
      'network',
      `The connection to Jenkins at ${this.server} broke off while receiving ${this.what} (${this.received} bytes received)`
    )
  }

  /** A stalled stream. */
  stalled(windowBytes: number): void {
    this.cut(
      new JenkinsError(
        'timeout',
        `Jenkins at ${this.server} stopped sending ${this.what}: ${windowBytes} bytes in ${seconds(this.settings.stallMs)} (${this.received} bytes in all)`
      )
    )
  }

  private begin(message: IncomingMessage, phase: Phase): void {
    this.message = message
    this.phase = phase
    // A stream may be long (a big console): from here the stall guard and the deadline bound it.
    if (phase === 'stream') this.arm(Infinity)
    else if (this.settings.headersTimeoutMs !== undefined) {
      // The headers came in time: the body has what is left of the request's time.
      const total = this.settings.requestTimeoutMs
      this.arm(total - (Date.now() - this.started), total)
    }
  }

  /** Arms the one timer for `ms` from now (`said`: the limit a cut names), or for the deadline when that comes first. */
  private arm(ms: number, said: number = ms): void {
    clearTimeout(this.timer)
    const { deadline, signal } = this.settings
    const toDeadline =
      deadline === undefined ? Infinity : deadline + (signal ? BACKSTOP_MS : 0) - Date.now()
    const wait = Math.min(ms, toDeadline)
    if (wait === Infinity) return
    const byDeadline = toDeadline <= ms
    this.timer = setTimeout(
      () => this.cut(this.timeUp(byDeadline ? 'deadline' : said)),
      Math.min(MAX_TIMER_MS, Math.max(0, wait))
    )
  }

  private elapsed(): string {
    return seconds(Date.now() - this.started)
  }

  /** The whole time the request waited: all its tries, when this is not the first. */
  private waited(): string {
    const attempt = this.settings.attempt
    if (!attempt || attempt.number <= 1) return this.elapsed()
    return `${seconds(Date.now() - attempt.started)} (${attempt.number} tries; this one ${this.elapsed()})`
  }

  private interruption(): Interrupted {
    const state =
      this.phase === 'headers'
        ? `no answer to ${this.what} after ${this.waited()}`
        : `it had sent ${this.received} bytes of ${this.what} in ${this.elapsed()}`
    return new Interrupted(`Stopped waiting for Jenkins at ${this.server}: ${state}`, {
      sent: true
    })
  }

  /** The cut when the request's time ran out: its timeout (ms), or the step's deadline. */
  private timeUp(limit: number | 'deadline'): Error {
    const deadline = limit === 'deadline'
    const within = deadline ? 'before the deadline' : `within ${seconds(limit)}`
    if (this.phase === 'headers') {
      return new NetworkFailure(
        new JenkinsError(
          'timeout',
          `No answer from Jenkins at ${this.server} to ${this.what} ${within}`
        ),
        deadline ? 'deadline' : 'timeout',
        { transient: !deadline }
      )
    }
    const sending = deadline
      ? `had not finished sending ${this.what} at the deadline`
      : `did not finish sending ${this.what} ${within}`
    return new JenkinsError(
      'timeout',
      `Jenkins at ${this.server} ${sending} (${this.received} bytes received)`
    )
  }

  private tooLarge(size: string, limit: number): JenkinsError {
    return new JenkinsError(
      'protocol',
      `Jenkins at ${this.server} answered ${this.what} with ${size}, more than the ${formatBytes(limit)} this action reads: the answer is too large`
    )
  }
}

/**
 * A response body handed on as a stream, with the stall guard: the clock
 * runs only while this stream waits for a chunk it asked for (its buffer is
 * not full), so a slow consumer never looks like a stalled server.
 */
class GuardedBody extends Readable {
  private readonly chunks: AsyncIterator<Buffer>
  private windowBytes = 0
  /** Waiting time already spent in this window. */
  private windowWaited = 0

  constructor(
    private readonly message: IncomingMessage,
    private readonly limits: ExchangeLimits
  ) {
    super()
    this.chunks = message[Symbol.asyncIterator]()
    // A cut while the consumer is busy ends this stream at once, not at its next read.
    message.on('error', error => this.destroy(limits.bodyFailure(error)))
  }

  override _read(): void {
    const since = Date.now()
    const { stallMs, stallBytes } = this.limits.settings
    const left = Math.max(0, stallMs - this.windowWaited)
    const stall = setTimeout(() => this.limits.stalled(this.windowBytes), left)
    this.chunks.next().then(
      ({ done, value }) => {
        clearTimeout(stall)
        if (done) {
          this.limits.discard(this.message)
          this.push(null)
          return
        }
        this.windowWaited += Date.now() - since
        this.limits.received += value.length
        this.windowBytes += value.length
        if (this.windowBytes >= stallBytes) this.windowBytes = this.windowWaited = 0
        this.push(value)
      },
      (error: unknown) => {
        clearTimeout(stall)
        // A body whose connection closed before all of it came fails here too.
        this.destroy(this.limits.bodyFailure(error))
      }
    )
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.limits.discard(this.message)
    callback(error)
  }
}
