import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/**
 * Keeps V8's young generation at its initial size instead of letting it grow
 * to tens of MB.
 *
 * Streaming a console allocates fast and briefly (socket buffers, decoded
 * text), and V8 grows the young generation with the bytes that survive
 * scavenges over time; the socket buffers (external memory) are only freed
 * by a scavenge, so a bigger young generation also holds more of them. With
 * a 100 MB console `npm run bench` measured a peak RSS of 203 MB without
 * this and 85 MB with it, and the step ended sooner (fewer long pauses).
 *
 * The runner starts `node dist/index.js` without flags, so the entry point
 * is the only place to set it. `--max-semi-space-size` is fixed when the
 * heap is set up and does nothing here; the growth factor is read each time
 * V8 considers growing, so 1 (never grow) takes effect.
 */
export function keepYoungGenerationSmall(): void {
  setFlagsFromString('--semi-space-growth-factor=1')
}

type Collect = (options: { type: 'minor' | 'major' }) => void
let collect: Collect | null | undefined

/**
 * Runs a scavenge now, to free the read buffers of a fast download.
 *
 * A socket read hands over a 64 KiB buffer that V8 counts as external memory
 * and frees only when a collection finds it dead. Streaming a file to disk at
 * a few hundred MB/s allocates them far faster than the JavaScript objects
 * around them fill the (small, see above) young generation, so thousands pile
 * up between scavenges: a 200 MB artifact took the step from about 62 MB to
 * 110 MB of RSS. A scavenge every few MiB keeps that to a few MiB of buffers
 * for well under a millisecond each.
 *
 * V8 only exposes gc() to contexts created after `--expose-gc` is set, so a
 * fresh one hands it over; the main context gets no global `gc`. Where that
 * is not possible this does nothing.
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
      collect = typeof gc === 'function' ? (gc as Collect) : null
    } catch {
      collect = null
    }
  }
  return collect
}
