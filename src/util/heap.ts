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
 * A collection now; nothing where gc() cannot be had. `minor`, a scavenge,
 * frees the read buffers of a fast download: a 200 MB artifact took the step
 * from about 62 MB to 110 MB of RSS without it (docs/internals.md, "A
 * scavenge for a fast download"). `major`, a full collection, follows much
 * text let go at once (the job summary cut down to its limit,
 * summary-cap.ts): V8 would otherwise grow the heap by that much before it
 * looked; a 10 MB summary of 100 builds peaked 25 MB lower with it (bench
 * scenario summary-memory).
 */
export function collectGarbage(type: 'minor' | 'major'): void {
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
  collect?.({ type })
}
