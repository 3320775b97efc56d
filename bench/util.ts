/** Small helpers every part of the benchmark uses: progress lines and bounded waits. */
import { setTimeout as sleep } from 'node:timers/promises'

/** A progress line on stderr (stdout carries the results table). */
export function log(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`)
}

/** Polls `test` every 10 ms until it holds; throws after `timeoutMs` so the bench always ends. */
export async function until(test: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!test()) {
    if (Date.now() > end) throw new Error(`bench: timed out waiting for ${what}`)
    await sleep(10)
  }
}
