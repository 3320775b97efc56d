/**
 * What the log says while Jenkins does not answer. Retries are debug lines,
 * but a request left unanswered for a while is news: without a visible line,
 * a Jenkins that accepts connections and never answers showed nothing for
 * minutes. A request that has waited `afterMs` (its own exchange, or all its
 * tries together) is said once, and each retry after that too, in the normal
 * log, never more than one line every MIN_GAP_MS across a client (a burst
 * of quick retries, or several requests at once, says it once).
 */
import type { Logger } from '../../util/logger.js'

/** Lines closer together than this are left to the debug log. */
const MIN_GAP_MS = 4_000

/** The visible lines of one client about requests that get no answer. */
export class SilenceNotices {
  private lastAt = -Infinity

  constructor(
    private readonly logger: Logger,
    /** A request unanswered this long is said (the step's client: shorter before Jenkins ever answered). */
    readonly afterMs: () => number,
    private readonly now: () => number = Date.now
  ) {}

  /** Logs `message` in the normal log unless another such line went out less than MIN_GAP_MS ago; whether it did. */
  say(message: string): boolean {
    const now = this.now()
    if (now - this.lastAt < MIN_GAP_MS) return false
    this.lastAt = now
    this.logger.info(message)
    return true
  }
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
