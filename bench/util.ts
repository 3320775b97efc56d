/** Small helpers every part of the benchmark uses: progress lines and bounded waits. */

/** A progress line on stderr (stdout carries the results table). */
export function log(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`)
}

export const sleep = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms))

/** Polls `test` every 10 ms until it holds; throws after `timeoutMs` so the bench always ends. */
export async function until(test: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!test()) {
    if (Date.now() > end) throw new Error(`bench: timed out waiting for ${what}`)
    await sleep(10)
  }
}
