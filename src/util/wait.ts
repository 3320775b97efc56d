import { setTimeout as delay } from 'node:timers/promises'

/** Thrown when the step is cancelled or times out while waiting; `reason` says which. */
export class StepAborted extends Error {
  constructor(readonly reason: AbortReason) {
    super(reason === 'timeout' ? 'The step timed out.' : 'The step was cancelled.')
    this.name = 'StepAborted'
  }
}

/** Why the step stopped waiting. */
export type AbortReason = 'timeout' | 'cancelled'

/** The reason carried by an aborted signal ('cancelled' unless it says 'timeout'). */
export function abortReason(signal: AbortSignal): AbortReason {
  return signal.reason === 'timeout' ? 'timeout' : 'cancelled'
}

/** Throws StepAborted if the signal has fired. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new StepAborted(abortReason(signal))
}

/** Waits `ms`, or throws StepAborted as soon as the signal fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  throwIfAborted(signal)
  // eslint-disable-next-line local/no-positional-undefined -- node:timers/promises takes the value to resolve with before its options
  return delay(ms, undefined, { signal }).catch((error: unknown) => {
    throw signal?.aborted ? new StepAborted(abortReason(signal)) : error
  })
}

/** Waits for `work` to settle, but not past `until` (epoch ms): whether it did; never throws. */
export async function settleBy(work: Promise<unknown>, until: number): Promise<boolean> {
  const done = new AbortController()
  const settled = await Promise.race([
    work.catch(() => undefined).then(() => true),
    delay(Math.max(0, until - Date.now()), false, { signal: done.signal }).catch(() => false)
  ])
  done.abort()
  return settled
}
