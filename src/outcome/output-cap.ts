/**
 * JSON array outputs within a byte cap. GitHub allows 1 MB for all of a
 * job's outputs together (counted as UTF-16); a list Jenkins makes long
 * (stages, archived files) must not take it all, nor fail the job.
 */

/**
 * `entries` as a JSON array of at most `maxBytes` UTF-8 bytes: the first
 * entries that fit, each whole, so that it stays valid JSON; `kept` of
 * them, and the size of the whole array as JSON (`fullBytes`).
 */
export function cappedArray(entries: readonly unknown[], maxBytes: number) {
  const texts = entries.map(entry => JSON.stringify(entry) ?? 'null')
  let fullBytes = 2
  let bytes = 2
  let kept = 0
  texts.forEach((text, i) => {
    const size = Buffer.byteLength(text) + (i > 0 ? 1 : 0)
    fullBytes += size
    if (kept === i && bytes + size <= maxBytes) {
      bytes += size
      kept++
    }
  })
  return { json: `[${texts.slice(0, kept).join(',')}]`, kept, fullBytes }
}
