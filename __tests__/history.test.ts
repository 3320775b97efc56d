import { describe, expect, it } from 'vitest'
import { historyLine, historyOf, historyOutput, medianDuration } from '../src/history.js'

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
    expect(JSON.parse(historyOutput(entries))).toEqual([
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
