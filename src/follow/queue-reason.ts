/**
 * When a queue item's `why` is worth a log line: the one rule for one `job`
 * and each item of `jobs` (the schedule applies it to every build it
 * follows). Jenkins counts its reasons down (`Build #2 is already in
 * progress (ETA: 38 sec)`, `In the quiet period. Expires in 4.3 sec`), so
 * the text changes at every poll while the reason stays the same: a reason
 * is told when its words change, and a countdown at most once a minute.
 */

/**
 * Shortest time between two lines for the same reason whose numbers changed (ms).
 * @internal
 */
export const SAME_REASON_EVERY_MS = 60_000

/**
 * A number, Jenkins' "N/A" for an unknown time (Executor.getEstimatedRemainingTime),
 * each with the unit hudson.Util.getTimeSpanString may put after it.
 */
const QUANTITY =
  /(?:\d+(?:[.,]\d+)?|N\/A)(?:\s*(?:ms|sec|secs|seconds?|min|mins|minutes?|hr|hrs|hours?|days?|mo|months?|yr|years?)\b)?/gi

/**
 * A reason's words: its numbers and time units left out, so that `38 sec`
 * and `1 min 5 sec` (or build #2 and #3) are the same reason.
 * @internal
 */
export function reasonWords(why: string): string {
  return why
    .replace(QUANTITY, '\uE000')
    .replace(/\uE000(?:\s*\uE000)*/g, '#')
    .replace(/\s+/g, ' ')
    .trim()
}

/** The reason last told for a queue item, and when. */
export interface ToldReason {
  words: string
  text: string
  at: number
}

/**
 * What to remember when `why` (seen at `now`) is worth a line after `told`;
 * undefined when it is not: the same text, or the same words within a minute.
 */
export function newsOfReason(
  told: ToldReason | undefined,
  why: string,
  now: number
): ToldReason | undefined {
  const words = reasonWords(why)
  const same = told?.words === words && (told.text === why || now - told.at < SAME_REASON_EVERY_MS)
  return same ? undefined : { words, text: why, at: now }
}
