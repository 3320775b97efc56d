import { setFlagsFromString } from 'node:v8'

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
