import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/**
 * Keeps V8's young generation at its initial size instead of letting it grow
 * to tens of MB: streaming a console, a 100 MB console peaked at 203 MB of
 * RSS without this and 85 MB with it. Why the growth factor, and why here:
 * docs/internals.md, "The young generation's size".
 */
export function keepYoungGenerationSmall(): void {
  setFlagsFromString('--semi-space-growth-factor=1')
}

type Collect = (options: { type: 'minor' | 'major' }) => void
let collect: Collect | null | undefined

/**
 * Runs a scavenge now, to free the read buffers of a fast download: a 200 MB
 * artifact took the step from about 62 MB to 110 MB of RSS without it. Does
 * nothing where gc() cannot be had. How:
 * docs/internals.md, "A scavenge for a fast download".
 */
export function collectYoungGarbage(): void {
  collector()?.({ type: 'minor' })
}

/**
 * A full collection now, after much text was let go at once (the job
 * summary cut down to its limit, summary-cap.ts): V8 would otherwise grow
 * the heap by that much before it looked. A 10 MB summary of 100 builds
 * peaked 25 MB lower with it (bench scenario summary-memory). Where gc() is
 * not available this does nothing.
 */
export function collectAllGarbage(): void {
  collector()?.({ type: 'major' })
}

function collector(): Collect | null {
  if (collect === undefined) {
    try {
      setFlagsFromString('--expose-gc')
      const gc: unknown = runInNewContext('gc')
      // cast: the context's gc, whose options V8 documents but no type declares.
      collect = typeof gc === 'function' ? (gc as Collect) : null
    } catch {
      collect = null
    }
  }
  return collect
}
