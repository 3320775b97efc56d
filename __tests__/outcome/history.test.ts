import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { BuildResult } from '../../src/util/constants.js'
import { historyLine, historyOf, medianDuration } from '../../src/outcome/history.js'

const url = (n: number): string => `https://ci.example/job/app/${n}/`

describe('history', () => {
  const entries = historyOf(
    [
      { number: 14, result: null, duration: 0, building: true },
      { number: 13, result: 'FAILURE', duration: 4000, building: false },
      { number: 12, result: 'SUCCESS', duration: 1000, building: false },
      { number: 11, result: 'UNSTABLE', duration: 3000, building: false },
      { number: 10, result: 'SUCCESS', duration: 2000, building: false }
    ],
    url
  )

  it('keeps finished builds, newest first, with their URLs', () => {
    expect(entries).toEqual([
      { number: 13, result: 'FAILURE', duration: 4000, url: url(13) },
      { number: 12, result: 'SUCCESS', duration: 1000, url: url(12) },
      { number: 11, result: 'UNSTABLE', duration: 3000, url: url(11) },
      { number: 10, result: 'SUCCESS', duration: 2000, url: url(10) }
    ])
  })

  it('has the median of an odd and of an even count', () => {
    expect(medianDuration(entries)).toBe(2500)
    expect(medianDuration(entries.slice(1))).toBe(2000)
    expect(medianDuration([])).toBeUndefined()
  })

  it('shows one line, oldest first, each symbol a link; nothing without builds', () => {
    expect(historyLine(entries)).toBe(
      `<p>Last 4 finished build(s), oldest first: <a href="${url(10)}">✅</a> <a href="${url(11)}">⚠️</a> <a href="${url(12)}">✅</a> <a href="${url(13)}">❌</a> — median duration 2.5 s.</p>`
    )
    expect(historyLine([])).toBeUndefined()
  })
})

describe("docs/job-summary.md's example", () => {
  it('is the line the summary writes for the builds it links', () => {
    const page = readFileSync(new URL('../../docs/job-summary.md', import.meta.url), 'utf8')
    const line = /^<p>Last \d+ finished build\(s\).*<\/p>$/m.exec(page)?.[0] ?? ''
    const median = /median duration (\d+) min (\d+) s/.exec(line)
    const ms = (Number(median?.[1]) * 60 + Number(median?.[2])) * 1000
    const results: Record<string, BuildResult> = {
      '✅': 'SUCCESS',
      '❌': 'FAILURE',
      '⚠️': 'UNSTABLE'
    }
    // Newest first, as the output has them; every build as long as the median.
    const entries = [...line.matchAll(/<a href="([^"]+\/(\d+)\/)">([^<]+)<\/a>/g)]
      .map(m => ({
        number: Number(m[2]),
        result: results[m[3] ?? ''] ?? 'NOT_BUILT',
        duration: ms,
        url: m[1] ?? ''
      }))
      .reverse()
    expect(entries).toHaveLength(10)
    expect(historyLine(entries)).toBe(line)
  })
})
