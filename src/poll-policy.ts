/**
 * How long to wait between two polls of a running build.
 *
 * Peers poll every 5-10 s, so a workflow hears of a finished build seconds
 * late. Polling fast all the time would load Jenkins. Jenkins tells us when
 * to expect the end (`estimatedDuration`, the mean of recent builds), so we
 * poll slowly while the end is far and fast around the expected end, which
 * keeps the detection delay low at well under one request per second on
 * average.
 */
export interface PollPolicy {
  /** Shortest wait, around the expected end (ms). */
  fastMs: number
  /** Longest wait, while the end is far (ms). */
  slowMs: number
  /** Wait when Jenkins has no estimate and the build is young (ms). */
  unknownMs: number
}

export const DEFAULT_POLL_POLICY: PollPolicy = { fastMs: 250, slowMs: 2000, unknownMs: 1000 }

/**
 * @param startedAt epoch ms the build started (its `timestamp`)
 * @param estimatedMs Jenkins' `estimatedDuration`, -1 when unknown
 * @param now epoch ms
 */
export function nextPollDelay(
  startedAt: number,
  estimatedMs: number,
  now: number,
  policy: PollPolicy = DEFAULT_POLL_POLICY
): number {
  const elapsed = Math.max(0, now - startedAt)
  if (!(estimatedMs > 0)) {
    // No history: short builds are common (and are what a user waits on
    // interactively), so start fast and slow down as the build proves long.
    // Past 10 s, back off with the build's age so that a long first build
    // stays under one request per second (BENCHMARKS.md).
    if (elapsed < 2000) return policy.fastMs
    if (elapsed < 10_000) return Math.max(policy.fastMs, policy.unknownMs / 2)
    return clamp(elapsed / 10, policy.unknownMs, policy.slowMs)
  }
  const remaining = startedAt + estimatedMs - now
  if (remaining > 0) {
    // Aim to land a poll shortly after the expected end: a quarter of what
    // remains, bounded.
    return clamp(remaining / 4, policy.fastMs, policy.slowMs)
  }
  // Overdue: the estimate was short. Stay fast for a while, then back off
  // in proportion to how late the build is.
  const late = -remaining
  return clamp(late / 8, policy.fastMs, policy.unknownMs)
}

/** Delay between queue polls: fast at first (the build usually starts at once), then slower. */
export function nextQueueDelay(attempt: number, policy: PollPolicy = DEFAULT_POLL_POLICY): number {
  return clamp(100 * 1.5 ** attempt, 100, policy.slowMs)
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Math.round(value)))
}
